/**
 * A fast-path SELECT run on the driver's connection itself, beside `sequelize.query`: the same
 * connection from the same pool (acquired and released through Sequelize's connection manager, so
 * pool limits and read replicas hold), the same SQL text, the same rows. It skips only what would
 * not be observed for this query: option merging, the retry wrapper, the query hooks, the query
 * object with its log line and its captured stack, and the per-row copy of raw rows.
 *
 * It is taken only when nothing could tell the difference: no logging (`logging` off on the
 * instance and the query), no `benchmark`, no `beforeQuery`/`afterQuery` hook but the deadline's (applied here by `underRequestDeadline`), no transaction and
 * no CLS namespace, Sequelize's default `retry`, no replacements or bind parameters, no search
 * path, no MariaDB `showWarnings`, and Sequelize's `sql:<dialect>` debug channel off. A driver
 * error sends the query through `sequelize.query` again, whose error (or retry, for SQLITE_BUSY)
 * is then the caller's, exactly as before.
 */
import { createRequire } from 'node:module';
import type { Sequelize } from 'sequelize';
import { DEADLINE_HOOK, underRequestDeadline } from './deadline.js';

/** The debug channels Sequelize's query classes write each statement to. */
const DEBUG_CHANNEL: Readonly<Record<string, string>> = { sqlite: 'sql:sqlite', postgres: 'sql:pg', mariadb: 'sql:mariadb' };

interface DebugChannel {
  readonly enabled: boolean;
}

const channels = new Map<string, DebugChannel>();

/** Sequelize's own debug instance for a dialect's SQL (the `debug` package's `enabled` follows `DEBUG` and `debug.enable`). */
function channel(dialect: string): DebugChannel {
  let found = channels.get(dialect);
  if (found === undefined) {
    const require = createRequire(import.meta.url);
    const { logger } = require('sequelize/lib/utils/logger') as { logger: { debugContext(name: string): DebugChannel } };
    channels.set(dialect, (found = logger.debugContext(DEBUG_CHANNEL[dialect]!)));
  }
  return found;
}

/** What the checks below read of a Sequelize instance. */
interface Internals {
  readonly options: {
    readonly logging?: unknown;
    readonly benchmark?: boolean;
    readonly query?: Readonly<Record<string, unknown>>;
    readonly retry?: { readonly max?: number; readonly match?: readonly unknown[] } & Readonly<Record<string, unknown>>;
    readonly dialectOptions?: { readonly prependSearchPath?: boolean };
    readonly showWarnings?: boolean;
    readonly minifyAliases?: boolean;
    readonly hooks?: Readonly<Record<string, readonly (((...args: never[]) => unknown) | { readonly name: string })[] | undefined>>;
  };
  readonly connectionManager: {
    getConnection(options: { type: string }): Promise<unknown>;
    releaseConnection(connection: unknown): void;
  };
}

/** Sequelize 6's default `retry`: up to 5 attempts, on SQLITE_BUSY only; any other setting keeps `sequelize.query`. */
function defaultRetry(retry: Internals['options']['retry']): boolean {
  if (retry === undefined) return true;
  const keys = Object.keys(retry);
  return keys.every((key) => key === 'max' || key === 'match') && retry.max === 5 && retry.match?.length === 1 && retry.match[0] === 'SQLITE_BUSY: database is locked';
}

const RETRY_CHECKED = new WeakMap<object, boolean>();

/** True when a query hook list holds one that is not the deadline's (which the driver path applies itself). */
function hasForeignHook(hooks: readonly (((...args: never[]) => unknown) | { readonly name: string })[] | undefined): boolean {
  return hooks !== undefined && hooks.some((hook) => typeof hook === 'function' || hook.name !== DEADLINE_HOOK);
}

/**
 * True when `sequelize.query(sql, options)` of a raw SELECT may run on the driver with no
 * observable difference (see the file's comment). `options` are the query's own, before Sequelize
 * merges `options.query` into them.
 * @example driverEligible(sequelize, { raw: true, type: 'SELECT' }) // true with logging off
 */
