/**
 * A fast-executor SELECT run on the driver's connection itself, beside `sequelize.query`: the same
 * connection from the same pool (acquired and released through Sequelize's connection manager, with
 * the query's `useMaster`, so pool limits, its hooks and read replicas hold), the same SQL text, the
 * same rows. It skips only what would not be observed for this query: option merging, the retry
 * wrapper, the query object with its log line and its captured stack, and the per-row copy of raw rows.
 * `driverRefusal` names the first thing that could observe the difference; then `sequelize.query` runs it.
 * A driver error sends the query through `sequelize.query` again, whose error (or retry, for
 * SQLITE_BUSY) is then the caller's, exactly as before.
 */
import type { Sequelize } from 'sequelize';
import { DEADLINE_HOOK, underRequestDeadline } from './deadline.js';
import { queryTypes, type QueryTypes } from './pg-parsers.js';
import { privateSequelize, type InstanceOptions, type KeptHook } from './private-sequelize.js';
import { stateOf } from './state.js';

/** Sequelize 6's default `retry`: up to 5 attempts, on SQLITE_BUSY only; any other setting keeps `sequelize.query`. */
function isDefaultRetry(retry: InstanceOptions['retry']): boolean {
  if (retry === undefined) return true;
  const keys = Object.keys(retry);
  const busy = retry.match?.length === 1 && retry.match[0] === 'SQLITE_BUSY: database is locked';
  return keys.every((key) => key === 'max' || key === 'match') && retry.max === 5 && busy;
}

/** True when a query hook list holds one that is not the deadline's (which the driver path applies itself). */
function hasForeignHook(hooks: readonly KeptHook[] | KeptHook | undefined): boolean {
  if (hooks === undefined) return false;
  if (!Array.isArray(hooks)) return isForeign(hooks as KeptHook);
  for (const hook of hooks as readonly KeptHook[]) if (isForeign(hook)) return true;
  return false;
}

function isForeign(hook: KeptHook): boolean {
  return typeof hook === 'function' || hook.name !== DEADLINE_HOOK;
}

/** Options a query may carry that only `sequelize.query` applies: any of them sends it there. */
const QUERY_ONLY = ['transaction', 'replacements', 'bind', 'retry', 'searchPath', 'fieldMap'] as const;
/** Options that change how rows come back: any of them set sends the query to `sequelize.query`. */
const SHAPING = ['nest', 'mapToModel', 'logQueryParameters', 'showWarnings', 'benchmark'] as const;

/**
 * The part of `driverRefusal` that a query's options decide alone: an option only `sequelize.query` applies, or rows
 * that would come back shaped (not `raw`, nested, mapped). A prepared select keeps it, as its options never change.
 * @example optionsRefusal({ raw: true, type: 'SELECT', replacements: [1] }) // 'replacements'
 */
export function optionsRefusal(options: Readonly<Record<string, unknown>>): string | undefined {
  const needed = QUERY_ONLY.find((key) => options[key] !== undefined && options[key] !== null);
  if (needed !== undefined) return needed;
  const shaping = SHAPING.find((key) => Boolean(options[key]));
  return shaping ?? (options['raw'] === true ? undefined : 'not raw');
}

/**
 * Why `sequelize.query(sql, options)` of a raw SELECT may not run on the driver connection, or
 * undefined when nothing could observe the difference: someone listens (a logger, a benchmark, a
 * query hook other than the deadline's, the `sql:<dialect>` debug channel), the query needs what only
 * `sequelize.query` does (a transaction or CLS, replacements or bind parameters, a retry setting, a
 * search path), or its rows would come back shaped (not `raw`, nested, mapped). `options` are the
 * query's own, before Sequelize merges the instance's `options.query` into them; `own` is their `optionsRefusal` when
 * the caller keeps it (null: it does not).
 * @example driverRefusal(sequelize, { raw: true, type: 'SELECT' }) // undefined with logging off
 */
export function driverRefusal(
  sequelize: Sequelize,
  options: Readonly<Record<string, unknown>>,
  own: string | undefined | null = null,
): string | undefined {
  const instance = privateSequelize.options(sequelize);
  const merged = isEmpty(instance.query) ? options : { ...instance.query, ...options };
  const logging = merged['logging'] === undefined ? instance.logging : merged['logging'];
  if (logging) return 'logging';
  if (instance.benchmark || instance.showWarnings || instance.minifyAliases) return 'instance options';
  if (hasForeignHook(instance.hooks?.['beforeQuery']) || hasForeignHook(instance.hooks?.['afterQuery']))
    return 'query hooks';
  if (privateSequelize.clsActive()) return 'CLS';
  const refusal = merged === options && own !== null ? own : optionsRefusal(merged);
  if (refusal !== undefined) return refusal;
  if (instance.dialectOptions?.prependSearchPath) return 'searchPath';
  const state = stateOf(sequelize);
  state.defaultRetry ??= isDefaultRetry(instance.retry);
  if (!state.defaultRetry) return 'retry';
  return privateSequelize.sqlDebugEnabled(sequelize.getDialect()) ? 'debug' : undefined;
}

