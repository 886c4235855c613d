import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ConnectionAcquireTimeoutError,
  ConnectionRefusedError,
  DatabaseError,
  AccessDeniedError,
  TimeoutError,
  UniqueConstraintError,
} from 'sequelize';
import { classifyDatabaseError, isUnknownColumn, isUnreadableJson } from '../../lib/core/db-failure.js';
import { replyForError } from '../../lib/core/error-reply.js';
import { unavailable } from '../../lib/core/jsend.js';
import { otherFaultArb, outageErrorArb, timeoutErrorArb } from '../arbitraries/db-error-arb.js';

const driverError = (message: string, fields: object) => Object.assign(new Error(message), fields);
/** Sequelize's DatabaseError reads `sql` and `parameters` from its parent. */
const dbError = (parent: Error) =>
  new DatabaseError(Object.assign(parent, { sql: 'SELECT * FROM "secrets"', parameters: [] }) as never);

describe('classifyDatabaseError', () => {
  it('returns databaseUnavailable for the ConnectionError family and driver connection failures', () => {
    const refused = new ConnectionRefusedError(
      driverError('connect ECONNREFUSED 10.0.0.5:5432', { code: 'ECONNREFUSED' }),
    );
    assert.equal(classifyDatabaseError(refused), 'databaseUnavailable');
    assert.equal(
      classifyDatabaseError(new ConnectionAcquireTimeoutError(new Error('Operation timeout'))),
      'databaseUnavailable',
    );
    assert.equal(
      classifyDatabaseError(
        new TimeoutError(driverError('SQLITE_BUSY: database is locked', { code: 'SQLITE_BUSY' }) as never),
      ),
      'databaseUnavailable',
    );
    assert.equal(
      classifyDatabaseError(
        dbError(driverError('terminating connection due to administrator command', { code: '57P01' })),
      ),
      'databaseUnavailable',
    );
    assert.equal(
      classifyDatabaseError(dbError(driverError('read ECONNRESET', { code: 'ECONNRESET', errno: -104 }))),
      'databaseUnavailable',
    );
    assert.equal(
      classifyDatabaseError(dbError(driverError('Connection terminated unexpectedly', {}))),
      'databaseUnavailable',
    );
    // A hot standby cancels a query, or ends an idle-in-transaction session, whose snapshot replay conflicts with.
    for (const message of [
      'canceling statement due to conflict with recovery',
      'terminating connection due to conflict with recovery',
    ])
      assert.equal(classifyDatabaseError(dbError(driverError(message, { code: '40001' }))), 'databaseUnavailable');
    // The same in another language: node-postgres's `file` names where the server raised it.
    assert.equal(
      classifyDatabaseError(
        dbError(
          driverError('annulation de la requête à cause d’un conflit avec la restauration', {
            code: '40001',
            file: 'postgres.c',
          }),
        ),
      ),
      'databaseUnavailable',
    );
    // A serialization failure on the primary is not an outage.
    assert.equal(
      classifyDatabaseError(
        dbError(
          driverError('could not serialize access due to concurrent update', {
            code: '40001',
            file: 'nodeModifyTable.c',
          }),
        ),
      ),
      undefined,
    );
    assert.equal(
      classifyDatabaseError(
        dbError(
          driverError('socket has unexpectedly been closed', {
            code: 'ER_SOCKET_UNEXPECTED_CLOSE',
            errno: 45007,
            sqlState: '08S01',
            fatal: true,
          }),
        ),
      ),
      'databaseUnavailable',
    );
  });

  it('returns databaseTimeout for a passed deadline and a statement the database cancelled', () => {
    assert.equal(
      classifyDatabaseError(Object.assign(new Error('x'), { name: 'FastCrudDeadlineError' })),
      'databaseTimeout',
    );
    assert.equal(
      classifyDatabaseError(dbError(driverError('canceling statement due to statement timeout', { code: '57014' }))),
      'databaseTimeout',
    );
    assert.equal(
      classifyDatabaseError(
        dbError(
          driverError('Query execution was interrupted (max_statement_time exceeded)', {
            errno: 1969,
            sqlState: '70100',
            code: 'ER_STATEMENT_TIMEOUT',
          }),
        ),
      ),
      'databaseTimeout',
    );
  });

  it('returns undefined for other faults: SQL errors, constraints, a wrong password, non-errors', () => {
    assert.equal(
      classifyDatabaseError(dbError(driverError('relation "x" does not exist', { code: '42P01' }))),
      undefined,
    );
    assert.equal(classifyDatabaseError(new UniqueConstraintError({ message: 'Validation error' })), undefined);
    assert.equal(
      classifyDatabaseError(new AccessDeniedError(driverError('password authentication failed', { code: '28P01' }))),
      undefined,
    );
    assert.equal(classifyDatabaseError(new TypeError('x is not a function')), undefined);
    for (const value of [undefined, null, 'ECONNREFUSED', 42, Symbol('x')])
      assert.equal(classifyDatabaseError(value), undefined);
  });

  it('follows wrapped errors only 4 levels deep, and survives cycles and throwing getters', () => {
    const deep = [1, 2, 3, 4].reduce<object>((inner) => ({ name: 'Error', cause: inner }), { code: 'ECONNREFUSED' });
    assert.equal(classifyDatabaseError(deep), undefined);
    const cyclic: Record<string, unknown> = { name: 'Error' };
    cyclic['cause'] = cyclic;
    assert.equal(classifyDatabaseError(cyclic), undefined);
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('boom');
        },
      },
    );
    assert.equal(classifyDatabaseError(hostile), undefined);
    assert.equal(
      classifyDatabaseError({
        get code() {
          throw new Error('boom');
        },
        name: 'SequelizeConnectionError',
      }),
      'databaseUnavailable',
    );
  });

  it('law: never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (value) => {
        const failure = classifyDatabaseError(value);
        assert.ok(failure === undefined || failure === 'databaseUnavailable' || failure === 'databaseTimeout');
      }),
    );
  });

  it('law: an error that carries a connection failure, however wrapped, is databaseUnavailable', () => {
    fc.assert(
      fc.property(outageErrorArb, (error) => assert.equal(classifyDatabaseError(error), 'databaseUnavailable')),
    );
  });

  it('law: an error that carries a timeout is databaseTimeout, even when its connection went too', () => {
    fc.assert(fc.property(timeoutErrorArb, (error) => assert.equal(classifyDatabaseError(error), 'databaseTimeout')));
  });

  it('law: an error that carries neither is undefined', () => {
    fc.assert(fc.property(otherFaultArb, (error) => assert.equal(classifyDatabaseError(error), undefined)));
  });
});

