/**
 * exportReader: an export's raw rows batch by batch, from one cursor over the whole sorted result where the export's
 * plan says so (`planExportRead`), else by keyset batches (`batchReader`).
 */
import { randomUUID } from 'node:crypto';
import type { FindOptions, Model, ModelStatic, Sequelize, Transaction } from 'sequelize';
import { QueryTypes } from 'sequelize';
import type { ValueKind } from '../core/attribute-kinds.js';
import { planExportRead, type ExportRead } from '../core/export-read.js';
import { batchReader, keysetPlan } from './batches.js';
import { underRequestDeadline } from './deadline.js';
import { privateSequelize } from './private-sequelize.js';

/** How an export reads: as `BatchOptions`, and whether a test keeps it on batches. */
export interface ExportReadOptions {
  readonly size: number;
  /** Raw rows (the fast path); the cursor gives raw rows only, so model instances read by batches. */
  readonly raw: boolean;
  /** The export's snapshot, if any (the query's own transaction is used when it has one). */
  readonly transaction?: Transaction | undefined;
  readonly known?: ReadonlyMap<unknown, ValueKind> | undefined;
  /** True to read by batches whatever the plan says (for tests comparing both ways). */
  readonly batches?: boolean | undefined;
  /** Told how the rows are read, once, before the first batch is read. */
  readonly told?: ((read: ExportRead) => void) | undefined;
}

/** The name of the export's PostgreSQL cursor; each export has a transaction of its own, so one name serves all. */
const PG_CURSOR = 'fast_crud_export';

/**
 * How an export of `query` on `model` reads, as `planExportRead` decides on the query, the model and the driver.
 * @example exportReadOf(Product, { order: [['name', 'DESC']] }, { size: 1000, raw: true, transaction })
 */
export function exportReadOf(model: ModelStatic<Model>, query: FindOptions, options: ExportReadOptions): ExportRead {
  if (options.batches === true) return { by: 'batches', reason: 'forced' };
  const sequelize = model.sequelize!;
  const dialect = sequelize.getDialect();
  const transaction = query.transaction ?? options.transaction ?? undefined;
  const items: unknown[] = query.order === undefined ? [] : Array.isArray(query.order) ? query.order : [query.order];
  const [first] = items;
  const primaryKeys = model.primaryKeyAttributes;
  const leading =
    first === undefined
      ? 'none'
      : primaryKeys.length === 1 && Array.isArray(first) && first.length === 2 && first[0] === primaryKeys[0]
        ? 'primaryKey'
        : 'other';
  const instance = privateSequelize.options(sequelize);
  // With `benchmark`, Sequelize logs a statement after running it: the SQL could not be read before it ran.
  const missing =
    instance.benchmark === true
      ? 'statement log before the run (benchmark is on)'
      : transaction === undefined
        ? undefined
        : privateSequelize.missingCursorMembers(dialect, transaction);
  return planExportRead({
    dialect,
    leading,
    raw: options.raw,
    transaction: transaction !== undefined,
    limited: query.limit !== undefined || query.offset !== undefined,
    findHooks: model.hasHook('afterFind'),
    missing,
  });
}

/**
 * Reads an export's raw rows (or instances, by batches) in batches of `options.size`. By cursor: the SQL `findAll`
 * would send for the query in its keyset order (the primary key the tiebreak, as the batches sort), run once in the
 * transaction and read `size` rows at a time as the consumer asks, so the database sorts once: PostgreSQL
 * `DECLARE … NO SCROLL CURSOR` and `FETCH`, SQLite the sorted result copied into a temporary table read by rowid,
 * MariaDB the driver's `queryStream`, paused between batches. Ending the generator early (`return`) closes the
 * cursor. When the SQL cannot be read, it reads by batches.
 * @example for await (const rows of exportReader(Product, query, { size: 1000, raw: true, transaction })) write(rows);
 */
export async function* exportReader<M extends Model>(
  model: ModelStatic<M>,
  query: FindOptions,
  options: ExportReadOptions,
): AsyncGenerator<M[], undefined> {
  const read = exportReadOf(model, query, options);
  const transaction = (query.transaction ?? options.transaction)!;
  const sql = read.by === 'cursor' ? await selectSql(model, query, options, transaction) : undefined;
  options.told?.(
    read.by === 'cursor' && sql === undefined ? { by: 'batches', reason: 'the SQL could not be read' } : read,
  );
  if (sql === undefined) return yield* batchReader(model, query, options);
  const sequelize = model.sequelize!;
  const dialect = sequelize.getDialect();
  const rows =
    dialect === 'postgres'
      ? pgCursor(sequelize, sql, options.size, transaction)
      : dialect === 'sqlite'
        ? sqliteCursor(sequelize, sql, options.size, transaction)
        : mariadbCursor(sequelize, sql, options.size, transaction);
  return yield* rows as AsyncGenerator<M[], undefined>;
}

/** Thrown by the statement log of a dry run, so the statement it logged is never sent. */
class DryRun extends Error {}

/**
 * The SQL `findAll({ raw: true })` sends for the query in the order its keyset batches read (ending in `;`), or
 * undefined when it cannot be read. SQLite and MariaDB log a statement before sending it, and the log stops it there;
 * node-postgres has sent it by then, so on PostgreSQL it runs with `LIMIT 0` (no rows, no sort), and the limit is cut.
 */
