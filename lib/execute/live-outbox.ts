/**
 * The change feed's outbox: the `FastCrudChange` model (table `fast_crud_changes`) on the app's Sequelize instance,
 * the records a write noted, the event row written in the write's transaction, and pruning.
 */
import { DataTypes, Op, type Model, type ModelStatic, type Sequelize, type Transaction } from 'sequelize';
import type { ChangeEvent, ChangeKind } from '../core/live-feed.js';
import { pgTextLiteral } from '../core/pg-literal.js';
import { outsideRequests } from './deadline.js';
import type { LastStatement } from './write-transaction.js';

/** The outbox model's name on the app's Sequelize instance. */
export const OUTBOX_MODEL = 'FastCrudChange';

/** The outbox table's name. */
export const OUTBOX_TABLE = 'fast_crud_changes';

/** The PostgreSQL channel a committed outbox row is announced on. */
export const OUTBOX_CHANNEL = 'fast_crud_changes';

/**
 * The outbox model of a Sequelize instance, defined on it the first time (so `sequelize.sync()` creates its table, and
 * a migration can read `sequelize.models.FastCrudChange`'s attributes): an increasing BIGINT `id`, the `resource`
 * (the model's name), the `kind`, the find-field values `ids` and the row scopes' values `scopes` (JSON text), and
 * `created_at`, which pruning reads.
 * @example const Change = outboxModel(sequelize); await Change.sync();
 */
export function outboxModel(sequelize: Sequelize): ModelStatic<Model> {
  const known = sequelize.models[OUTBOX_MODEL];
  if (known !== undefined) return known;
  // MariaDB's TEXT holds 64 KB: a batch's ids may need more.
  const text = ['mariadb', 'mysql'].includes(sequelize.getDialect()) ? DataTypes.TEXT('long') : DataTypes.TEXT;
  return sequelize.define(
    OUTBOX_MODEL,
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      resource: { type: DataTypes.STRING(255), allowNull: false },
      kind: { type: DataTypes.STRING(16), allowNull: false },
      ids: { type: text, allowNull: false },
      scopes: { type: text, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: OUTBOX_TABLE, timestamps: false, indexes: [{ fields: ['created_at'] }] },
  );
}

/** The records each write transaction wrote, as its action noted them. */
const written = new WeakMap<Transaction, Model[]>();

/**
 * Notes records a write wrote in `transaction` (created, updated, deleted, soft-deleted or restored): the change feed
 * makes one event of them when the transaction's write is over.
 * @example noteWritten(transaction, [record]);
 */
export function noteWritten(transaction: Transaction | undefined | null, records: readonly Model[]): void {
  if (transaction === undefined || transaction === null || records.length === 0) return;
  const list = written.get(transaction) ?? [];
  written.set(transaction, list);
  list.push(...records);
}

/**
 * The records noted in `transaction`, each once, and forgets them.
 * @example const records = takeWritten(transaction);
 */
export function takeWritten(transaction: Transaction): Model[] {
  const list = written.get(transaction) ?? [];
  written.delete(transaction);
  return [...new Set(list)];
}

/** What one event row holds before it is written. */
export interface ChangeRow {
  readonly resource: string;
  readonly kind: ChangeKind;
  readonly ids: readonly string[];
  /** Per record, the values of the attributes the model's row scopes name; null when the model is not scoped. */
  readonly scopes: readonly Readonly<Record<string, unknown>>[] | null;
}

/** An event row's column values, in `CHANGE_COLUMNS`' order: the JSON columns as text. */
function changeValues(row: ChangeRow): [string, string, string, string | null, Date] {
  const scopes = row.scopes === null ? null : JSON.stringify(row.scopes);
  return [row.resource, row.kind, JSON.stringify(row.ids), scopes, new Date()];
}

const CHANGE_COLUMNS = ['resource', 'kind', 'ids', 'scopes', 'created_at'] as const;

/** PostgreSQL: the insert of one event row, and the notification PostgreSQL delivers when (and only if) it commits. */
function announcedInsert(sequelize: Sequelize, values: readonly string[]): string {
  const columns = CHANGE_COLUMNS.map((name) => sequelize.getQueryInterface().quoteIdentifier(name));
  return (
    `WITH change AS (INSERT INTO ${outboxTable(sequelize)} (${columns.join(', ')}) VALUES (${values.join(', ')}) ` +
    `RETURNING 1) SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM change`
  );
}

/**
 * Writes one event row in the write's transaction, and on PostgreSQL announces it (`pg_notify`, delivered when the
 * transaction commits, never when it rolls back) in the same statement.
 * @example await writeChange(sequelize, { resource: 'Product', kind: 'created', ids: ['7'], scopes: null }, t);
 */
export async function writeChange(sequelize: Sequelize, row: ChangeRow, transaction: Transaction): Promise<void> {
  const values = changeValues(row);
  if (sequelize.getDialect() !== 'postgres') {
    await outboxModel(sequelize).create(
      Object.fromEntries(CHANGE_COLUMNS.map((name, index) => [name, values[index]])),
      { transaction },
    );
    return;
  }
  await sequelize.query(announcedInsert(sequelize, ['$1', '$2', '$3', '$4', '$5']), { bind: values, transaction });
}

