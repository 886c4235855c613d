/**
 * The search fast path's queries: the page and the count as plain rows, prepared as `findAll` and
 * `count` prepare them (default scope, attribute-to-column names, a paranoid model's clause) and
 * run through `sequelize.query`, without instances, option cloning, or SQLite's per-query
 * `PRAGMA table_info` (raw rows need no column types).
 */
import { DataTypes, QueryTypes, Sequelize, Utils, type FindOptions, type Model, type ModelStatic } from 'sequelize';
import type { RowShape } from '../core/row-shape.js';
import { driverEligible, driverSelect } from './driver-select.js';

/** Sequelize's model internals the preparation calls, as `findAll` does. */
interface ModelInternals {
  _injectScope(options: object): void;
  _paranoidClause(model: ModelStatic<Model>, options: object): Record<string, unknown>;
  hasHook(name: string): boolean;
  readonly queryInterface: { readonly queryGenerator: QueryGenerator };
}

/** The parts of Sequelize's query generator a SELECT is assembled from (`selectQuery` calls the same ones). */
interface QueryGenerator {
  readonly options: { readonly minifyAliases?: boolean };
  selectQuery(table: unknown, options: object, model: ModelStatic<Model>): string;
  quoteIdentifier(name: string): string;
  quoteTable(table: unknown): string;
  escapeAttributes(attributes: unknown[], options: object, as: string): string[];
  selectFromTableFragment(options: object, model: ModelStatic<Model>, attributes: string[], table: string, as: string): string;
  getWhereConditions(where: unknown, as: string, model: ModelStatic<Model>, options: object): string;
  getQueryOrders(options: object, model: ModelStatic<Model>, subQuery: boolean): { mainQueryOrder: string[] };
  addLimitAndOffset(options: object, model: ModelStatic<Model>): string;
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

/**
 * Options `selectQuery` reads that the direct assembly below does not: any of them (from a hook,
 * a plugin or a default scope), or `minifyAliases`, sends the select through `selectQuery`.
 */
const SELECT_QUERY_ONLY = ['include', 'group', 'having', 'lock', 'indexHints', 'groupedLimit', 'subQuery', 'tableAs', 'tableHint'] as const;

/** Most distinct cached heads and orders per model; past it they are assembled on every request, never evicted. */
const CACHE_LIMIT = 256;

/** Per model: the `SELECT … FROM … AS …` of each attribute list, and the ORDER BY of each attribute list and order. */
const fragments = new WeakMap<ModelStatic<Model>, Map<string, string>>();

function cached(model: ModelStatic<Model>, key: string, make: () => string): string {
  let cache = fragments.get(model);
  if (cache === undefined) fragments.set(model, (cache = new Map()));
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const made = make();
  if (cache.size < CACHE_LIMIT) cache.set(key, made);
  return made;
}

/** The order's cache key when every item is `[attribute, direction]` of two strings (what compileSearch writes); else undefined. */
function orderKey(order: unknown): string | undefined {
  if (!Array.isArray(order)) return undefined;
  const parts: string[] = [];
  for (const item of order) {
    if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== 'string' || typeof item[1] !== 'string') return undefined;
    parts.push(`${item[0]}\u0000${item[1]}`);
  }
  return parts.join('\u0001');
}

/**
 * One search's select, prepared once for its page and its count: the options as `findAll`
 * prepares them, and, when nothing in them needs `selectQuery`, the WHERE compiled once.
 */
export interface RawSelect {
  readonly model: ModelStatic<Model>;
  /** The prepared options of the page (attributes: the row shape's). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The cache key of the page's attribute list. */
  readonly attributesKey: string;
  /** The compiled WHERE (without the keyword; '' for none), or undefined when the select goes through `selectQuery`. */
  readonly where: string | undefined;
  /** True when the page and the count run on the driver connection (`driverSelect`), else through `sequelize.query`. */
  readonly driver: boolean;
}

/**
 * Prepares a search's select once, for `rawPage` and `rawCount`; `driver: false` keeps both on
 * `sequelize.query` even where the driver connection could serve them (the tests compare the two).
 * @example const select = rawSelect(Product, query, shape); await Promise.all([rawPage(select), rawCount(select)]);
 */
export function rawSelect(model: ModelStatic<Model>, query: FindOptions, shape: Extract<RowShape, { path: 'raw' }>, { driver = true }: { readonly driver?: boolean } = {}): RawSelect {
  const options = prepare(model, query, shape.attributes);
  const generator = (model as unknown as ModelInternals).queryInterface.queryGenerator;
  const direct = generator.options.minifyAliases !== true && !SELECT_QUERY_ONLY.some((key) => options[key] !== undefined);
  const where = !direct ? undefined : Object.prototype.hasOwnProperty.call(options, 'where') ? generator.getWhereConditions(options['where'], generator.quoteIdentifier(model.name), model, options) : '';
  return { model, options, attributesKey: shape.attributes.join('\u0000'), where, driver: driver && driverEligible(model.sequelize!, options) };
}

/**
 * A select prepared for an earlier request, for this one: on the driver connection when `driver`
 * is asked and the Sequelize instance allows it now (its logging or hooks may have changed since).
 * @example const select = redrive(kept, true);
 */
