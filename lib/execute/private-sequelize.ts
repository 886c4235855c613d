/**
 * Every private member of Sequelize and of its drivers that the fast executor touches, in this one
 * file, behind one typed port (`SequelizePrivates`). `missingMembers` says which are absent from
 * the Sequelize in use; the executor probe (executor.ts) then keeps a model on the public executor.
 * docs/guide/internals.md lists each member and why it is used.
 */
import { createRequire } from 'node:module';
import {
  ConnectionAcquireTimeoutError,
  DataTypes,
  Sequelize,
  Utils,
  type Model,
  type ModelStatic,
  type Transaction,
} from 'sequelize';

/** The parts of Sequelize's query generator a SELECT is assembled from (`selectQuery` calls the same ones). */
export interface QueryGenerator {
  readonly options: { readonly minifyAliases?: boolean };
  selectQuery(table: unknown, options: object, model: ModelStatic<Model>): string;
  quoteIdentifier(name: string): string;
  quoteTable(table: unknown): string;
  escapeAttributes(attributes: unknown[], options: object, as: string): string[];
  selectFromTableFragment(
    options: object,
    model: ModelStatic<Model>,
    attributes: string[],
    table: string,
    as: string,
  ): string;
  getWhereConditions(where: unknown, as: string, model: ModelStatic<Model>, options: object): string;
  getQueryOrders(options: object, model: ModelStatic<Model>, subQuery: boolean): { mainQueryOrder: string[] };
  addLimitAndOffset(options: object, model: ModelStatic<Model>): string;
}

/** A hook as Sequelize keeps it in `options.hooks`: a function, or `{ name, fn }` when added with a name. */
export type KeptHook = ((...args: never[]) => unknown) | { readonly name: string };

/** What the fast executor reads of a Sequelize instance's `options` (its typings leave `options` out). */
export interface InstanceOptions {
  readonly logging?: unknown;
  readonly benchmark?: boolean;
  readonly timezone?: string;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly retry?: { readonly max?: number; readonly match?: readonly unknown[] } & Readonly<Record<string, unknown>>;
  readonly dialectOptions?: { readonly prependSearchPath?: boolean };
  readonly showWarnings?: boolean;
  readonly minifyAliases?: boolean;
  readonly hooks?: Readonly<Record<string, readonly KeptHook[] | KeptHook | undefined>>;
}

/** A data type's sanitizer, as Sequelize applies it when it builds an instance from a row. */
export type Sanitizer = (value: unknown, options: object) => unknown;

/** Model members `findAll` prepares its options with. */
interface ModelPrivates {
  _injectScope(options: object): void;
  _paranoidClause(model: ModelStatic<Model>, options: object): Record<string, unknown>;
  readonly _scope?: object;
  readonly _dataTypeSanitizers?: Readonly<Record<string, Sanitizer>>;
}

/** The members of Sequelize's Transaction that its own `commit()` finishes a transaction with. */
interface TransactionPrivates {
  finished?: string;
  readonly _afterCommitHooks?: readonly ((transaction: Transaction) => unknown)[];
  cleanup?(): void;
}

/** The CLS namespace Sequelize reads a transaction from, when an app set one (`Sequelize.useCLS`). */
interface SequelizeClass {
  readonly _cls?: { get(key: string): unknown };
}

/** Sequelize's SQLite DATE parser (what it applies to an instance's date column). */
interface TypeParsers {
  readonly sqlite?: { readonly DATE?: { parse?(value: string, options: { timezone: string }): Date } };
}

/** What Sequelize's PostgreSQL connection manager parses values with (see `privateSequelize.pgTypes`). */
export interface PgTypes {
  /** Sequelize's parser of a column of type `oid` in `format` ('text' or 'binary'). */
  parserOf(oid: number, format: string): (value: string) => unknown;
  /** The oid of each builtin type, by its name in upper case (`INT4`, `NUMERIC`). */
  readonly builtins: Readonly<Record<string, number>>;
  /** The types of `DataTypes.postgres` as they are now, in the order `refreshTypeParser` reads them. */
  dataTypes(): readonly PgDataType[];
}

