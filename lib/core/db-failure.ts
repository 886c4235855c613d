/**
 * Which thrown errors mean "the database is unavailable" or "it did not answer in time": the 503s, told apart from
 * every other fault.
 */

/**
 * A database failure the client may retry: `databaseUnavailable` (no connection could be made or
 * kept: refused, reset, pool acquire timeout, server shutting down, SQLite busy past its timeout)
 * or `databaseTimeout` (the request's deadline, `global.timeout_ms`, passed, or the database
 * cancelled the statement for it).
 * @example const failure: DatabaseFailure = 'databaseUnavailable';
 */
export type DatabaseFailure = 'databaseUnavailable' | 'databaseTimeout';

/**
 * The `name` of the error the library throws when a request passes its deadline (see
 * lib/execute/deadline.ts): classified as `databaseTimeout`.
 * @example new Error('…') with name DEADLINE_ERROR_NAME
 */
export const DEADLINE_ERROR_NAME = 'FastCrudDeadlineError';

/**
 * Sequelize's ConnectionError family, whose every member is an outage. AccessDenied is left out: a wrong password is a
 * configuration fault that no retry mends.
 */
const CONNECTION_NAMES: ReadonlySet<string> = new Set([
  'SequelizeConnectionError',
  'SequelizeConnectionRefusedError',
  'SequelizeConnectionTimedOutError',
  'SequelizeConnectionAcquireTimeoutError',
  'SequelizeHostNotFoundError',
  'SequelizeHostNotReachableError',
  'SequelizeInvalidConnectionError',
  // What Sequelize's SQLite dialect makes of SQLITE_BUSY once the busy timeout has passed.
  'SequelizeTimeoutError',
]);

/** Node's socket errors and the drivers' own codes for a connection that is gone or never came. */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  // SQLite: another connection holds the lock past the busy timeout.
  'SQLITE_BUSY',
  // PostgreSQL SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // The mariadb connector.
  'ER_SOCKET_UNEXPECTED_CLOSE',
  'ER_GET_CONNECTION_TIMEOUT',
  'ER_CONNECTION_TIMEOUT',
  'ER_SOCKET_TIMEOUT',
  'ER_CLOSING_POOL',
  'ER_CMD_CONNECTION_CLOSED',
  'ER_CMD_NOT_EXECUTED_DESTROYED',
  'ER_POOL_ALREADY_CLOSED',
  'PROTOCOL_CONNECTION_LOST',
  'ESOCKET',
  // MariaDB server: too many connections, shutdown in progress, connection killed.
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
]);

/** MariaDB server error numbers of the same kinds (too many connections, shutdown, killed, gone away, lost). */
const UNAVAILABLE_ERRNOS: ReadonlySet<number> = new Set([1040, 1053, 1927, 2002, 2003, 2006, 2013]);

/** PostgreSQL's query_canceled (statement_timeout, or a cancel request); SQLite's interrupt. */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  '57014',
  'SQLITE_INTERRUPT',
  'ER_STATEMENT_TIMEOUT',
  'ER_QUERY_INTERRUPTED',
]);

/** MariaDB: max_statement_time exceeded, query interrupted (KILL QUERY); MySQL's max_execution_time. */
const TIMEOUT_ERRNOS: ReadonlySet<number> = new Set([1969, 1317, 3024]);

/**
 * Messages node-postgres gives a query whose connection went away, which carry no code; and, for a server that
 * reports in English, a PostgreSQL hot standby's recovery conflict (`canceling statement` or `terminating connection due
 * to conflict with recovery`, SQLSTATE 40001 as a serialization failure has): replay removed rows
 * the query's snapshot needed, and the same read again, on this standby or another, can succeed.
 */
const UNAVAILABLE_MESSAGES: readonly RegExp[] = [
  /^Connection terminated/,
  /is not queryable$/,
  /^Query read timeout$/,
  /due to conflict with recovery$/,
];

/** How deep the chain of wrapped errors (`original`, `parent`, `cause`) is followed. */
const MAX_DEPTH = 4;

/**
 * The database failure a thrown value stands for, or undefined for any other fault (a bug, a
 * syntax error, a constraint): it reads the error's `name`, `code`, `errno` and `sqlState` and
 * those of the errors it wraps (Sequelize's `original`/`parent`, `cause`), and node-postgres's
 * connection messages. Never throws, whatever it is given.
 * @example classifyDatabaseError({ name: 'SequelizeConnectionRefusedError', parent: { code: 'ECONNREFUSED' } })
 *   // 'databaseUnavailable'
 * @example classifyDatabaseError({ name: 'SequelizeDatabaseError', original: { code: '57014' } }) // 'databaseTimeout'
 * @example classifyDatabaseError(new Error('relation "x" does not exist')) // undefined
 */