export function driverEligible(sequelize: Sequelize, options: Readonly<Record<string, unknown>>): boolean {
  const internals = sequelize as unknown as Internals;
  const instance = internals.options;
  const dialect = sequelize.getDialect();
  if (DEBUG_CHANNEL[dialect] === undefined) return false;
  const merged = instance.query === undefined || Object.keys(instance.query).length === 0 ? options : { ...instance.query, ...options };
  const logging = merged['logging'] === undefined ? instance.logging : merged['logging'];
  if (logging || instance.benchmark || merged['benchmark']) return false;
  if (merged['transaction'] !== undefined || (sequelize.constructor as unknown as { _cls?: unknown })._cls !== undefined) return false;
  if (merged['replacements'] !== undefined || merged['bind'] !== undefined || merged['retry'] !== undefined || merged['searchPath'] !== undefined) return false;
  if (merged['nest'] || merged['mapToModel'] || merged['fieldMap'] !== undefined || merged['raw'] !== true || merged['logQueryParameters']) return false;
  if (instance.minifyAliases || instance.showWarnings || merged['showWarnings'] || instance.dialectOptions?.prependSearchPath) return false;
  if (hasForeignHook(instance.hooks?.['beforeQuery']) || hasForeignHook(instance.hooks?.['afterQuery'])) return false;
  let retry = RETRY_CHECKED.get(instance);
  if (retry === undefined) RETRY_CHECKED.set(instance, (retry = defaultRetry(instance.retry)));
  if (!retry) return false;
  return !channel(dialect).enabled;
}

interface SqliteConnection {
  all(sql: string, callback: (error: Error | null, rows: Record<string, unknown>[]) => void): void;
}
interface PgConnection {
  query(sql: string, callback: (error: (Error & { code?: string }) | null, result: { rows: Record<string, unknown>[] }) => void): void;
  _invalid?: boolean;
}
interface MariadbConnection {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/** The rows of one statement, as the dialect's query class reads them from its driver. */
function execute(dialect: string, connection: unknown, sql: string): Promise<Record<string, unknown>[]> {
  if (dialect === 'sqlite') {
    return new Promise((resolve, reject) => (connection as SqliteConnection).all(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
  }
  if (dialect === 'postgres') {
    return new Promise((resolve, reject) =>
      (connection as PgConnection).query(sql, (error, result) => {
        if (error === null) return resolve(result.rows);
        // As Sequelize's PostgreSQL query marks a broken connection, so the pool drops it on release.
        if (error.code === 'ECONNRESET' || /Unable to set non-blocking to true|SSL SYSCALL error: EOF detected|Local: Authentication failure/i.test(String(error)) || error.message === 'Query read timeout') {
          (connection as PgConnection)._invalid = true;
        }
        reject(error);
      }),
    );
  }
  return (connection as MariadbConnection).query(sql);
}

/**
 * Runs a raw SELECT as `sequelize.query(sql, options)` would, on the driver connection: the rows
 * (or, with `options.plain`, the first row or null). Call only when `driverEligible` said so.
 * @example const rows = await driverSelect(sequelize, 'SELECT 1 AS `one`;', { raw: true, type: 'SELECT' });
 */
export async function driverSelect(sequelize: Sequelize, sql: string, options: Readonly<Record<string, unknown>>): Promise<unknown> {
  const manager = (sequelize as unknown as Internals).connectionManager;
  // A connection error is the pool's, thrown as sequelize.query would throw it (no retry matches it by default).
  const connection = await manager.getConnection({ type: 'SELECT' });
  let rows: Record<string, unknown>[];
  try {
    rows = await underRequestDeadline(sequelize, connection as object, () => execute(sequelize.getDialect(), connection, sql));
  } catch {
    manager.releaseConnection(connection);
    // The driver's error becomes Sequelize's (its class, its retry on SQLITE_BUSY) by running the query the usual way.
    return sequelize.query(sql, options as never);
  }
  manager.releaseConnection(connection);
  return options['plain'] === true ? (rows[0] ?? null) : rows;
}
