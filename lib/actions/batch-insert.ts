/**
 * Create many's statement path: the records built and validated by the model as `bulkCreate` builds and validates
 * them, written with one multi-row `INSERT … RETURNING *` of its own, and answered from the returned rows as a read
 * of them shows them, without an instance per reply record or a read back. `planBulkInsert` says when it is taken.
 */
import { QueryTypes, type Model, type ModelStatic, type Transaction } from 'sequelize';
import { planBulkInsert, rowOrder, type InsertPlan } from '../core/insert-plan.js';
import { planRowShape, type ShapeModel } from '../core/row-shape.js';
import { convertRows } from '../execute/fast-executor.js';
import { privateSequelize } from '../execute/private-sequelize.js';
import type { ActionScope } from '../resource/scope.js';
import { hasCustomToJSON } from '../resource/bind.js';
import { surelyValidRecord, validationPlan } from './record-validation.js';

/** What the statement path gives: the created records (for `afterCreate`) and the reply's rows, in request order. */
export interface Inserted {
  readonly records: Model[];
  readonly rows: Record<string, unknown>[];
}

/** Sequelize's own bulk create hooks, which the statement path would skip: with any, `bulkCreate` writes. */
const BULK_HOOKS = ['beforeBulkCreate', 'afterBulkCreate'] as const;

/**
 * How create many writes this request's records (see `planBulkInsert`).
 * @example if (insertPlan(scope).path === 'raw') …
 */
export function insertPlan(scope: ActionScope): InsertPlan {
  const { model, resource, config } = scope;
  const sequelize = model.sequelize!;
  const generator = privateSequelize.generator(model) as unknown as { escape?: unknown };
  return planBulkInsert({
    dialect: sequelize.getDialect(),
    databaseVersion: (
      privateSequelize.options(sequelize) as { databaseVersion?: string | number }
    ).databaseVersion?.toString(),
    shape: planRowShape(
      model as unknown as ShapeModel,
      resource.policy.visible,
      sequelize.getDialect(),
      config.create.method,
      hasCustomToJSON(model),
    ),
    primaryKey: model.primaryKeyAttributes,
    bulkHooks: BULK_HOOKS.some((name) => model.hasHook(name) || sequelize.hasHook(name)),
    defaultScope: !privateSequelize.queriesAsPlanned(model),
    escapes: typeof generator.escape === 'function' && privateSequelize.timestampAttributes(model) !== undefined,
  });
}

/** The query generator's escape of one value for its attribute, as `bulkCreate`'s INSERT escapes it. */
type Escape = (value: unknown, attribute: unknown, options: { context: string }) => string;

/**
 * Builds and validates every record (no hooks, as `bulkCreate` validates), then inserts them in one statement;
 * undefined when a record fails validation or the database refuses the statement as a client's fault would be refused
 * (`refused` says so): the caller then finds the item record by record. Anything else thrown is rethrown.
 * @example const inserted = await insertStatement(scope, plan, rows, transaction, (e) => replyFor(e).status < 500);
 */
export async function insertStatement(
  scope: ActionScope,
  plan: Extract<InsertPlan, { path: 'raw' }>,
  data: readonly Record<string, unknown>[],
  transaction: Transaction,
  refused: (thrown: unknown) => boolean,
): Promise<Inserted | undefined> {
  const model = scope.model;
  const records = data.map((values) => model.build(values, { isNewRecord: true }));
  const validation = validationPlan(model);
  for (const record of records) {
    // A record the plan's checks pass surely passes Sequelize's validation; any other is validated by Sequelize.
    if (surelyValidRecord(validation, record)) continue;
    try {
      await record.validate({ hooks: false });
    } catch (thrown) {
      if (refused(thrown)) return undefined;
      throw thrown;
    }
  }
  // As `bulkCreate`, after validation: one time for every record's created and updated times it was not given.
  const now = new Date();
  const { createdAt, updatedAt } = privateSequelize.timestampAttributes(model)!;
  const stamped = [createdAt, updatedAt].filter((name) => name !== undefined);
  for (const record of records) {
    const values = valuesOf(record);
    for (const name of stamped) if (!values[name]) values[name] = now;
  }
  const key = model.primaryKeyAttributes[0]!;
  const attributes = model.getAttributes() as Record<string, { field?: string; autoIncrement?: boolean }>;
  const order = rowOrder(
    records.map((record) => valuesOf(record)[key]),
    attributes[key]?.autoIncrement === true,
  );
  if (order === undefined) return undefined;
  const sql = insertSql(model, records);
  let returned: Record<string, unknown>[];
  try {
    // No table names: Sequelize's SQLite query would look for one after a `FROM` in the text, values included.
    const options = { type: QueryTypes.SELECT, transaction, tableNames: [] } as { type: QueryTypes.SELECT };
    returned = await model.sequelize!.query(sql, options);
  } catch (thrown) {
    if (refused(thrown)) return undefined;
    throw thrown;
  }
  const field = attributes[key]?.field ?? key;
  const byKey = new Map(returned.map((row) => [String(row[field]), row]));
  const rows =
    order === 'given'
      ? records.map((record) => byKey.get(String(valuesOf(record)[key])))
      : [...returned].sort((a, b) => Number(a[field]) - Number(b[field]));
  if (rows.length !== records.length || rows.some((row) => row === undefined))
    throw new Error('The INSERT returned other rows than it was given');
  const sqlite = model.sequelize!.getDialect() === 'sqlite';
  savedFrom(model, records, rows as Record<string, unknown>[], sqlite ? [key] : undefined);
  return { records, rows: convertRows(model, shaped(model, rows as Record<string, unknown>[], plan), plan) };
}