export function classifyDatabaseError(thrown: unknown): DatabaseFailure | undefined {
  const chain = errorChain(thrown);
  if (chain.some(isTimeout)) return 'databaseTimeout';
  if (chain.some(isUnavailable)) return 'databaseUnavailable';
  return undefined;
}

/**
 * True when SQLite's JSON functions could not read a stored value (`SQLITE_ERROR: malformed JSON`):
 * text that is not JSON, or JSON nested deeper than the 1,000 levels they parse. Only a `json`
 * filter reads stored JSON in SQL, and its own value is always valid and shallow, so the stored
 * value is the cause. Never throws.
 * @example
 * const original = { code: 'SQLITE_ERROR', message: 'SQLITE_ERROR: malformed JSON' };
 * isUnreadableJson({ name: 'SequelizeDatabaseError', original }) // true
 */
export function isUnreadableJson(thrown: unknown): boolean {
  const malformed = ({ code, message }: Fields) =>
    code === 'SQLITE_ERROR' && typeof message === 'string' && /\bmalformed JSON\b/.test(message);
  return errorChain(thrown).some(malformed);
}

/**
 * True when the database refused a statement for naming a column its table does not have:
 * PostgreSQL's `undefined_column` (42703), MariaDB's and MySQL's `ER_BAD_FIELD_ERROR` (1054),
 * SQLite's `no such column`. A column dropped since the library described the table, or not yet
 * replayed by the standby that ran the statement, gives it. Never throws.
 * @example isUnknownColumn({ name: 'SequelizeDatabaseError', original: { code: '42703' } }) // true
 * @example isUnknownColumn({ code: 'SQLITE_ERROR', message: 'SQLITE_ERROR: no such column: legacy_code' }) // true
 */
export function isUnknownColumn(thrown: unknown): boolean {
  const unknown = ({ code, errno, message }: Fields) =>
    code === '42703' ||
    code === 'ER_BAD_FIELD_ERROR' ||
    errno === 1054 ||
    (code === 'SQLITE_ERROR' && typeof message === 'string' && /\bno such column\b/.test(message));
  return errorChain(thrown).some(unknown);
}

type Fields = {
  readonly name: unknown;
  readonly code: unknown;
  readonly errno: unknown;
  readonly sqlState: unknown;
  readonly message: unknown;
  readonly file: unknown;
};

function isTimeout({ name, code, errno }: Fields): boolean {
  return (
    name === DEADLINE_ERROR_NAME ||
    (typeof code === 'string' && TIMEOUT_CODES.has(code)) ||
    (typeof errno === 'number' && TIMEOUT_ERRNOS.has(errno))
  );
}

function isUnavailable({ name, code, errno, sqlState, message, file }: Fields): boolean {
  if (typeof name === 'string' && CONNECTION_NAMES.has(name)) return true;
  // A hot standby's recovery conflict, whatever the server's lc_messages: PostgreSQL raises its SQLSTATE 40001 only
  // from postgres.c's interrupt handling, while a serialization failure on the primary comes from the executor.
  if (code === '40001' && file === 'postgres.c') return true;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  if (typeof errno === 'number' && UNAVAILABLE_ERRNOS.has(errno)) return true;
  // SQLSTATE class 08: connection exception (MariaDB's 08S01 communication link failure among them).
  if (typeof sqlState === 'string' && sqlState.startsWith('08')) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * The thrown value and the errors it wraps, as plain fields; reading a field never throws (a getter that throws counts
 * as absent).
 */
function errorChain(thrown: unknown): Fields[] {
  const chain: Fields[] = [];
  const seen = new Set<unknown>();
  let level: unknown[] = [thrown];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const value of level) {
      if (typeof value !== 'object' || value === null || seen.has(value)) continue;
      seen.add(value);
      chain.push({
        name: read(value, 'name'),
        code: read(value, 'code'),
        errno: read(value, 'errno'),
        sqlState: read(value, 'sqlState'),
        message: read(value, 'message'),
        file: read(value, 'file'),
      });
      next.push(read(value, 'original'), read(value, 'parent'), read(value, 'cause'));
    }
    level = next;
  }
  return chain;
}

function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