/** A type of `DataTypes.postgres` as Sequelize's `refreshTypeParser` reads it. */
export interface PgDataType {
  readonly parse?: (value: string) => unknown;
  readonly types?: { readonly postgres?: unknown };
}

/** What `Utils` has besides its typings: the attribute-to-column mapping `findAll` applies. */
interface UtilsPrivates {
  mapFinderOptions?(options: object, model: ModelStatic<Model>): object;
}

/** Sequelize's debug logger factory (`sequelize/lib/utils/logger`): its `sql:<dialect>` channel's `enabled`. */
interface Logger {
  debugContext(name: string): { readonly enabled: boolean };
}

/** The debug channels Sequelize's query classes write each statement to. */
const DEBUG_CHANNEL: Readonly<Record<string, string>> = {
  sqlite: 'sql:sqlite',
  postgres: 'sql:pg',
  mariadb: 'sql:mariadb',
};

const transactionPrivates = (transaction: Transaction): TransactionPrivates =>
  transaction as unknown as TransactionPrivates;
const privatesOf = (model: ModelStatic<Model>): ModelPrivates => model as unknown as ModelPrivates;
const cls = (): SequelizeClass['_cls'] => (Sequelize as unknown as SequelizeClass)._cls;
const parsers = (): TypeParsers => DataTypes as unknown as TypeParsers;
const utils = (): UtilsPrivates => Utils;

let logger: Logger | null | undefined;
/**
 * The debug channel of each dialect, made once: `debug` makes a new instance (and asks the terminal about colours) at
 * every call, and an instance's `enabled` follows later `debug.enable()` calls itself.
 */
const channels = new Map<string, { readonly enabled: boolean }>();

/** Sequelize's logger module, loaded once; null when this Sequelize has none there. */
function loggerModule(): Logger | null {
  if (logger === undefined) {
    try {
      logger = (createRequire(import.meta.url)('sequelize/lib/utils/logger') as { logger?: Logger }).logger ?? null;
    } catch {
      logger = null;
    }
  }
  return logger;
}

/**
 * The private members a dialect's fast path needs that this Sequelize (or this model) lacks;
 * empty when every one is there.
 * @example missingMembers(Product) // []
 */
export function missingMembers(model: ModelStatic<Model>): string[] {
  const found = privatesOf(model);
  const generator = model.sequelize?.getQueryInterface().queryGenerator as Partial<QueryGenerator> | undefined;
  const dialect = model.sequelize?.getDialect() ?? '';
  const checks: [string, boolean][] = [
    ['Model._injectScope', typeof found._injectScope === 'function'],
    ['Model._paranoidClause', typeof found._paranoidClause === 'function'],
    ['Model._dataTypeSanitizers', typeof found._dataTypeSanitizers === 'object' && found._dataTypeSanitizers !== null],
    ['Utils.mapFinderOptions', typeof utils().mapFinderOptions === 'function'],
    ['DataTypes.sqlite.DATE.parse', typeof parsers().sqlite?.DATE?.parse === 'function'],
    ['sequelize/lib/utils/logger', DEBUG_CHANNEL[dialect] !== undefined && loggerModule() !== null],
    ...(
      [
        'selectQuery',
        'quoteIdentifier',
        'quoteTable',
        'escapeAttributes',
        'selectFromTableFragment',
        'getWhereConditions',
        'getQueryOrders',
        'addLimitAndOffset',
      ] as const
    ).map((name): [string, boolean] => [`queryGenerator.${name}`, typeof generator?.[name] === 'function']),
  ];
  return checks.filter(([, present]) => !present).map(([name]) => name);
}

/** The pool of a connection manager (`connectionManager.pool`): sequelize-pool's, or its read/write pair's. */
interface ManagerPool {
  acquire(type: string, useMaster: boolean): Promise<object>;
}

