/**
 * What the library keeps between requests, owned by the app's Sequelize instance: one object per
 * instance (a WeakMap keyed by it, so it goes with it), never a cache at module level that every
 * app in the process shares. Per instance because everything kept is about the database that
 * instance talks to: SQL its query generator wrote, its tables' columns, the probe of its version.
 */
import type { FindOptions, Model, ModelStatic, Sequelize } from 'sequelize';
import type { ExportRead } from '../core/export-read.js';
import type { SearchPlan } from '../types.js';
import type { Executor, PreparedSelect } from './executor.js';
import type { QueryTypes } from './pg-parsers.js';

/**
 * The way a search read its rows: model instances, or raw rows through the public executor, the
 * fast one, or the fast one on the driver connection.
 */
export type SearchPath = 'instance' | 'public' | 'fast' | 'driver';

/**
 * How create many wrote its records: one INSERT … RETURNING of its own, `bulkCreate`, or one INSERT per item (a model
 * with instance hooks, or after the database refused one of the others).
 */
export type CreateManyPath = 'statement' | 'instances' | 'one by one';

/**
 * A test's or a diagnostic tool's view of the executors, passed to `observeExecution`. The library
 * writes and reads nothing of its own in `ctx.state`: what a test needs to see or steer goes through here.
 */
export interface ExecutionObserver {
  /**
   * The path this request's search and options read by: `'instance'` (search only), `'public'`, or
   * `'fast'` (the fast executor, never on the driver connection); undefined leaves the choice to the library.
   */
  readonly force?: (ctx: object) => 'instance' | 'public' | 'fast' | undefined;
  /** Told once per search: the path it took and whether it reused the plan of an earlier request. */
  readonly searched?: (ctx: object, taken: { readonly path: SearchPath; readonly reused: boolean }) => void;
  /** Create many's path for this request: `'instances'` keeps it off the statement path (`bulkCreate`). */
  readonly forceCreateMany?: (ctx: object) => 'instances' | undefined;
  /** Told once per create many that wrote: the way its records went in. */
  readonly createdMany?: (ctx: object, path: CreateManyPath) => void;
  /** An export's read for this request: `'batches'` keeps it off the cursor (keyset or offset batches). */
  readonly forceExport?: (ctx: object) => 'batches' | undefined;
  /** Told once per export that began streaming: how it read its rows (`planExportRead`). */
  readonly exported?: (ctx: object, read: ExportRead) => void;
  /** Told when a model's probe keeps it on the public executor, with the reason (also logged once). */
  readonly fellBack?: (model: ModelStatic<Model>, reason: string) => void;
}

/** A search's plan and prepared select, kept for the next request with the same query string. */
export interface PreparedSearch {
  readonly plan: SearchPlan;
  readonly query: FindOptions;
  readonly select: PreparedSelect;
}

/**
 * A table's description: its column names, and when it was asked for (`performance.now()`): a
 * caller that needs a description made after a moment of its own takes a kept one only if it was
 * asked for at or after that moment.
 */
export interface TableEntry {
  readonly columns: Promise<ReadonlySet<string>>;
  readonly started: number;
}

/** A model's executor: decided (`done`), or its probe still running. */
export type ExecutorChoice = { readonly done: Executor } | { readonly pending: Promise<Executor> };

/** Everything kept for one Sequelize instance. */
export interface ExecutionState {
  /** Prepared searches, at most `PREPARED_LIMIT`, oldest out first (see search.ts `preparedKey`). */
  readonly prepared: Map<string, PreparedSearch>;
  /** A number per bound resource, for `prepared`'s keys. */
  readonly resourceIds: WeakMap<object, number>;
  nextResourceId: number;
  /** Per model: SQL fragments of the fast executor (SELECT heads and ORDER BYs), at most `FRAGMENT_LIMIT` each. */
  readonly fragments: WeakMap<ModelStatic<Model>, Map<string, string>>;
  /** Per model: the SELECT of its SQLite table's rowid span, or null when it has none (options.ts). */
  readonly spans: WeakMap<ModelStatic<Model>, string | null>;
  /** Described tables' column names, at most `TABLE_LIMIT` models, least recently used out first (table.ts). */
  readonly tables: Map<ModelStatic<Model>, TableEntry>;
  /** Per model: the executor its probe chose. */
  readonly executors: WeakMap<ModelStatic<Model>, ExecutorChoice>;
  /** Whether the instance's `retry` is Sequelize's default, once known. */
  defaultRetry: boolean | undefined;
  /** PostgreSQL: the type parsers of the driver path's queries (pg-parsers.ts), once made; null when there are none. */
  queryTypes: QueryTypes | null | undefined;
  observer: ExecutionObserver | undefined;
}

/** Most prepared searches kept per Sequelize instance. */
export const PREPARED_LIMIT = 1024;
/** Most SQL fragments kept per model; past it they are assembled on every request, never evicted. */
export const FRAGMENT_LIMIT = 256;
/** Most described tables kept per Sequelize instance. */
export const TABLE_LIMIT = 512;

const states = new WeakMap<Sequelize, ExecutionState>();

/**
 * The state kept for a Sequelize instance, made on first use.
 * @example stateOf(Product.sequelize!).prepared.size
 */
export function stateOf(sequelize: Sequelize): ExecutionState {
  let state = states.get(sequelize);
  if (state === undefined) {
    state = {
      prepared: new Map(),
      resourceIds: new WeakMap(),
      nextResourceId: 0,
      fragments: new WeakMap(),
      spans: new WeakMap(),
      tables: new Map(),
      executors: new WeakMap(),
      defaultRetry: undefined,
      queryTypes: undefined,
      observer: undefined,
    };
    states.set(sequelize, state);
  }
  return state;
}

/**
 * For tests and diagnostics (not exported from the package): sets the observer of the executors
 * of one Sequelize instance; the returned function removes it.
 * @example const stop = observeExecution(sequelize, { searched: (ctx, { path }) => paths.push(path) });
 */
export function observeExecution(sequelize: Sequelize, observer: ExecutionObserver): () => void {
  const state = stateOf(sequelize);
  state.observer = observer;
  return () => {
    if (state.observer === observer) state.observer = undefined;
  };
}