/**
 * The INSERT `bulkCreate` sends for these records (the columns any record holds a value for, in the model's order;
 * NULL where a record has none, `DEFAULT` for an auto-increment column where the dialect has it), with `RETURNING *`.
 * A date is escaped once per value (every record built in the same millisecond shares its created and updated
 * times). A leading comment keeps Sequelize's SQLite query from taking it for an INSERT, whose rows it does not read.
 */
function insertSql(model: ModelStatic<Model>, records: readonly Model[]): string {
  const generator = privateSequelize.generator(model);
  const escape = (generator as unknown as { escape: Escape }).escape.bind(generator);
  const bulkDefault = model.sequelize!.getDialect() === 'postgres';
  const attributes = model.getAttributes() as Record<string, { field?: string; autoIncrement?: boolean }>;
  const virtual = (name: string) => (attributes[name] as { type?: { key?: string } }).type?.key === 'VIRTUAL';
  const columns = Object.keys(attributes).filter(
    (name) => !virtual(name) && records.some((record) => valuesOf(record)[name] !== undefined),
  );
  // Per column, once: its definition, whether a missing value is DEFAULT, its dates escaped so far.
  const plan = columns.map((name) => {
    const definition = attributes[name]!;
    return {
      name,
      definition,
      bulkDefault: bulkDefault && definition.autoIncrement === true,
      dates: new Map<number, string>(),
    };
  });
  const context = { context: 'INSERT' };
  const tuples: string[] = [];
  for (const record of records) {
    const values = valuesOf(record);
    const parts: string[] = [];
    for (const { name, definition, bulkDefault: orDefault, dates } of plan) {
      const value = values[name];
      let escaped: string | undefined;
      if (orDefault && (value === null || value === undefined)) escaped = 'DEFAULT';
      else if (!(value instanceof Date)) escaped = escape(value, definition, context);
      else {
        const time = value.getTime();
        escaped = dates.get(time);
        if (escaped === undefined) dates.set(time, (escaped = escape(value, definition, context)));
      }
      parts.push(escaped);
    }
    tuples.push(`(${parts.join(',')})`);
  }
  const names = columns.map((name) => generator.quoteIdentifier(attributes[name]!.field ?? name));
  return (
    `/* create many */ INSERT INTO ${generator.quoteTable(model.getTableName())} (${names.join(',')}) ` +
    `VALUES ${tuples.join(',')} RETURNING *`
  );
}

/** The returned rows as a read of the plan's attributes gives them: keyed by attribute, in the model's order. */
function shaped(
  model: ModelStatic<Model>,
  rows: readonly Record<string, unknown>[],
  plan: Extract<InsertPlan, { path: 'raw' }>,
): Record<string, unknown>[] {
  const attributes = model.getAttributes() as Record<string, { field?: string }>;
  const fields = plan.attributes.map((name) => [name, attributes[name]?.field ?? name] as const);
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [name, field] of fields) out[name] = row[field];
    return out;
  });
}

/**
 * Each record as `bulkCreate` leaves it: its returned row's values set (only `only`'s on SQLite, where `bulkCreate`
 * learns the generated key alone), not changed, not new.
 */
function savedFrom(
  model: ModelStatic<Model>,
  records: readonly Model[],
  rows: readonly Record<string, unknown>[],
  only: readonly string[] | undefined,
): void {
  const attributes = model.getAttributes() as Record<string, { field?: string }>;
  const names = Object.keys(attributes);
  const set = names
    .filter((name) => only === undefined || only.includes(name))
    .map((name) => [name, attributes[name]!.field ?? name] as const);
  for (const [index, record] of records.entries()) {
    const row = rows[index]!;
    const values = valuesOf(record);
    for (const [name, field] of set) if (field in row) values[name] = row[field];
    for (const name of names) record.changed(name as never, false);
    privateSequelize.markSaved(record);
    record.isNewRecord = false;
  }
}

/** A record's values, as Sequelize keeps them. */
const valuesOf = (record: Model): Record<string, unknown> => record.dataValues as Record<string, unknown>;
