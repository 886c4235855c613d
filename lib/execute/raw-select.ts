/**
 * The search fast path's queries: the page and the count as plain rows, prepared as `findAll` and
 * `count` prepare them (default scope, attribute-to-column names, a paranoid model's clause) and
 * run through `sequelize.query`, without instances, option cloning, or SQLite's per-query
 * `PRAGMA table_info` (raw rows need no column types).
 */
import { DataTypes, QueryTypes, Sequelize, Utils, type FindOptions, type Model, type ModelStatic } from 'sequelize';
import type { RowShape } from '../core/row-shape.js';

/** Sequelize's model internals the preparation calls, as `findAll` does. */
interface ModelInternals {
  _injectScope(options: object): void;
  _paranoidClause(model: ModelStatic<Model>, options: object): Record<string, unknown>;
  hasHook(name: string): boolean;
  readonly queryInterface: { readonly queryGenerator: { selectQuery(table: unknown, options: object, model: ModelStatic<Model>): string } };
}

const FIND_HOOKS = ['beforeFind', 'beforeFindAfterExpandIncludeAll', 'beforeFindAfterOptions', 'afterFind'] as const;

/**
 * True when `findAll` would run hooks on this model (its own or the Sequelize instance's): the fast path then stays on `findAll`.
 * @example hasFindHooks(Product) // false
 */
export function hasFindHooks(model: ModelStatic<Model>): boolean {
  const global = (model.sequelize as unknown as { options: { hooks?: Record<string, unknown> } }).options.hooks ?? {};
  return FIND_HOOKS.some((name) => (model as unknown as ModelInternals).hasHook(name) || (global[name] !== undefined && (!Array.isArray(global[name]) || (global[name] as unknown[]).length > 0)));
}

/** The options of a raw select, prepared as `findAll` prepares its own. */
function prepare(model: ModelStatic<Model>, query: FindOptions, attributes: readonly unknown[]): Record<string, unknown> {
  const internals = model as unknown as ModelInternals;
  const options: Record<string, unknown> = { ...query, attributes: [...attributes], raw: true, type: QueryTypes.SELECT, model, tableNames: [] };
  const cls = (Sequelize as unknown as { _cls?: { get(key: string): unknown } })._cls;
  if (options['transaction'] === undefined && cls !== undefined) options['transaction'] = cls.get('transaction');
  internals._injectScope(options);
  // The scope may not add attributes to the fast path's list.
  options['attributes'] = [...attributes];
  Utils.mapFinderOptions(options as never, model);
  return internals._paranoidClause(model, options);
}

function run(model: ModelStatic<Model>, options: Record<string, unknown>): Promise<unknown> {
  const sql = (model as unknown as ModelInternals).queryInterface.queryGenerator.selectQuery(model.getTableName(), options, model);
  return model.sequelize!.query(sql, options as never);
}

/**
 * The page of a search as plain rows of the shape's attributes, converted as an instance would hold them.
 * @example const rows = await rawPage(Product, query, shape);
 */
export async function rawPage(model: ModelStatic<Model>, query: FindOptions, shape: Extract<RowShape, { path: 'raw' }>): Promise<Record<string, unknown>[]> {
  const rows = (await run(model, prepare(model, query, shape.attributes))) as Record<string, unknown>[];
  return convertRows(model, rows, shape);
}

/**
 * The number of rows a search's conditions match: `SELECT count(*)` without the page or the order.
 * @example const count = await rawCount(Product, query);
 */
export async function rawCount(model: ModelStatic<Model>, query: FindOptions): Promise<number> {
  const { order: _order, limit: _limit, offset: _offset, ...conditions } = query;
  const options = prepare(model, conditions, [[model.sequelize!.fn('count', model.sequelize!.col('*')), 'count']]);
  const row = (await run(model, { ...options, plain: true })) as { count?: unknown } | null;
  return Number(row?.count ?? 0);
}

/**
 * Rows of a find whose options already ask for plain rows of named attributes (the options
 * action's `[column, alias]` pairs), as `findAll({ raw: true })` returns them.
 * @example const rows = await rawRows(Category, { attributes: [['id', 'value'], ['name', 'label']], order: [['name', 'ASC']], raw: true });
 */
export async function rawRows(model: ModelStatic<Model>, query: FindOptions): Promise<Record<string, unknown>[]> {
  if (hasFindHooks(model) || query.include !== undefined || !Array.isArray(query.attributes)) return (await model.findAll({ ...query, raw: true })) as unknown as Record<string, unknown>[];
  return (await run(model, prepare(model, query, query.attributes))) as Record<string, unknown>[];
}

/** Sequelize's SQLite DATE parser (what it applies to an instance's date column), and each type's sanitizer. */
interface TypeParsers {
  readonly sqlite: { readonly DATE: { parse(value: string, options: { timezone: string }): Date } };
}

/**
 * Converts raw rows in place to the values a model instance holds: on SQLite a date's text is
 * parsed as Sequelize parses it; a boolean's 0/1 goes through the model's own sanitizer.
 */
function convertRows(model: ModelStatic<Model>, rows: Record<string, unknown>[], shape: Extract<RowShape, { path: 'raw' }>): Record<string, unknown>[] {
  if (shape.converted.length === 0 || rows.length === 0) return rows;
  const sanitizers = (model as unknown as { _dataTypeSanitizers: Record<string, (value: unknown, options: object) => unknown> })._dataTypeSanitizers;
  const timezone = (model.sequelize as unknown as { options: { timezone: string } }).options.timezone;
  const sqlite = model.sequelize!.getDialect() === 'sqlite';
  const parseDate = (DataTypes as unknown as TypeParsers).sqlite.DATE.parse;
  const steps = shape.converted.map(({ attribute, kind }) => {
    const sanitize = sanitizers[attribute];
    const parse = kind === 'date' && sqlite ? (value: unknown) => parseDate(value as string, { timezone }) : (value: unknown) => value;
    return { attribute, convert: (value: unknown) => (value === null || value === undefined ? value : sanitize === undefined ? parse(value) : sanitize(parse(value), { raw: true })) };
  });
  for (const row of rows) for (const { attribute, convert } of steps) row[attribute] = convert(row[attribute]);
  return rows;
}

/**
 * PostgreSQL's planner estimate of the rows a search's conditions match (`EXPLAIN (FORMAT JSON)`
 * of the select without page and order); undefined on other databases.
 * @example await estimateCount(Product, query) // 1000412
 */
export async function estimateCount(model: ModelStatic<Model>, query: FindOptions): Promise<number | undefined> {
  if (model.sequelize!.getDialect() !== 'postgres') return undefined;
  const { order: _order, limit: _limit, offset: _offset, ...conditions } = query;
  const options = prepare(model, conditions, [[model.sequelize!.literal('1'), 'one']]);
  const sql = (model as unknown as ModelInternals).queryInterface.queryGenerator.selectQuery(model.getTableName(), options, model);
  const rows = (await model.sequelize!.query(`EXPLAIN (FORMAT JSON) ${sql}`, { type: QueryTypes.SELECT, raw: true, transaction: options['transaction'] } as never)) as unknown as { 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }[];
  const rowsEstimate = rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'];
  return typeof rowsEstimate === 'number' ? Math.round(rowsEstimate) : undefined;
}