/** True for no object, or one without keys (Sequelize's default `options.query`). */
function isEmpty(object: object | undefined): boolean {
  for (const _key in object) return false;
  return true;
}

interface SqliteConnection {
  all(sql: string, callback: (error: Error | null, rows: Record<string, unknown>[]) => void): void;
}
/** node-postgres's result of one statement; a query string of several statements gives one per statement. */
interface PgResult {
  readonly rows: Record<string, unknown>[];
}
interface PgConnection {
  query(
    query: string | { readonly text: string; readonly types: QueryTypes },
    callback: (error: (Error & { code?: string }) | null, result: PgResult | PgResult[]) => void,
  ): void;
}
interface MariadbConnection {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/** The errors after which Sequelize's PostgreSQL query marks its connection broken. */
const PG_BROKEN = /Unable to set non-blocking to true|SSL SYSCALL error: EOF detected|Local: Authentication failure/i;

/** The rows of one statement, as the dialect's query class reads them from its driver. */
function execute(sequelize: Sequelize, connection: object, sql: string): Promise<Record<string, unknown>[]> {
  const dialect = sequelize.getDialect();
  if (dialect === 'sqlite') {
    const sqlite = connection as SqliteConnection;
    return new Promise((resolve, reject) => sqlite.all(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
  }
  if (dialect === 'postgres') return executePg(connection, sql, pgTypes(sequelize)).then((results) => results[0]!.rows);
  return (connection as MariadbConnection).query(sql);
}

/** The type parsers of the instance's driver-path queries (pg-parsers.ts), made once; undefined when it has none. */
function pgTypes(sequelize: Sequelize): QueryTypes | undefined {
  const state = stateOf(sequelize);
  if (state.queryTypes === undefined) state.queryTypes = queryTypes(sequelize) ?? null;
  return state.queryTypes ?? undefined;
}

/**
 * The results of a PostgreSQL query string, one per statement (node-postgres sends it as one simple query), its values
 * parsed by `types` (else by the connection's own parsers); a broken connection is marked as Sequelize's PostgreSQL
 * query marks it.
 */
function executePg(connection: object, sql: string, types?: QueryTypes): Promise<PgResult[]> {
  return new Promise((resolve, reject) =>
    (connection as PgConnection).query(types === undefined ? sql : { text: sql, types }, (error, result) => {
      if (error === null) return resolve(Array.isArray(result) ? result : [result]);
      const broken =
        error.code === 'ECONNRESET' || PG_BROKEN.test(String(error)) || error.message === 'Query read timeout';
      if (broken) privateSequelize.markBroken(connection);
      reject(error);
    }),
  );
}

/**
 * Runs a raw SELECT as `sequelize.query(sql, options)` would, on the driver connection: the rows
 * (or, with `options.plain`, the first row or null). Call only when `driverRefusal` gave none.
 * @example const rows = await driverSelect(sequelize, 'SELECT 1 AS `one`;', { raw: true, type: 'SELECT' });
 */
export async function driverSelect(
  sequelize: Sequelize,
  sql: string,
  options: Readonly<Record<string, unknown>>,
): Promise<unknown> {
  // A connection error is the pool's, thrown as sequelize.query would throw it (no retry matches it by default).
  const connection = await privateSequelize.acquire(sequelize, options['useMaster'] === true);
  let rows: Record<string, unknown>[];
  try {
    rows = await underRequestDeadline(sequelize, connection, () => execute(sequelize, connection, sql));
  } catch {
    sequelize.connectionManager.releaseConnection(connection);
    // The driver's error becomes Sequelize's (its class, its retry on SQLITE_BUSY) by running the query the usual way.
    return sequelize.query(sql, options);
  }
  sequelize.connectionManager.releaseConnection(connection);
  return options['plain'] === true ? (rows[0] ?? null) : rows;
}

/** One SELECT of `driverSelects`: its SQL (ending in `;`) and the options `sequelize.query` would get. */
export interface DriverStatement {
  readonly sql: string;
  readonly options: Readonly<Record<string, unknown>>;
}

/** PostgreSQL: the statements of `driverSelects` read one snapshot, in the same round trip. */
const PG_BEGIN = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;';
/** MariaDB: the statements sent ahead of `driverSelects`' selects, pipelined on their connection. */
const MARIADB_BEGIN = [
  'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ',
  'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY',
] as const;

/**
 * Runs raw SELECTs as `driverSelect` runs each, answering in the same order, on one connection and
 * one snapshot, so that a page and its count never contradict each other (issue 21). PostgreSQL: one
 * query string (one round trip, one acquisition, one deadline check), `BEGIN ISOLATION LEVEL REPEATABLE
 * READ READ ONLY; …; COMMIT;`, each statement giving its own rows. MariaDB: `START TRANSACTION WITH
 * CONSISTENT SNAPSHOT, READ ONLY`, the selects and `COMMIT` on one connection (`mariadbSnapshot`). A driver
 * error rolls the transaction back and sends every statement through `sequelize.query` one after the other, as
 * `driverSelect` does. SQLite: each runs as `driverSelect`
 * (fast-executor.ts makes a SQLite page and count one statement). Call only when `driverRefusal` gave
 * none for each statement's options. `text` is the statements' SQL joined by a space (a caller may keep it).
 * @example const [rows, count] = await driverSelects(sequelize, [page, counted]);
 */
export async function driverSelects(
  sequelize: Sequelize,
  statements: readonly DriverStatement[],
  text = statements.map(({ sql }) => sql).join(' '),
): Promise<unknown[]> {
  const dialect = sequelize.getDialect();
  if (dialect === 'sqlite' || statements.length < 2)
    return Promise.all(statements.map(({ sql, options }) => driverSelect(sequelize, sql, options)));
  const useMaster = statements.some(({ options }) => options['useMaster'] === true);
  const connection = await privateSequelize.acquire(sequelize, useMaster);
  let results: Record<string, unknown>[][];
  try {
    results = await underRequestDeadline(sequelize, connection, () =>
      dialect === 'postgres'
        ? pgSnapshot(connection, text, statements.length, pgTypes(sequelize))
        : mariadbSnapshot(connection, statements),
    );
  } catch {
    await rollBack(dialect, connection);
    sequelize.connectionManager.releaseConnection(connection);
    const answers: unknown[] = [];
    for (const { sql, options } of statements) answers.push(await sequelize.query(sql, options));
    return answers;
  }
  sequelize.connectionManager.releaseConnection(connection);
  return statements.map(({ options }, i) => {
    const rows = results[i]!;
    return options['plain'] === true ? (rows[0] ?? null) : rows;
  });
}

/** PostgreSQL: the rows of each of `count` statements, in one REPEATABLE READ READ ONLY transaction, one round trip. */
async function pgSnapshot(
  connection: object,
  text: string,
  count: number,
  types: QueryTypes | undefined,
): Promise<Record<string, unknown>[][]> {
  const results = await executePg(connection, `${PG_BEGIN} ${text} COMMIT;`, types);
  if (results.length !== count + 2) throw new Error('a result per statement was expected');
  return results.slice(1, -1).map(({ rows }) => rows);
}

/**
 * MariaDB: the rows of each statement, in one consistent read-only snapshot on one connection. The snapshot's start
 * is pipelined with the first statement and `COMMIT` with the last, but each statement waits for the one before: a
 * statement the deadline kills (`KILL QUERY`) stops the rest, which would otherwise run after it.
 */
async function mariadbSnapshot(
  connection: object,
  statements: readonly DriverStatement[],
): Promise<Record<string, unknown>[][]> {
  const mariadb = connection as MariadbConnection;
  const results: Record<string, unknown>[][] = [];
  for (const [i, { sql }] of statements.entries()) {
    const before = i === 0 ? MARIADB_BEGIN : [];
    const texts = [...before, sql, ...(i === statements.length - 1 ? ['COMMIT'] : [])];
    const settled = await Promise.allSettled(texts.map((text) => mariadb.query(text)));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    results.push((settled[before.length] as PromiseFulfilledResult<Record<string, unknown>[]>).value);
  }
  return results;
}

/** Ends a snapshot a driver error interrupted; a connection that cannot is marked broken, so the pool drops it. */
async function rollBack(dialect: string, connection: object): Promise<void> {
  try {
    if (dialect === 'postgres') await executePg(connection, 'ROLLBACK');
    else await (connection as MariadbConnection).query('ROLLBACK');
  } catch {
    if (dialect === 'postgres') privateSequelize.markBroken(connection);
  }
}