export function redrive(select: RawSelect, driver: boolean): RawSelect {
  return { ...select, driver: driver && driverEligible(select.model.sequelize!, select.options) };
}

/**
 * True when `findAll` adds nothing to a query's options that could differ from one request to
 * the next: no CLS namespace (its transaction) and no default scope on the model.
 * @example queriesAsPlanned(Product) // true
 */
export function queriesAsPlanned(model: ModelStatic<Model>): boolean {
  const scope = (model as unknown as { _scope?: object })._scope;
  return (Sequelize as unknown as { _cls?: unknown })._cls === undefined && (scope === undefined || Object.keys(scope).length === 0);
}

/** Runs a select's SQL on the driver connection (`driverSelect`) or through `sequelize.query`. */
function run(sequelize: Sequelize, sql: string, options: Readonly<Record<string, unknown>>, driver: boolean): Promise<unknown> {
  return driver ? driverSelect(sequelize, sql, options) : sequelize.query(sql, options as never);
}

/**
 * The SQL of a prepared select: assembled from the cached head and order and the compiled WHERE,
 * the same text `selectQuery` gives for these options; through `selectQuery` when `where` is undefined.
 */
function selectSql(select: RawSelect, options: Record<string, unknown>, headKey: string): string {
  const { model, where } = select;
  const generator = (model as unknown as ModelInternals).queryInterface.queryGenerator;
  if (where === undefined) return generator.selectQuery(model.getTableName(), { ...options }, model);
  const as = generator.quoteIdentifier(model.name);
  const head = cached(model, `h${headKey}`, () =>
    generator.selectFromTableFragment(options, model, generator.escapeAttributes((options['attributes'] as unknown[]).slice(), options, as), generator.quoteTable(model.getTableName()), as),
  );
  let sql = where === '' ? head : `${head} WHERE ${where}`;
  if (options['order']) {
    const key = orderKey(options['order']);
    const orders = () => generator.getQueryOrders({ ...options, order: (options['order'] as unknown[]).map((item) => (Array.isArray(item) ? [...item] : item)) }, model, false).mainQueryOrder.join(', ');
    const order = key === undefined ? orders() : cached(model, `o${headKey}\u0002${key}`, orders);
    if (order !== '') sql += ` ORDER BY ${order}`;
  }
  return `${sql}${generator.addLimitAndOffset(options, model)};`;
}

/**
 * The page of a search as plain rows of the shape's attributes, converted as an instance would hold them.
 * @example const rows = await rawPage(rawSelect(Product, query, shape), shape);
 */
export async function rawPage(select: RawSelect, shape: Extract<RowShape, { path: 'raw' }>): Promise<Record<string, unknown>[]> {
  const options = { ...select.options };
  const rows = (await run(select.model.sequelize!, selectSql(select, options, select.attributesKey), options, select.driver)) as Record<string, unknown>[];
  return convertRows(select.model, rows, shape);
}

/**
 * The number of rows a search's conditions match: `SELECT count(*)` without the page or the order
 * (as `Model.count` leaves out a default scope's), on the same WHERE as the page.
 * @example const count = await rawCount(rawSelect(Product, query, shape));
 */
export async function rawCount(select: RawSelect): Promise<number> {
  const { model } = select;
  const sequelize = model.sequelize!;
  const options: Record<string, unknown> = { ...select.options, attributes: [[sequelize.fn('count', sequelize.col('*')), 'count']], order: undefined, limit: undefined, offset: undefined, plain: true };
  const row = (await run(sequelize, selectSql(select, options, '\u0003count'), options, select.driver)) as { count?: unknown } | null;
  return Number(row?.count ?? 0);
}

/**
 * Rows of a find whose options already ask for plain rows of named attributes (the options
 * action's `[column, alias]` pairs), as `findAll({ raw: true })` returns them.
 * @example const rows = await rawRows(Category, { attributes: [['id', 'value'], ['name', 'label']], order: [['name', 'ASC']], raw: true });
 */
export async function rawRows(model: ModelStatic<Model>, query: FindOptions): Promise<Record<string, unknown>[]> {
  if (hasFindHooks(model) || query.include !== undefined || !Array.isArray(query.attributes)) return (await model.findAll({ ...query, raw: true })) as unknown as Record<string, unknown>[];
  const options = prepare(model, query, query.attributes);
  const sql = (model as unknown as ModelInternals).queryInterface.queryGenerator.selectQuery(model.getTableName(), options, model);
  const sequelize = model.sequelize!;
  return (await run(sequelize, sql, options, driverEligible(sequelize, options))) as Record<string, unknown>[];
}

/**
 * The rows of a SELECT the caller wrote whole (no model options to prepare), on the driver
 * connection where it may serve it, else through `sequelize.query`.
 * @example const [row] = await rawSql(sequelize, 'SELECT max(rowid) AS "top" FROM "products";');
 */
export async function rawSql(sequelize: Sequelize, sql: string): Promise<Record<string, unknown>[]> {
  const options = { raw: true, type: QueryTypes.SELECT };
  return (await run(sequelize, sql, options, driverEligible(sequelize, options))) as Record<string, unknown>[];
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
