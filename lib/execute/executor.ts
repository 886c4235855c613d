/**
 * The executor port: what the search and options actions call to run a compiled select, its count,
 * options' rows and PostgreSQL's estimate. Two implementations: the public one (Sequelize's public
 * API only, public-executor.ts) and the fast one (fast-executor.ts, on private members kept in
 * private-sequelize.ts). Each model gets the fast one only after a probe, at its first request,
 * found every member there and both executors giving the same SQL and rows for it.
 */
import type { FindOptions, Model, ModelStatic, Sequelize } from 'sequelize';
import { planRowShape, RAW_KINDS, type RowShape } from '../core/row-shape.js';
import { kindOf } from '../core/attribute-kinds.js';
import { fastExecutor, probeCount, probePage } from './fast-executor.js';
import { missingMembers } from './private-sequelize.js';
import { publicExecutor } from './public-executor.js';
import { stateOf, type SearchPath } from './state.js';

/** The row shape of a search read as plain rows. */
export type RawShape = Extract<RowShape, { path: 'raw' }>;

/**
 * A SQL expression a select reads besides the shape's attributes, under an alias: a cursor page's keyset values
 * (`CAST("Item"."price" AS TEXT) AS __keyset_0`). The page's rows hold it as the driver gives it, unconverted.
 */
export interface Capture {
  readonly sql: string;
  readonly as: string;
}

/** One search's select, prepared once for its page and its count. */
export interface PreparedSelect {
  /** The way it reads. */
  readonly path: Exclude<SearchPath, 'instance'>;
  /** True when a later request with the same plan may run it again (its SQL was assembled from kept strings). */
  readonly reusable: boolean;
  /** The page: plain rows of the shape's attributes, with the values an instance holds. */
  page(): Promise<Record<string, unknown>[]>;
  /** The number of rows its conditions match. */
  count(): Promise<number>;
  /** `page()` and `count()` together, which the fast executor sends in one round trip where it can. */
  pageAndCount(): Promise<[Record<string, unknown>[], number]>;
  /** The same select for a later request, on the driver connection when `driver` and the instance allows it now. */
  again(driver: boolean): PreparedSelect;
}

/** The port. */
export interface Executor {
  readonly name: 'public' | 'fast';
  /**
   * Prepares a search's select; `driver: false` keeps the fast executor off the driver connection. `captures` are
   * selected after the shape's attributes (a cursor page's keyset values).
   */
  select(
    model: ModelStatic<Model>,
    query: FindOptions,
    shape: RawShape,
    driver: boolean,
    captures?: readonly Capture[],
  ): PreparedSelect;
  /** True when the model's queries are what the plan says: a prepared select may be kept (search.ts `preparedKey`). */
  queriesAsPlanned(model: ModelStatic<Model>): boolean;
  /** Plain rows of a find (options' `[column, alias]` attributes), as `findAll({ raw: true })` returns them. */
  rows(model: ModelStatic<Model>, query: FindOptions, driver: boolean): Promise<Record<string, unknown>[]>;
  /** The rows of a SELECT written whole. */
  sql(sequelize: Sequelize, sql: string, driver: boolean): Promise<Record<string, unknown>[]>;
  /** PostgreSQL's planner estimate of the rows a query's conditions match; undefined when there is none. */
  estimate(model: ModelStatic<Model>, query: FindOptions): Promise<number | undefined>;
}

/** An executor for one request, and whether the fast one may use the driver connection. */
export interface Chosen {
  readonly executor: Executor;
  readonly driver: boolean;
  /** What a test forced through the observer, if anything. */
  readonly forced: 'instance' | 'public' | 'fast' | undefined;
}

/**
 * The executor a request on `model` runs with: the one the model's probe chose (the probe runs at
 * the model's first request, once), unless a test's observer forces one.
 * @example const { executor, driver } = await executorFor(Product, ctx);
 */
export async function executorFor(model: ModelStatic<Model>, ctx: object): Promise<Chosen> {
  const decided = decidedExecutor(model, ctx);
  if (decided !== undefined) return decided;
  const state = stateOf(model.sequelize!);
  const forced = state.observer?.force?.(ctx);
  const choice = state.executors.get(model);
  let pending = choice !== undefined && 'pending' in choice ? choice.pending : undefined;
  if (pending === undefined) {
    // An unexpected failure of the probe itself decides nothing: this request reads through the public executor.
    pending = probe(model).catch(() => {
      state.executors.delete(model);
      return publicExecutor;
    });
    state.executors.set(model, { pending });
  }
  return { executor: await pending, driver: true, forced };
}