/**
 * The event row's write as a transaction's last statement (`inWriteTransaction`): on PostgreSQL also as text that
 * carries its values as literals, so that it can travel in the COMMIT's round trip.
 * @example return { value: record, last: changeWrite(sequelize, row) };
 */
export function changeWrite(sequelize: Sequelize, row: ChangeRow): LastStatement {
  const run = (transaction: Transaction) => writeChange(sequelize, row, transaction);
  if (sequelize.getDialect() !== 'postgres') return { sql: undefined, run };
  const values = changeValues(row).map((value) =>
    value === null ? 'NULL' : pgTextLiteral(value instanceof Date ? value.toISOString() : value),
  );
  return { sql: announcedInsert(sequelize, values), run };
}

/** The outbox table's name, quoted (with its schema when the model has one). */
function outboxTable(sequelize: Sequelize): string {
  const queries = sequelize.getQueryInterface();
  const name = outboxModel(sequelize).getTableName() as string | { tableName: string; schema?: string };
  return typeof name === 'string'
    ? queries.quoteIdentifier(name)
    : [name.schema, name.tableName]
        .filter((part) => part !== undefined)
        .map((part) => queries.quoteIdentifier(part))
        .join('.');
}

/** A PostgreSQL connection of the pool held by the caller, as pg's client shows it: it runs a query with values. */
export interface HeldConnection {
  query(sql: string, values?: readonly unknown[]): Promise<unknown>;
}

/**
 * The events after `after`, at most `limit`, in id order, read on a PostgreSQL connection the caller holds (the change
 * feed's listening one) rather than one of the pool, which a burst of writes may keep busy.
 * @example const events = await readChangesOn(sequelize, listener, 40n, 500);
 */
export async function readChangesOn(
  sequelize: Sequelize,
  connection: HeldConnection,
  after: bigint,
  limit: number,
): Promise<ChangeEvent[]> {
  const result = (await connection.query(
    `SELECT "id", "resource", "kind", "ids", "scopes" FROM ${outboxTable(sequelize)} WHERE "id" > $1 ` +
      `ORDER BY "id" LIMIT $2`,
    [after.toString(), limit],
  )) as { rows: OutboxRow[] };
  return result.rows.map(changeEventOf);
}

/**
 * The events after `after` (an event id's text), at most `limit`, in id order; `upTo` bounds them too.
 * @example const events = await readChanges(sequelize, '40', 500);
 */
export async function readChanges(
  sequelize: Sequelize,
  after: bigint,
  limit: number,
  upTo?: bigint,
): Promise<ChangeEvent[]> {
  const id =
    upTo === undefined ? { [Op.gt]: after.toString() } : { [Op.gt]: after.toString(), [Op.lte]: upTo.toString() };
  const rows = (await outboxModel(sequelize).findAll({
    where: { id },
    order: [['id', 'ASC']],
    limit,
    raw: true,
  })) as unknown as OutboxRow[];
  return rows.map(changeEventOf);
}

/**
 * The outbox's last id (0 when it is empty).
 * @example const last = await lastChangeId(sequelize);
 */
export async function lastChangeId(sequelize: Sequelize): Promise<bigint> {
  const max = await outboxModel(sequelize).max<string | number | bigint | null, Model>('id');
  return max === null || max === undefined ? 0n : BigInt(max);
}

/**
 * True when the outbox still holds the event `id`.
 * @example if (!(await holdsChange(sequelize, 40n))) send(frameReset(...));
 */
export async function holdsChange(sequelize: Sequelize, id: bigint): Promise<boolean> {
  return (await outboxModel(sequelize).count({ where: { id: id.toString() } })) > 0;
}

/** When each Sequelize instance's outbox was last pruned by this process. */
const pruned = new WeakMap<Sequelize, number>();

/**
 * Deletes the events older than `retentionS` seconds, at most once a minute (or once per retention, when shorter) per
 * process, outside any request; a failure is left for the next write to retry.
 * @example pruneChanges(sequelize, 86_400);
 */
export function pruneChanges(sequelize: Sequelize, retentionS: number, now = Date.now()): void {
  const every = Math.min(retentionS * 1000, 60_000);
  if (now - (pruned.get(sequelize) ?? 0) < every) return;
  pruned.set(sequelize, now);
  const before = new Date(now - retentionS * 1000);
  void outsideRequests(() =>
    outboxModel(sequelize)
      .destroy({ where: { created_at: { [Op.lt]: before } } })
      .catch(() => pruned.delete(sequelize)),
  );
}

/** An outbox row as the drivers give it: the id a number, a bigint or its text; the JSON columns text. */
interface OutboxRow {
  readonly id: string | number | bigint;
  readonly resource: string;
  readonly kind: string;
  readonly ids: string;
  readonly scopes: string | null;
}

function changeEventOf(row: OutboxRow): ChangeEvent {
  const scopes = row.scopes === null ? [] : (JSON.parse(row.scopes) as Record<string, unknown>[]);
  return {
    id: row.id.toString(),
    resource: row.resource,
    kind: row.kind as ChangeKind,
    ids: JSON.parse(row.ids) as string[],
    scopes,
  };
}
