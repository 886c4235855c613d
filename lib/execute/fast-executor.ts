/**
 * The fast executor: a search's page and count, and options' rows, prepared as `findAll` and
 * `count` prepare them (through private-sequelize.ts) and run as plain rows, on the driver
 * connection where nothing could tell the difference (driver-connection.ts), else through
 * `sequelize.query` with every option it honours (transaction, useMaster, logging, hooks…).
 */
import {
  QueryTypes,
  Sequelize as SequelizeClass,
  type FindOptions,
  type Model,
  type ModelStatic,
  type Sequelize,
  type Transaction,
} from 'sequelize';
import { inOneState } from './consistent.js';
import {
  driverRefusal,
  driverSelect,
  driverSelects,
  optionsRefusal,
  type DriverStatement,
} from './driver-connection.js';
import type { Capture, Executor, PreparedSelect, RawShape } from './executor.js';
import { privateSequelize } from './private-sequelize.js';
import { FRAGMENT_LIMIT, stateOf } from './state.js';

/**
 * Options `selectQuery` reads that the direct assembly below does not: any of them (from a hook,
 * a plugin or a default scope), or `minifyAliases`, sends the select through `selectQuery`.
 */
const SELECT_QUERY_ONLY = [
  'include',
  'group',
  'having',
  'lock',
  'indexHints',
  'groupedLimit',
  'subQuery',
  'tableAs',
  'tableHint',
] as const;

/** A fragment of the model's SQL, from its Sequelize instance's cache or made (and kept while there is room). */
function cached(model: ModelStatic<Model>, key: string, make: () => string): string {
  const { fragments } = stateOf(model.sequelize!);
  let cache = fragments.get(model);
  if (cache === undefined) fragments.set(model, (cache = new Map<string, string>()));
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const made = make();
  if (cache.size < FRAGMENT_LIMIT) cache.set(key, made);
  return made;
}

/** The order's cache key when every item is `[attribute, direction]` of two strings, as compileSearch writes. */
function orderKey(order: unknown): string | undefined {
  if (!Array.isArray(order)) return undefined;
  const parts: string[] = [];
  for (const item of order) {
    if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== 'string' || typeof item[1] !== 'string')
      return undefined;
    parts.push(`${item[0]}\u0000${item[1]}`);
  }
  return parts.join('\u0001');
}

/** One search's select, prepared once for its page and its count. */
interface FastSelect {
  readonly model: ModelStatic<Model>;
  /** The prepared options of the page (attributes: the row shape's). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The cache key of the page's attribute list. */
  readonly attributesKey: string;
  /** The compiled WHERE (without the keyword; '' for none), or undefined when the select goes through `selectQuery`. */
  readonly where: string | undefined;
  /** True when the page and the count run on the driver connection, else through `sequelize.query`. */
  readonly driver: boolean;
  /** `optionsRefusal(options)`, which `again` asks `driverRefusal` on every request. */
  readonly ownRefusal: string | undefined;
  /** What `kept` made for every request that reuses the select, shared by `again`. */
  readonly made: Made;
}

/**
 * What a select makes once (only when `where` is compiled): the SQL of the page, of the count and of both, their
 * statements for `driverSelects`, and the select again on the driver connection and through `sequelize.query`.
 */
interface Made {
  page?: string;
  count?: string;
  both?: string;
  statements?: readonly [DriverStatement, DriverStatement];
  onDriver?: PreparedSelect;
  onSequelize?: PreparedSelect;
}

/**
 * Prepares a search's select once, for its page and count; `driver: false` keeps both on
 * `sequelize.query` even where the driver connection could serve them. `captures` are selected after the shape's
 * attributes, as `[literal, alias]` attributes (the cache key of the SELECT head names their SQL).
 */
function prepareSelect(
  model: ModelStatic<Model>,
  query: FindOptions,
  shape: RawShape,
  driver: boolean,
  captures: readonly Capture[] = [],
): FastSelect {
  const selected = [...shape.attributes, ...captures.map(({ sql, as }) => [SequelizeClass.literal(sql), as])];
  const options = privateSequelize.prepareFind(model, query, selected);
  const generator = privateSequelize.generator(model);
  const direct =
    generator.options.minifyAliases !== true && !SELECT_QUERY_ONLY.some((key) => options[key] !== undefined);
  const as = generator.quoteIdentifier(model.name);
  const where = !direct
    ? undefined
    : Object.hasOwn(options, 'where')
      ? generator.getWhereConditions(options['where'], as, model, options)
      : '';
  const ownRefusal = optionsRefusal(options);
  const onDriver = driver && driverRefusal(model.sequelize!, options, ownRefusal) === undefined;
  const attributesKey =
    shape.attributes.join('\u0000') + captures.map(({ sql, as }) => `\u0004${sql}\u0005${as}`).join('');
  return { model, options, attributesKey, where, driver: onDriver, ownRefusal, made: {} };
}

