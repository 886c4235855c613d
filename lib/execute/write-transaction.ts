/**
 * A write transaction whose last statement can travel with its COMMIT: on PostgreSQL the two go to the server as one
 * simple query, one round trip instead of two (the change feed's outbox row costs a write almost nothing this way).
 */
import type { Sequelize, Transaction, TransactionOptions } from 'sequelize';
import { privateSequelize } from './private-sequelize.js';

/** A statement a write transaction runs last, just before it commits. */
export interface LastStatement {
  /**
   * The statement as text with its values written in as literals, which PostgreSQL's simple query protocol runs in
   * the COMMIT's round trip; undefined where it cannot.
   */
  readonly sql: string | undefined;
  /** Runs it in `transaction` through Sequelize's public API, as a query of its own. */
  run(transaction: Transaction): Promise<void>;
}

/** What a write transaction's work gives back: its result, and the statement to run last, if any. */
export interface WriteOutcome<T> {
  readonly value: T;
  readonly last: LastStatement | undefined;
}

/**
 * Runs `work` in a transaction and commits it, `last` run just before the commit; anything thrown rolls it all back.
 * With `folds`, on PostgreSQL, and when Sequelize's transaction has the members `privateSequelize.commitWith` needs
 * (and no CLS namespace expects a managed transaction), the last statement and the COMMIT go in one round trip;
 * otherwise Sequelize's managed transaction runs it all, the last statement as a query of its own.
 * @example const record = await inWriteTransaction(sequelize, {}, live, async (t) => ({ value: 1, last: undefined }));
 */
export async function inWriteTransaction<T>(
  sequelize: Sequelize,
  options: TransactionOptions,
  folds: boolean,
  work: (transaction: Transaction) => Promise<WriteOutcome<T>>,
): Promise<T> {
  if (!folds || sequelize.getDialect() !== 'postgres' || privateSequelize.clsActive())
    return sequelize.transaction(options, async (transaction) => {
      const { value, last } = await work(transaction);
      await last?.run(transaction);
      return value;
    });
  const transaction = await sequelize.transaction(options);
  try {
    const { value, last } = await work(transaction);
    if (last?.sql !== undefined && privateSequelize.commitsWith(transaction)) {
      await privateSequelize.commitWith(sequelize, transaction, last.sql);
      return value;
    }
    await last?.run(transaction);
    await transaction.commit();
    return value;
  } catch (thrown) {
    // As Sequelize's managed transaction does: roll back what is still open (a finished one refuses), and report the
    // first failure.
    await transaction.rollback().catch(() => undefined);
    throw thrown;
  }
}