/**
 * `executorFor`'s answer when it is known without waiting (the model's probe is over, or a test forced an executor);
 * undefined while the probe has not run or runs. Lets a request's hot path do without an `await`.
 * @example const chosen = decidedExecutor(Product, ctx) ?? (await executorFor(Product, ctx));
 */
export function decidedExecutor(model: ModelStatic<Model>, ctx: object): Chosen | undefined {
  const state = stateOf(model.sequelize!);
  const forced = state.observer?.force?.(ctx);
  if (forced === 'public') return { executor: publicExecutor, driver: false, forced };
  if (forced === 'fast') return { executor: fastExecutor, driver: false, forced };
  const choice = state.executors.get(model);
  return choice !== undefined && 'done' in choice ? { executor: choice.done, driver: true, forced } : undefined;
}

/**
 * Probes the fast executor for a model: every private member there, and a `LIMIT 1` select of the
 * model's plain attributes giving the same SQL, rows and count through both executors. A failure
 * keeps the model on the public executor and says so once; a probe whose queries both fail (the
 * table is not there yet) decides nothing, and the next request probes again.
 */
async function probe(model: ModelStatic<Model>): Promise<Executor> {
  const state = stateOf(model.sequelize!);
  const settle = (executor: Executor) => {
    state.executors.set(model, { done: executor });
    return executor;
  };
  const missing = missingMembers(model);
  if (missing.length > 0) return settle(fallBack(model, `this Sequelize has no ${missing.join(', ')}`));
  let reason: string | undefined;
  try {
    reason = await compare(model);
  } catch {
    state.executors.delete(model);
    return publicExecutor;
  }
  return settle(reason === undefined ? fastExecutor : fallBack(model, reason));
}

/**
 * Why the two executors differ on the model's first row, or undefined when they agree; throws
 * when neither can read the table.
 */
async function compare(model: ModelStatic<Model>): Promise<string | undefined> {
  const shape = probeShape(model);
  const order = model.primaryKeyAttributes.map((name) => [name, 'ASC'] as [string, string]);
  const query: FindOptions = { limit: 1, ...(order.length > 0 && { order }), logging: false };
  let logged = '';
  const [fast, rows] = await Promise.allSettled([
    probePage(model, query, shape),
    publicExecutor.select(model, { ...query, logging: (sql: string) => (logged = sql) }, shape, false).page(),
  ]);
  if (fast.status === 'rejected' && rows.status === 'rejected') throw fast.reason;
  if (fast.status === 'rejected') return `its select failed (${String(fast.reason)})`;
  if (rows.status === 'rejected') return 'the public select failed where the fast one did not';
  const sql = logged.replace(/^Executing \([^)]*\): /, '');
  if (sql !== fast.value.sql) return `its SQL differs from findAll's: ${fast.value.sql} against ${sql}`;
  if (JSON.stringify(fast.value.rows) !== JSON.stringify(rows.value)) return "its rows differ from findAll's";
  // The count of the first row by its key, not of the table: that could take long on a big one.
  const [key] = model.primaryKeyAttributes;
  const first = rows.value[0];
  if (key === undefined || first === undefined || model.primaryKeyAttributes.length > 1) return undefined;
  const where = { [key]: first[key] };
  const [fastCount, count] = await Promise.all([
    probeCount(model, { where, logging: false }, shape),
    model.count({ where, logging: false }),
  ]);
  return fastCount === count ? undefined : `its count differs from Model.count's: ${fastCount} against ${count}`;
}

/** The probe's row shape: the model's attributes that raw rows can give as an instance holds them. */
function probeShape(model: ModelStatic<Model>): RawShape {
  const attributes = model.getAttributes();
  const plain = Object.keys(attributes).filter((name) => {
    const definition = attributes[name]!;
    return (
      definition.get === undefined &&
      (definition.type as { key?: string }).key !== 'VIRTUAL' &&
      RAW_KINDS.has(kindOf(definition))
    );
  });
  const source = { getAttributes: () => Object.fromEntries(plain.map((name) => [name, attributes[name]!])) };
  const shape = planRowShape(source, new Set(plain), model.sequelize!.getDialect(), 'toJSON', false);
  return shape.path === 'raw' ? shape : { path: 'raw', attributes: model.primaryKeyAttributes, converted: [] };
}

/** The public executor, with one log line saying why, and the observer told. */
function fallBack(model: ModelStatic<Model>, reason: string): Executor {
  const state = stateOf(model.sequelize!);
  console.warn(
    `koa-fast-crud: ${model.name} reads through Sequelize's public API: the fast executor's probe failed: ${reason}`,
  );
  state.observer?.fellBack?.(model, reason);
  return publicExecutor;
}