/**
 * The connection manager's pool, where taking a connection from it directly is what `getConnection` would do: the
 * database version known (`getConnection` asks for it first), no `beforePoolAcquire`/`afterPoolAcquire` hook, and
 * Sequelize's `pool` debug channel (which logs each acquisition) off. `getConnection` then only wraps `pool.acquire`
 * in two empty hook runs, a debug call and the error mapping `acquireError` repeats: three awaits per query saved.
 * Undefined otherwise, or when the pool is not there as expected: the caller takes `getConnection`.
 */
function directPool(sequelize: Sequelize): ManagerPool | undefined {
  const { databaseVersion } = (sequelize as unknown as { readonly options: { readonly databaseVersion?: unknown } })
    .options;
  if (databaseVersion === 0 || databaseVersion === undefined) return undefined;
  if (sequelize.hasHook('beforePoolAcquire') || sequelize.hasHook('afterPoolAcquire')) return undefined;
  if (debugEnabled('pool')) return undefined;
  let pool = pools.get(sequelize.connectionManager);
  if (pool === undefined) pools.set(sequelize.connectionManager, (pool = poolOf(sequelize.connectionManager) ?? null));
  return pool ?? undefined;
}

/** Each connection manager's pool, as `poolOf` found it (null: none to take connections from directly). */
const pools = new WeakMap<object, ManagerPool | null>();

/**
 * The pool of a connection manager whose `getConnection` is the abstract one Sequelize's PostgreSQL and MariaDB
 * managers inherit (SQLite's has its own, with no pool), checked once per manager; null otherwise, or when
 * sequelize-pool's `TimeoutError` cannot be found to map its timeouts.
 */
function poolOf(manager: object): ManagerPool | null {
  const own = (target: object) => Object.prototype.hasOwnProperty.call(target, 'getConnection');
  const dialectClass = Object.getPrototypeOf(manager) as object | null;
  const base = dialectClass === null ? null : (Object.getPrototypeOf(dialectClass) as object | null);
  if (own(manager) || dialectClass === null || own(dialectClass) || base === null || !own(base)) return null;
  if (poolTimeoutError() === null) return null;
  const pool = (manager as { readonly pool?: Partial<ManagerPool> }).pool;
  return typeof pool?.acquire === 'function' ? (pool as ManagerPool) : null;
}

/** The error `getConnection` throws for a failed acquisition: the pool's timeout as Sequelize's own. */
function acquireError(error: unknown): never {
  const PoolTimeout = poolTimeoutError();
  if (PoolTimeout !== null && error instanceof PoolTimeout) throw new ConnectionAcquireTimeoutError(error);
  throw error;
}

let poolTimeout: (new () => Error) | null | undefined;
/** sequelize-pool's `TimeoutError`, as the Sequelize in use loads it (its own dependency); null when not found. */
function poolTimeoutError(): (new () => Error) | null {
  if (poolTimeout === undefined) {
    try {
      const require = createRequire(createRequire(import.meta.url).resolve('sequelize'));
      const found = (require('sequelize-pool') as { TimeoutError?: unknown }).TimeoutError;
      poolTimeout = typeof found === 'function' ? (found as new () => Error) : null;
    } catch {
      poolTimeout = null;
    }
  }
  return poolTimeout;
}

/** True when Sequelize's `<name>` debug channel (`DEBUG=sequelize:<name>`) is on, or unknown. */
function debugEnabled(name: string): boolean {
  const found = loggerModule();
  if (found === null) return true;
  let context = channels.get(name);
  if (context === undefined) channels.set(name, (context = found.debugContext(name)));
  return context.enabled;
}