async function selectSql(
  model: ModelStatic<Model>,
  query: FindOptions,
  options: ExportReadOptions,
  transaction: Transaction,
): Promise<string | undefined> {
  const keyset = keysetPlan(model, query.order, options.known ?? new Map());
  const order = keyset?.order ?? query.order;
  const postgres = model.sequelize!.getDialect() === 'postgres';
  let logged: string | undefined;
  try {
    await model.findAll({
      ...query,
      ...(order !== undefined && { order }),
      ...(postgres && { limit: 0 }),
      raw: true,
      transaction,
      benchmark: false,
      logging: (text: string) => {
        logged = text;
        if (!postgres) throw new DryRun();
      },
    });
  } catch (error) {
    if (!(error instanceof DryRun)) throw error;
  }
  const match = logged === undefined ? null : /^Executing \([^)]*\): ([\s\S]*;)$/.exec(logged);
  if (match === null) return undefined;
  const sql = match[1]!;
  if (!postgres) return sql;
  return sql.endsWith(' LIMIT 0;') ? `${sql.slice(0, -' LIMIT 0;'.length)};` : undefined;
}

/** PostgreSQL: a cursor declared in the transaction, `size` rows a `FETCH`, closed at the end (or on `return`). */
async function* pgCursor(
  sequelize: Sequelize,
  sql: string,
  size: number,
  transaction: Transaction,
): AsyncGenerator<Record<string, unknown>[], undefined> {
  await sequelize.query(`DECLARE ${PG_CURSOR} NO SCROLL CURSOR FOR ${sql.slice(0, -1)}`, { transaction, raw: true });
  try {
    for (;;) {
      const rows = await sequelize.query<Record<string, unknown>>(`FETCH FORWARD ${size} FROM ${PG_CURSOR}`, {
        transaction,
        type: QueryTypes.SELECT,
        raw: true,
      });
      if (rows.length > 0) yield rows;
      if (rows.length < size) return undefined;
    }
  } finally {
    // Ending the snapshot closes it too; this frees it at once, when the transaction still answers.
    await sequelize.query(`CLOSE ${PG_CURSOR}`, { transaction, raw: true }).catch(() => undefined);
  }
}

/**
 * SQLite: the sorted result copied once into a temporary table of the connection (`CREATE TEMP TABLE … AS <select>`,
 * rows numbered in the select's order), then read `size` rows a batch by rowid, each batch a seek. The snapshot's
 * `query_only` is lifted for the copy and restored; the table is dropped at the end (or on `return`), and ending the
 * snapshot would roll it back anyway. Stepping one statement through sqlite3's `Statement#get` costs a thread-pool
 * round trip per row (25 s of CPU for 1,000,000 rows, against 2.4 s for this); `Statement#each` has no backpressure.
 */
async function* sqliteCursor(
  sequelize: Sequelize,
  sql: string,
  size: number,
  transaction: Transaction,
): AsyncGenerator<Record<string, unknown>[], undefined> {
  const table = `temp.fast_crud_export_${randomUUID().replaceAll('-', '')}`;
  const run = (text: string) => sequelize.query(text, { transaction, raw: true });
  const [setting] = await sequelize.query<{ query_only?: number }>('PRAGMA query_only', {
    transaction,
    type: QueryTypes.SELECT,
    raw: true,
  });
  const queryOnly = setting?.query_only === 1 ? 'ON' : 'OFF';
  const writable = async (work: () => Promise<unknown>) => {
    await run('PRAGMA query_only = OFF');
    try {
      await work();
    } finally {
      await run(`PRAGMA query_only = ${queryOnly}`);
    }
  };
  await writable(() => run(`CREATE TABLE ${table} AS ${sql.slice(0, -1)}`));
  try {
    for (let after = 0; ; after += size) {
      const rows = await sequelize.query<Record<string, unknown>>(
        `SELECT * FROM ${table} WHERE rowid > ${after} ORDER BY rowid LIMIT ${size}`,
        { transaction, type: QueryTypes.SELECT, raw: true },
      );
      if (rows.length > 0) yield rows;
      if (rows.length < size) return undefined;
    }
  } finally {
    await writable(() => run(`DROP TABLE IF EXISTS ${table}`)).catch(() => undefined);
  }
}

interface MariadbConnection {
  queryStream(sql: string): AsyncIterable<Record<string, unknown>> & { close?(): void };
}

/**
 * MariaDB: the driver's row stream on the transaction's connection, read `size` rows a batch; the stream pauses
 * while the consumer writes (its buffer full, the socket is not read). On `return` the stream is closed (the driver
 * reads and skips the rest of the result, so the connection answers its next statement) and destroyed.
 */
async function* mariadbCursor(
  sequelize: Sequelize,
  sql: string,
  size: number,
  transaction: Transaction,
): AsyncGenerator<Record<string, unknown>[], undefined> {
  const connection = privateSequelize.transactionConnection(transaction)!;
  const stream = (connection as MariadbConnection).queryStream(sql);
  const iterator = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const rows: Record<string, unknown>[] = [];
      let done = false;
      await underRequestDeadline(sequelize, connection, async () => {
        while (rows.length < size) {
          const next = await iterator.next();
          if (next.done === true) {
            done = true;
            return;
          }
          rows.push(next.value);
        }
      });
      if (rows.length > 0) yield rows;
      if (done) return undefined;
    }
  } finally {
    // A destroyed stream alone would leave the socket paused mid-result, and the connection stuck.
    stream.close?.();
    await iterator.return?.();
  }
}