/** Runs a select's SQL on the driver connection or through `sequelize.query`. */
function run(
  sequelize: Sequelize,
  sql: string,
  options: Readonly<Record<string, unknown>>,
  driver: boolean,
): Promise<unknown> {
  return driver ? driverSelect(sequelize, sql, options) : sequelize.query(sql, options);
}

/**
 * The SQL of a prepared select: assembled from the cached head and order and the compiled WHERE,
 * the same text `selectQuery` gives for these options; through `selectQuery` when `where` is undefined.
 */
function selectSql(select: FastSelect, options: Record<string, unknown>, headKey: string): string {
  const { model, where } = select;
  const generator = privateSequelize.generator(model);
  if (where === undefined) return generator.selectQuery(model.getTableName(), { ...options }, model);
  const as = generator.quoteIdentifier(model.name);
  const attributes = options['attributes'];
  const head = cached(model, `h${headKey}`, () => {
    const escaped = generator.escapeAttributes(Array.isArray(attributes) ? attributes.slice() : [], options, as);
    return generator.selectFromTableFragment(options, model, escaped, generator.quoteTable(model.getTableName()), as);
  });
  let sql = where === '' ? head : `${head} WHERE ${where}`;
  const order = options['order'];
  if (Array.isArray(order) && order.length > 0) {
    const key = orderKey(order);
    const copy = {
      ...options,
      order: order.map((item: unknown) => (Array.isArray(item) ? [...(item as unknown[])] : item)),
    };
    const orders = () => generator.getQueryOrders(copy, model, false).mainQueryOrder.join(', ');
    const text = key === undefined ? orders() : cached(model, `o${headKey}\u0002${key}`, orders);
    if (text !== '') sql += ` ORDER BY ${text}`;
  }
  return `${sql}${generator.addLimitAndOffset(options, model)};`;
}

/** The SQL and the options of a select's page. */
function pageQuery(select: FastSelect): { sql: string; options: Record<string, unknown> } {
  const options = { ...select.options };
  return { sql: kept(select, 'page', () => selectSql(select, options, select.attributesKey)), options };
}

/**
 * One of what a select makes (`Made`), made once: from kept strings and options that are only read, it is the same
 * every time. Through `selectQuery` (no compiled WHERE) it is made again for each request.
 * @example const sql = kept(select, 'page', () => selectSql(select, options, select.attributesKey));
 */
function kept<K extends keyof Made>(
  select: FastSelect,
  which: K,
  make: () => NonNullable<Made[K]>,
): NonNullable<Made[K]> {
  if (select.where === undefined) return make();
  return (select.made[which] ??= make());
}

async function page(select: FastSelect, shape: RawShape): Promise<Record<string, unknown>[]> {
  const { sql, options } = pageQuery(select);
  const rows = (await run(select.model.sequelize!, sql, options, select.driver)) as Record<string, unknown>[];
  return convertRows(select.model, rows, shape);
}

/**
 * The number of rows a search's conditions match: `SELECT count(*)` without the page or the order
 * (as `Model.count` leaves out a default scope's), on the same WHERE as the page.
 */
async function count(select: FastSelect): Promise<number> {
  const { sql, options } = countQuery(select);
  return countOf(await run(select.model.sequelize!, sql, options, select.driver));
}

/** The SQL and the options of a select's count. */
function countQuery(select: FastSelect): { sql: string; options: Record<string, unknown> } {
  const sequelize = select.model.sequelize!;
  const counted = [[sequelize.fn('count', sequelize.col('*')), 'count']];
  const options: Record<string, unknown> = {
    ...select.options,
    attributes: counted,
    order: undefined,
    limit: undefined,
    offset: undefined,
    plain: true,
  };
  return { sql: kept(select, 'count', () => selectSql(select, options, '\u0003count')), options };
}

/** The number in a count's row (plain: the row or null). */
function countOf(row: unknown): number {
  return Number((row as { count?: unknown } | null)?.count ?? 0);
}

