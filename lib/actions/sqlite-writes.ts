/** SQLite write transactions one at a time per database, and no connection left open by a failed one. */
import { Transaction, type Sequelize, type TransactionOptions } from 'sequelize';

/** The last write queued on each SQLite Sequelize instance; settled, never rejected. */
const queues = new WeakMap<Sequelize, Promise<unknown>>();

/**
 * Runs `work` (a write transaction) after the writes queued before it on the same SQLite database,
 * and at once on any other dialect. SQLite lets one writer in at a time: concurrent transactions,
 * each on its own connection, fail with SQLITE_BUSY, and Sequelize then leaves the failed
 * transaction's connection open, holding its lock. After a failure, such connections are closed.
 * @example const record = await serializeWrites(model.sequelize, () => sequelize.transaction(work));
 */
export function serializeWrites<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  if (sequelize.getDialect() !== 'sqlite') return work();
  const guarded = () =>
    work().catch(async (thrown: unknown) => {
      await closeAbandonedConnections(sequelize);
      throw thrown;
    });
  const run = (queues.get(sequelize) ?? Promise.resolve()).then(guarded);
  queues.set(
    sequelize,
    run.catch(() => undefined),
  );
  return run;
}

/**
 * The options of the library's write transactions: on SQLite `BEGIN IMMEDIATE`, which takes the
 * write lock at the start, where SQLite's busy timeout can wait for a lock another process holds,
 * before any hook has run. A deferred transaction would take it at its first write, where a lock
 * held elsewhere fails the request with SQLITE_BUSY at once. Other dialects keep their default.
 * @example await sequelize.transaction(writeTransactionOptions(sequelize), work);
 */
export function writeTransactionOptions(sequelize: Sequelize): TransactionOptions {
  return sequelize.getDialect() === 'sqlite' ? { type: Transaction.TYPES.IMMEDIATE } : {};
}

interface SqliteConnection {
  uuid?: string | undefined;
  close(callback?: (error: Error | null) => void): void;
}

/**
 * Closes the per-transaction SQLite connections whose transaction has ended (Sequelize clears their
 * `uuid`) but that are still open: what a failed COMMIT or ROLLBACK leaves, since Sequelize's SQLite
 * dialect releases a connection only on success. The shared connection (`default`, or `1` in memory) stays.
 */
async function closeAbandonedConnections(sequelize: Sequelize): Promise<void> {
  const connections =
    (sequelize.connectionManager as unknown as { connections?: Record<string, SqliteConnection> }).connections ?? {};
  const abandoned = Object.entries(connections).filter(
    ([key, connection]) => key !== 'default' && key !== '1' && connection.uuid === undefined,
  );
  await Promise.all(
    abandoned.map(([key, connection]) => {
      delete connections[key];
      return new Promise<void>((resolve) => connection.close(() => resolve()));
    }),
  );
}