describe('isUnreadableJson', () => {
  const malformed = () => driverError('SQLITE_ERROR: malformed JSON', { code: 'SQLITE_ERROR', errno: 1 });

  it("returns true for SQLite's malformed JSON, from the driver or wrapped by Sequelize", () => {
    assert.equal(isUnreadableJson(malformed()), true);
    assert.equal(isUnreadableJson(dbError(malformed())), true);
  });

  it('returns false for other SQLite errors, the same words from another database, and non-errors', () => {
    assert.equal(
      isUnreadableJson(dbError(driverError('SQLITE_ERROR: no such column: meta', { code: 'SQLITE_ERROR' }))),
      false,
    );
    assert.equal(isUnreadableJson(driverError('malformed JSON', { code: '22P02' })), false);
    for (const value of [undefined, null, 'SQLITE_ERROR: malformed JSON', 5])
      assert.equal(isUnreadableJson(value), false);
  });

  it('law: no outage, timeout or other fault is unreadable JSON', () => {
    fc.assert(
      fc.property(fc.oneof(outageErrorArb, timeoutErrorArb, otherFaultArb), (error) =>
        assert.equal(isUnreadableJson(error), false),
      ),
    );
  });
});

describe('isUnknownColumn', () => {
  it("returns true for each database's unknown column, from the driver or wrapped by Sequelize", () => {
    const errors = [
      driverError('column "legacy_code" does not exist', { code: '42703' }),
      driverError("(conn:3, no: 1054, SQLState: 42S22) Unknown column 'legacy_code' in 'field list'", {
        code: 'ER_BAD_FIELD_ERROR',
        errno: 1054,
        sqlState: '42S22',
      }),
      driverError('SQLITE_ERROR: no such column: legacy_code', { code: 'SQLITE_ERROR', errno: 1 }),
    ];
    for (const error of errors) {
      assert.equal(isUnknownColumn(error), true, error.message);
      assert.equal(isUnknownColumn(dbError(error)), true, error.message);
    }
  });

  it('returns false for an unknown table, other SQLite errors, and non-errors', () => {
    assert.equal(isUnknownColumn(dbError(driverError('relation "x" does not exist', { code: '42P01' }))), false);
    assert.equal(
      isUnknownColumn(driverError("Table 'x' doesn't exist", { code: 'ER_NO_SUCH_TABLE', errno: 1146 })),
      false,
    );
    assert.equal(isUnknownColumn(driverError('SQLITE_ERROR: no such table: x', { code: 'SQLITE_ERROR' })), false);
    assert.equal(isUnknownColumn(driverError('no such column: x', { code: '22P02' })), false);
    for (const value of [undefined, null, 'SQLITE_ERROR: no such column: x', 42703])
      assert.equal(isUnknownColumn(value), false);
  });

  it('law: no outage, timeout or other fault is an unknown column', () => {
    fc.assert(
      fc.property(fc.oneof(outageErrorArb, timeoutErrorArb, otherFaultArb), (error) =>
        assert.equal(isUnknownColumn(error), false),
      ),
    );
  });
});

describe('replyForError for database failures', () => {
  it('returns a 503 JSend error with the code and Retry-After, and nothing of the fault', () => {
    const refused = new ConnectionRefusedError(
      driverError('connect ECONNREFUSED 10.0.0.5:5432', { code: 'ECONNREFUSED' }),
    );
    assert.deepEqual(replyForError(refused), {
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { status: 'error', code: 'databaseUnavailable', message: 'The database is unavailable' },
    });
  });

  it('law: an outage or a timeout is answered by unavailable(code), whatever the error says', () => {
    fc.assert(
      fc.property(fc.oneof(outageErrorArb, timeoutErrorArb), (error) => {
        const reply = replyForError(error, 422);
        // A fixed value per code: no message, SQL, host or stack of the error can be in it.
        assert.deepEqual(reply, unavailable(classifyDatabaseError(error)!));
      }),
    );
  });

  it('law: any other fault is never a 503: a constraint or a bad value keeps its fail, the rest the bare 500', () => {
    fc.assert(
      fc.property(otherFaultArb, (error) => {
        const reply = replyForError(error);
        assert.notEqual(reply.status, 503);
        assert.equal(reply.headers, undefined);
        if (reply.status === 500)
          assert.deepEqual(reply, { status: 500, body: { status: 'error', message: 'Internal Server Error' } });
      }),
    );
  });
});
