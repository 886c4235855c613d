/** Thrown database errors as the drivers and Sequelize shape them: outages, timeouts and other faults, wrapped as Sequelize wraps them. */
import fc from 'fast-check';

/** One field that marks an error as a connection failure, as a real driver or Sequelize sets it. */
export const OUTAGE_MARKS: readonly Record<string, unknown>[] = [
  { name: 'SequelizeConnectionError' },
  { name: 'SequelizeConnectionRefusedError' },
  { name: 'SequelizeConnectionAcquireTimeoutError' },
  { name: 'SequelizeHostNotFoundError' },
  { name: 'SequelizeHostNotReachableError' },
  { name: 'SequelizeConnectionTimedOutError' },
  { name: 'SequelizeInvalidConnectionError' },
  { name: 'SequelizeTimeoutError' }, // SQLite's SQLITE_BUSY
  { code: 'ECONNREFUSED' },
  { code: 'ECONNRESET' },
  { code: 'EPIPE' },
  { code: 'ETIMEDOUT' },
  { code: 'SQLITE_BUSY' },
  { code: '57P01' }, // PostgreSQL admin_shutdown
  { code: '57P03' }, // cannot_connect_now
  { code: '53300' }, // too_many_connections
  { code: '08006' }, // connection_failure
  { code: 'ER_SOCKET_UNEXPECTED_CLOSE', sqlState: '08S01', errno: 45007 },
  { code: 'ER_GET_CONNECTION_TIMEOUT', errno: 45028 },
  { errno: 1927, sqlState: '70100' }, // MariaDB: connection killed
  { errno: 2013 }, // lost connection during query
  { sqlState: '08S01' },
  { message: 'Connection terminated unexpectedly' },
  { message: 'Client has encountered a connection error and is not queryable' },
];

/** One field that marks an error as a passed deadline or a cancelled statement. */
export const TIMEOUT_MARKS: readonly Record<string, unknown>[] = [
  { name: 'FastCrudDeadlineError' },
  { code: '57014' }, // PostgreSQL query_canceled: statement_timeout or a cancel request
  { errno: 1969, sqlState: '70100' }, // MariaDB max_statement_time exceeded
  { errno: 1317, sqlState: '70100' }, // MariaDB query interrupted (KILL QUERY)
  { code: 'SQLITE_INTERRUPT' },
];

/** Fields of faults that are not outages: bugs, SQL errors, constraints, bad values, a wrong password. */
const OTHER_FIELDS: readonly Record<string, unknown>[] = [
  { name: 'Error' },
  { name: 'TypeError' },
  { name: 'SequelizeDatabaseError' },
  { name: 'SequelizeUniqueConstraintError' },
  { name: 'SequelizeAccessDeniedError' },
  { code: '42P01' },
  { code: '23505' },
  { code: '22003' },
  { code: '28P01' }, // invalid_password
  { code: 'SQLITE_ERROR' },
  { code: 'SQLITE_CONSTRAINT' },
  { code: 'ER_PARSE_ERROR', errno: 1064, sqlState: '42000' },
  { code: 'ER_ACCESS_DENIED_ERROR', errno: 1045, sqlState: '28000' },
  { errno: 1146 },
  { sqlState: '23000' },
  { message: 'relation "secret_table" does not exist' },
  { message: 'SELECT * FROM "users" WHERE "password" = \'hunter2\' at 10.0.0.5:5432' },
];

/** What a wrapper adds around the error it wraps: Sequelize keeps it as `original` and `parent`, others as `cause`. */
const WRAPPERS = ['SequelizeDatabaseError', 'SequelizeConnectionError', 'Error'] as const;

/** A chain of wrapped errors (at most 3 levels, as Sequelize makes them) whose innermost one carries `inner`. */
function wrapped(inner: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Error> {
  return fc
    .tuple(
      inner,
      fc.string({ maxLength: 40 }),
      fc.array(fc.constantFrom(...WRAPPERS.filter((w) => w !== 'SequelizeConnectionError')), { maxLength: 2 }),
      fc.constantFrom('sequelize', 'cause'),
    )
    .map(([fields, message, wrappers, style]) => {
      let error: Error = Object.assign(new Error(message), fields);
      for (const name of wrappers) {
        const outer = Object.assign(new Error(error.message), { name });
        error =
          style === 'sequelize'
            ? Object.assign(outer, { original: error, parent: error })
            : Object.assign(outer, { cause: error });
      }
      return error;
    });
}

/** An error, possibly wrapped, that carries one outage mark and no timeout mark. */
export const outageErrorArb: fc.Arbitrary<Error> = wrapped(fc.constantFrom(...OUTAGE_MARKS));

/** An error, possibly wrapped, that carries one timeout mark (and maybe an outage mark too: a cancelled query's connection may also have gone). */
export const timeoutErrorArb: fc.Arbitrary<Error> = wrapped(
  fc
    .tuple(fc.constantFrom(...TIMEOUT_MARKS), fc.option(fc.constantFrom(...OUTAGE_MARKS), { nil: undefined }))
    .map(([mark, outage]) => ({ ...outage, ...mark })),
);

/** An error, possibly wrapped in errors that are no outage either, that is no outage and no timeout. */
export const otherFaultArb: fc.Arbitrary<Error> = fc
  .tuple(
    fc.subarray([...OTHER_FIELDS], { minLength: 1, maxLength: 3 }),
    fc.array(fc.constantFrom('SequelizeDatabaseError', 'Error'), { maxLength: 2 }),
  )
  .map(([fields, wrappers]) => {
    let error: Error = Object.assign(new Error('fault'), ...fields);
    for (const name of wrappers)
      error = Object.assign(new Error(error.message), { name, original: error, parent: error });
    return error;
  });
