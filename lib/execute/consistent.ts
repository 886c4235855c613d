/**
 * Reads that must see one state of the database: a search's page and its count, and any read that
 * must see a client's own earlier write (readYourWrites). Through Sequelize's public API only:
 * a REPEATABLE READ transaction (on a reader under replication, on the writer with useMaster), and on
 * SQLite, whose file every statement reads as a whole, `PRAGMA data_version` around the reads.
 */
import { QueryTypes, Transaction, type Sequelize } from 'sequelize';

/** Where a group of reads runs: in a transaction, on the writer, or as every read runs (`{}`). */
export interface Placement {
  readonly transaction?: Transaction;
  readonly useMaster?: true;
}

/** Most times SQLite's reads are run again when another connection committed while they ran. */
export const SQLITE_ATTEMPTS = 5;

/**
 * True when the Sequelize instance has read replicas (`replication.read`), so a read may reach a server that has not
 * replayed a write yet.
 * @example replicated(sequelize) // true with replication: { read: [standby], write: primary }
 */
export function replicated(sequelize: Sequelize): boolean {
  const replication = (sequelize.config as { replication?: { read?: readonly unknown[] } | false | null }).replication;
  return typeof replication === 'object' && replication !== null && (replication.read?.length ?? 0) > 0;
}

/**
 * Runs `work` (reads that must agree, such as a page and its count, run one after the other) on one
 * consistent state. `transaction` is the query's own when it has one (a hook's, CLS's): the reads run
 * in it as they are. PostgreSQL and MariaDB: one REPEATABLE READ transaction, taken from the read pool
 * unless `useMaster`. SQLite: the reads run again (at most `SQLITE_ATTEMPTS` times) while
 * `PRAGMA data_version` says another connection committed during them.
 * @example const [rows, count] = await inOneState(sequelize, false, undefined, async (p) => [await a(p), await b(p)]);
 */
export async function inOneState<T>(
  sequelize: Sequelize,
  useMaster: boolean,
  transaction: Transaction | null | undefined,
  work: (placement: Placement) => Promise<T>,
): Promise<T> {
  if (transaction !== undefined && transaction !== null) return work({ transaction });
  if (sequelize.getDialect() === 'sqlite') return unchangedDuring(sequelize, () => work({}));
  return sequelize.transaction(snapshotOptions(useMaster), (opened) => work({ transaction: opened }));
}

/** A read-only REPEATABLE READ transaction's options: Sequelize takes a reader for `readOnly`, the writer otherwise. */
function snapshotOptions(useMaster: boolean) {
  return { readOnly: !useMaster, isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ };
}

async function dataVersion(sequelize: Sequelize): Promise<unknown> {
  const row = await sequelize.query<{ data_version?: unknown }>('PRAGMA data_version', {
    type: QueryTypes.SELECT,
    plain: true,
    raw: true,
  });
  return row?.data_version;
}

/** SQLite: `work` again while another connection committed during it (at most `SQLITE_ATTEMPTS` runs). */
async function unchangedDuring<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const before = await dataVersion(sequelize);
    const result = await work();
    if (attempt >= SQLITE_ATTEMPTS || (await dataVersion(sequelize)) === before) return result;
  }
}

/**
 * Runs `work` where PostgreSQL transaction `xid` (a decimal xid8, already validated) is visible: in a
 * REPEATABLE READ transaction on a reader whose snapshot sees it (`pg_visible_in_snapshot`, checked in
 * that very transaction, so on the connection the reads use and in the snapshot they read), else on
 * the writer (`useMaster`) at once, without waiting for the standby. Without read replicas, or on
 * another dialect, `work` runs as usual.
 * @example await whereVisible(sequelize, '7412', (placement) => Product.findOne({ where, ...placement }));
 */
export async function whereVisible<T>(
  sequelize: Sequelize,
  xid: string,
  work: (placement: Placement) => Promise<T>,
): Promise<T> {
  if (sequelize.getDialect() !== 'postgres' || !replicated(sequelize)) return work({});
  // Thrown to roll the reader's transaction back when it does not see the write; caught below, never shown.
  const behind = new Error('the reader has not replayed the write');
  try {
    return await sequelize.transaction(snapshotOptions(false), async (transaction) => {
      // The first statement takes the transaction's snapshot: the one this check and every later read use.
      const row = await sequelize.query<{ visible?: boolean }>(
        'SELECT pg_visible_in_snapshot(CAST(? AS xid8), pg_current_snapshot()) AS visible',
        { type: QueryTypes.SELECT, plain: true, raw: true, replacements: [xid], transaction },
      );
      if (row?.visible !== true) throw behind;
      return work({ transaction });
    });
  } catch (thrown) {
    if (thrown !== behind) throw thrown;
    return work({ useMaster: true });
  }
}

/**
 * PostgreSQL with read replicas: the id of the transaction a write runs in (decimal xid8), asked
 * inside it before it commits, for `whereVisible`; undefined elsewhere (no replica can lag).
 * @example const xid = await writeTransactionId(sequelize, transaction);
 */
export async function writeTransactionId(sequelize: Sequelize, transaction: Transaction): Promise<string | undefined> {
  if (sequelize.getDialect() !== 'postgres' || !replicated(sequelize)) return undefined;
  const row = await sequelize.query<{ xid?: unknown }>('SELECT pg_current_xact_id()::text AS xid', {
    type: QueryTypes.SELECT,
    plain: true,
    raw: true,
    transaction,
  });
  return typeof row?.xid === 'string' ? row.xid : undefined;
}