/** The column the count takes in SQLite's one-statement page and count (`combinedQuery`). */
const COUNT_COLUMN = 'fast_crud_count';

/**
 * SQLite: the page and its count as one statement, which reads one state of the file:
 * `SELECT p.*, (count) AS fast_crud_count FROM (page) AS p` (SQLite runs the uncorrelated count once; measured as fast
 * as the two statements, where a `LEFT JOIN` of the two took half as long again). Undefined when the select goes
 * through `selectQuery` or a page column takes the count's name: then `inOneState` keeps the two on one state.
 */
function combinedQuery(
  select: FastSelect,
  shape: RawShape,
): { sql: string; options: Record<string, unknown> } | undefined {
  if (select.where === undefined || shape.attributes.includes(COUNT_COLUMN)) return undefined;
  const generator = privateSequelize.generator(select.model);
  const sql = kept(select, 'both', () => {
    const [pageSql, countSql] = [pageQuery(select).sql, countQuery(select).sql].map((text) => text.replace(/;$/, ''));
    const p = generator.quoteIdentifier('p');
    // The count last: deleting a row's last property keeps V8's fast shape for it.
    return `SELECT ${p}.*, (${countSql}) AS ${generator.quoteIdentifier(COUNT_COLUMN)} FROM (${pageSql}) AS ${p};`;
  });
  return { sql, options: pageQuery(select).options };
}

/** The page rows and the count of `combinedQuery`'s rows; undefined for an empty page, which carries no count. */
function splitCombined(rows: Record<string, unknown>[]): [Record<string, unknown>[], number] | undefined {
  if (rows.length === 0) return undefined;
  const total = Number(rows[0]![COUNT_COLUMN] ?? 0);
  for (const row of rows) delete row[COUNT_COLUMN];
  return [rows, total];
}

/**
 * The page and the count, read from one state of the database (issue 21): on the driver connection in one round trip
 * (`driverSelects`: PostgreSQL one REPEATABLE READ READ ONLY transaction in one query string, MariaDB one consistent
 * snapshot on one connection), SQLite as one statement (`combinedQuery`, unless the page is empty); else one
 * after the other in `inOneState`'s transaction, or SQLite's unchanged data version.
 */
async function pageAndCount(select: FastSelect, shape: RawShape): Promise<[Record<string, unknown>[], number]> {
  const sequelize = select.model.sequelize!;
  const dialect = sequelize.getDialect();
  const combined = dialect === 'sqlite' ? combinedQuery(select, shape) : undefined;
  if (combined !== undefined) {
    const rows = (await run(sequelize, combined.sql, combined.options, select.driver)) as Record<string, unknown>[];
    const split = splitCombined(rows);
    // An empty page says nothing of the count: both are read again below, on one state.
    if (split !== undefined) return [convertRows(select.model, split[0], shape), split[1]];
  }
  if (select.driver && dialect !== 'sqlite') {
    // Their options are only read (`sequelize.query` copies them), so one pair serves every request.
    const statements = kept(select, 'statements', () => [pageQuery(select), countQuery(select)] as const);
    const text = kept(select, 'both', () => statements.map(({ sql }) => sql).join(' '));
    const [rows, counted] = await driverSelects(sequelize, statements, text);
    return [convertRows(select.model, rows as Record<string, unknown>[], shape), countOf(counted)];
  }
  const { options } = select;
  return inOneState(
    sequelize,
    options['useMaster'] === true,
    options['transaction'] as Transaction,
    async (placement) => {
      const within =
        placement.transaction === undefined
          ? select
          : { ...select, driver: false, options: { ...options, ...placement } };
      const rows = await page(within, shape);
      return [rows, await count(within)];
    },
  );
}

/** A fast select as the port's `PreparedSelect`. */
function prepared(select: FastSelect, shape: RawShape): PreparedSelect {
  return {
    path: select.driver ? 'driver' : 'fast',
    reusable: select.where !== undefined,
    page: () => page(select, shape),
    count: () => count(select),
    pageAndCount: () => pageAndCount(select, shape),
    again: (driver) => {
      // Asked on every request: an instance's options and query hooks may change while it serves.
      const onDriver =
        driver && driverRefusal(select.model.sequelize!, select.options, select.ownRefusal) === undefined;
      return kept(select, onDriver ? 'onDriver' : 'onSequelize', () =>
        prepared({ ...select, driver: onDriver }, shape),
      );
    },
  };
}