/** The port: what the fast executor does with Sequelize's private members, one function each. */
export const privateSequelize = {
  /**
   * A raw select's options prepared as `findAll` prepares its own: the CLS transaction, the
   * default scope (which may not add attributes), attribute-to-column names, the paranoid clause.
   * @example privateSequelize.prepareFind(Product, { where: { id: 1 } }, ['id', 'name'])
   */
  prepareFind(model: ModelStatic<Model>, query: object, attributes: readonly unknown[]): Record<string, unknown> {
    const options: Record<string, unknown> = {
      ...query,
      attributes: [...attributes],
      raw: true,
      type: 'SELECT',
      model,
      tableNames: [],
    };
    const namespace = cls();
    if (options['transaction'] === undefined && namespace !== undefined)
      options['transaction'] = namespace.get('transaction');
    privatesOf(model)._injectScope(options);
    options['attributes'] = [...attributes];
    utils().mapFinderOptions!(options, model);
    return privatesOf(model)._paranoidClause(model, options);
  },

  /** The query generator of the model's Sequelize instance. */
  generator(model: ModelStatic<Model>): QueryGenerator {
    return model.sequelize!.getQueryInterface().queryGenerator as QueryGenerator;
  },

  /**
   * True when `findAll` adds nothing to a query's options that could differ from one request to
   * the next: no CLS namespace (its transaction) and no default scope on the model.
   */
  queriesAsPlanned(model: ModelStatic<Model>): boolean {
    const scope = privatesOf(model)._scope;
    return cls() === undefined && (scope === undefined || Object.keys(scope).length === 0);
  },

  /** True when `transaction` is open and has the members `commitWith` finishes it with, as `commit()` does. */
  commitsWith(transaction: Transaction): boolean {
    const members = transactionPrivates(transaction);
    return (
      typeof members.cleanup === 'function' &&
      Array.isArray(members._afterCommitHooks) &&
      members.finished === undefined
    );
  },

  /**
   * Runs `sql` (its values written in as literals) and COMMIT as one simple query, one round trip, then finishes
   * `transaction` as `Transaction#commit` does: marked committed, its connection given back to the pool, its
   * afterCommit hooks run. When either statement fails, the transaction is rolled back and the failure thrown.
   * PostgreSQL only (the simple query protocol runs several statements); `commitsWith` first.
   * @example await privateSequelize.commitWith(sequelize, transaction, "INSERT INTO t VALUES ('x')");
   */
  async commitWith(sequelize: Sequelize, transaction: Transaction, sql: string): Promise<void> {
    const members = transactionPrivates(transaction);
    try {
      await sequelize.query(`${sql};\nCOMMIT`, { transaction });
    } catch (thrown) {
      // A failed statement leaves the transaction aborted, a failed COMMIT ends it: ROLLBACK closes either.
      await transaction.rollback().catch(() => undefined);
      throw thrown;
    }
    members.finished = 'commit';
    members.cleanup!();
    for (const hook of members._afterCommitHooks!) await hook.call(transaction, transaction);
  },

  /** True when Sequelize would read a transaction from a CLS namespace. */
  clsActive(): boolean {
    return cls() !== undefined;
  },

  /** The sanitizer of each attribute whose type has one (booleans), as instances apply them. */
  sanitizers(model: ModelStatic<Model>): Readonly<Record<string, Sanitizer>> {
    return privatesOf(model)._dataTypeSanitizers ?? {};
  },

  /** Sequelize's parse of a SQLite DATE's text. */
  parseSqliteDate(value: string, timezone: string): Date {
    return parsers().sqlite!.DATE!.parse!(value, { timezone });
  },

  /** The Sequelize instance's own options. */
  options(sequelize: Sequelize): InstanceOptions {
    return (sequelize as unknown as { readonly options: InstanceOptions }).options;
  },

  /** True when Sequelize's `sql:<dialect>` debug channel (the `debug` package, `DEBUG=sql:*`) is on, or unknown. */
  sqlDebugEnabled(dialect: string): boolean {
    const channel = DEBUG_CHANNEL[dialect];
    return channel === undefined || debugEnabled(channel);
  },

  /**
   * A connection from the instance's pool as `sequelize.query` takes one for a SELECT: `type` is
   * the query type Sequelize's pool compares with 'SELECT' (its typings say 'read' | 'write').
   */
  acquire(sequelize: Sequelize, useMaster: boolean): Promise<object> {
    const pool = directPool(sequelize);
    if (pool !== undefined) return pool.acquire('SELECT', useMaster).catch(acquireError);
    const options = { type: 'SELECT', useMaster } as unknown as Parameters<
      Sequelize['connectionManager']['getConnection']
    >[0];
    return sequelize.connectionManager.getConnection(options);
  },

  /**
   * The attributes Sequelize fills with the time of a write (`createdAt`, `updatedAt`), as named on the model;
   * undefined when this Sequelize does not say.
   */
  timestampAttributes(model: ModelStatic<Model>): { createdAt?: string; updatedAt?: string } | undefined {
    return (model as unknown as { _timestampAttributes?: { createdAt?: string; updatedAt?: string } })
      ._timestampAttributes;
  },

  /**
   * The validators Sequelize runs on a model's records, by attribute (`Model.prototype.validators`, which
   * `setValidators` changes too); undefined when this Sequelize keeps them elsewhere.
   */
  validators(model: ModelStatic<Model>): Readonly<Record<string, unknown>> | undefined {
    const found = (model.prototype as { validators?: unknown }).validators;
    return typeof found === 'object' && found !== null ? (found as Record<string, unknown>) : undefined;
  },

  /** True when Sequelize added the attribute itself (timestamps, a default `id`): its validation skips the schema. */
  generatedAttribute(definition: object): boolean {
    return (definition as { _autoGenerated?: unknown })._autoGenerated === true;
  },

  /** A record's values kept as its saved ones (`previous()`), as Sequelize keeps them after `bulkCreate`. */
  markSaved(record: Model): void {
    const kept = record as unknown as { _previousDataValues: object; dataValues: object };
    kept._previousDataValues = { ...kept.dataValues };
  },

  /**
   * PostgreSQL: what Sequelize's connection manager parses a column with (`getTypeParser(oid, format)`, which its
   * connections hand node-postgres), the oids of PostgreSQL's builtin types by name (`lib.types.builtins`, from the
   * node-postgres Sequelize loaded) and the types of `DataTypes.postgres`; undefined when the first two are not there.
   */
  pgTypes(sequelize: Sequelize): PgTypes | undefined {
    const manager = sequelize.connectionManager as unknown as {
      getTypeParser?: (oid: number, format: string) => unknown;
      readonly lib?: { readonly types?: { readonly builtins?: unknown } };
    };
    const builtins = manager.lib?.types?.builtins;
    if (typeof manager.getTypeParser !== 'function' || typeof builtins !== 'object' || builtins === null)
      return undefined;
    const { getTypeParser } = manager;
    return {
      parserOf: (oid, format) => getTypeParser.call(manager, oid, format) as (value: string) => unknown,
      builtins: builtins as Readonly<Record<string, number>>,
      dataTypes: () => Object.values((DataTypes as unknown as { postgres?: object }).postgres ?? {}) as PgDataType[],
    };
  },

  /** Marks a node-postgres connection broken, as Sequelize's PostgreSQL query does, so the pool drops it on release. */
  markBroken(connection: object): void {
    (connection as { _invalid?: boolean })._invalid = true;
  },

  /**
   * The driver connection a transaction runs on (`Transaction#connection`, set once it has begun). The export's
   * cursor on MariaDB streams from it (export-cursor.ts).
   */
  transactionConnection(transaction: object): object | undefined {
    const connection = (transaction as { connection?: unknown }).connection;
    return typeof connection === 'object' && connection !== null ? connection : undefined;
  },

  /**
   * What a dialect's export cursor needs of a transaction's driver connection and lacks, or undefined when it is all
   * there: MariaDB's `queryStream`; the PostgreSQL and SQLite cursors are SQL through `sequelize.query` and need
   * nothing.
   * @example privateSequelize.missingCursorMembers('mariadb', transaction) // undefined
   */
  missingCursorMembers(dialect: string, transaction: object): string | undefined {
    if (dialect === 'postgres' || dialect === 'sqlite') return undefined;
    const connection = privateSequelize.transactionConnection(transaction) as Record<string, unknown> | undefined;
    if (connection === undefined) return 'Transaction#connection';
    if (dialect === 'mariadb')
      return typeof connection['queryStream'] === 'function' ? undefined : 'Connection#queryStream';
    return `cursor on ${dialect}`;
  },
};
