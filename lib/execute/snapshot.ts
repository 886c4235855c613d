/** One consistent, read-only snapshot for a long read (an export), per dialect, always ended. */
import { Transaction, type Sequelize } from 'sequelize';

/**
 * Opens a read-only transaction that sees one snapshot of the database for every query run in it,
 * or undefined where the dialect or setup cannot give one without harm:
 * - PostgreSQL: `REPEATABLE READ`, `READ ONLY`;
 * - MariaDB (InnoDB): `START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY` at `REPEATABLE READ`;
 * - SQLite: a deferred read transaction on its own connection, made `query_only`, when the database
 *   is a file in WAL mode. An in-memory database has one connection that every request shares (a
 *   transaction there would take in other requests' writes), and in a rollback-journal file a
 *   reader holding a transaction blocks every writer until it ends: both get undefined.
 * With `replication`, the transaction runs on a reader (Sequelize takes a read-only transaction's
 * connection from the read pool), or on the primary with `useMaster: true`: the transaction then
 * starts as Sequelize's ordinary one, on the write pool, and is made read-only by the statements below.
 * End it with `endSnapshot`, on every path.
 * @example
 * const snapshot = await openSnapshot(sequelize, { useMaster: false });
 * try { … } finally { await endSnapshot(snapshot); }
 */
export async function openSnapshot(
  sequelize: Sequelize,
  { useMaster = false }: SnapshotOptions = {},
): Promise<Transaction | undefined> {
  const dialect = sequelize.getDialect();
  if (dialect === 'sqlite' && !(await isWalFile(sequelize))) return undefined;
  if (dialect !== 'postgres' && dialect !== 'mariadb' && dialect !== 'mysql' && dialect !== 'sqlite') return undefined;
  // readOnly: Sequelize takes the connection from the read pool when there is replication; the
  // write pool without it. The statements below make the transaction read-only either way.
  const transaction = await sequelize.transaction({
    readOnly: !useMaster,
    ...(dialect === 'postgres'
      ? { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }
      : dialect === 'sqlite'
        ? { type: Transaction.TYPES.DEFERRED }
        : {}),
  } as Parameters<Sequelize['transaction']>[0] & object);
  try {
    const statements =
      dialect === 'postgres'
        ? ['SET TRANSACTION READ ONLY']
        : dialect === 'sqlite'
          ? ['PRAGMA query_only = ON']
          : // Sequelize has opened a plain transaction on the connection: replace it by a snapshot one.
            [
              'COMMIT',
              'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ',
              'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY',
            ];
    for (const statement of statements) await sequelize.query(statement, { transaction, raw: true });
    return transaction;
  } catch (error) {
    await endSnapshot(transaction);
    throw error;
  }
}

/** Where a snapshot runs. */
export interface SnapshotOptions {
  /** With `replication`: on the primary (the write pool) instead of a reader. Default false. */
  readonly useMaster?: boolean | undefined;
}

/**
 * Ends a snapshot opened by `openSnapshot` (nothing to do for undefined): rolls it back, which for
 * a read-only transaction keeps everything as it was, and gives its connection back to the pool.
 * Never throws: a connection that broke is discarded by Sequelize all the same.
 * @example await endSnapshot(snapshot);
 */
export async function endSnapshot(transaction: Transaction | undefined): Promise<void> {
  if (transaction === undefined || (transaction as unknown as { finished?: string }).finished !== undefined) return;
  await transaction.rollback().catch(() => undefined);
}

async function isWalFile(sequelize: Sequelize): Promise<boolean> {
  const storage = (sequelize as unknown as { options: { storage?: string } }).options.storage ?? '';
  if (storage === '' || storage === ':memory:' || storage.startsWith('file::memory:')) return false;
  const [row] = (await sequelize.query('PRAGMA journal_mode', { raw: true, type: 'SELECT' })) as {
    journal_mode?: string;
  }[];
  return row?.journal_mode?.toLowerCase() === 'wal';
}