/**
 * Converts raw rows in place to the values a model instance holds: on SQLite a date's text is
 * parsed as Sequelize parses it; a boolean's 0/1 goes through the model's own sanitizer.
 */
export function convertRows(
  model: ModelStatic<Model>,
  rows: Record<string, unknown>[],
  shape: RawShape,
): Record<string, unknown>[] {
  if (shape.converted.length === 0 || rows.length === 0) return rows;
  const sanitizers = privateSequelize.sanitizers(model);
  const timezone = privateSequelize.options(model.sequelize!).timezone ?? '+00:00';
  const sqlite = model.sequelize!.getDialect() === 'sqlite';
  const steps = shape.converted.map(({ attribute, kind }) => {
    const sanitize = sanitizers[attribute];
    const parse =
      kind === 'date' && sqlite
        ? (value: unknown) => privateSequelize.parseSqliteDate(String(value), timezone)
        : (value: unknown) => value;
    const convert = (value: unknown) =>
      value === null || value === undefined
        ? value
        : sanitize === undefined
          ? parse(value)
          : sanitize(parse(value), { raw: true });
    return { attribute, convert };
  });
  for (const row of rows) for (const { attribute, convert } of steps) row[attribute] = convert(row[attribute]);
  return rows;
}

/**
 * For the probe (executor.ts): the SQL the fast executor sends for a search's page, and its rows.
 * @example const { sql, rows } = await probePage(Product, { limit: 1 }, shape);
 */
export async function probePage(
  model: ModelStatic<Model>,
  query: FindOptions,
  shape: RawShape,
): Promise<{ sql: string; rows: Record<string, unknown>[] }> {
  const select = prepareSelect(model, query, shape, true);
  return { sql: pageQuery(select).sql, rows: await page(select, shape) };
}

/**
 * For the probe (executor.ts): the fast executor's count of the rows a query's conditions match.
 * @example await probeCount(Product, { where: { id: 1 } }, shape) // 1
 */
export function probeCount(model: ModelStatic<Model>, query: FindOptions, shape: RawShape): Promise<number> {
  return count(prepareSelect(model, query, shape, true));
}

/** The fast executor. */
export const fastExecutor: Executor = {
  name: 'fast',

  select: (model, query, shape, driver, captures) =>
    prepared(prepareSelect(model, query, shape, driver, captures), shape),

  queriesAsPlanned: (model) => privateSequelize.queriesAsPlanned(model),

  async rows(model, query, driver) {
    if (query.include !== undefined || !Array.isArray(query.attributes))
      return (await model.findAll({ ...query, raw: true })) as object[] as Record<string, unknown>[];
    const options = privateSequelize.prepareFind(model, query, query.attributes);
    const sql = privateSequelize.generator(model).selectQuery(model.getTableName(), options, model);
    const sequelize = model.sequelize!;
    return (await run(sequelize, sql, options, driver && driverRefusal(sequelize, options) === undefined)) as Record<
      string,
      unknown
    >[];
  },

  async sql(sequelize, sql, driver) {
    const options = { raw: true, type: QueryTypes.SELECT };
    return (await run(sequelize, sql, options, driver && driverRefusal(sequelize, options) === undefined)) as Record<
      string,
      unknown
    >[];
  },

  /** PostgreSQL's planner estimate (`EXPLAIN (FORMAT JSON)` of the select without page and order), else undefined. */
  async estimate(model, query) {
    const sequelize = model.sequelize!;
    if (sequelize.getDialect() !== 'postgres') return undefined;
    const { order: _order, limit: _limit, offset: _offset, ...conditions } = query;
    const options = privateSequelize.prepareFind(model, conditions, [[sequelize.literal('1'), 'one']]);
    const sql = privateSequelize.generator(model).selectQuery(model.getTableName(), options, model);
    const explained = {
      type: QueryTypes.SELECT,
      raw: true,
      transaction: options['transaction'],
      useMaster: options['useMaster'],
    };
    const rows = (await sequelize.query(`EXPLAIN (FORMAT JSON) ${sql}`, explained as never)) as {
      'QUERY PLAN'?: { Plan?: { 'Plan Rows'?: unknown } }[];
    }[];
    const estimate = rows[0]?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'];
    return typeof estimate === 'number' ? Math.round(estimate) : undefined;
  },
};
