import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientErrorOf, replyForError } from '../../lib/core/error-reply.js';

const httpError = (status: number, message: string, extra: object = {}) =>
  Object.assign(new Error(message), { status, expose: status < 500, ...extra });

describe('replyForError', () => {
  it('returns a JSend fail with the status and message of a client HTTP error', () => {
    assert.deepEqual(replyForError(httpError(409, 'Name taken')), {
      status: 409,
      body: { status: 'fail', data: [{ field: null, error: 'conflict', message: 'Name taken' }], meta: {} },
    });
  });

  it('returns the field an HTTP error names', () => {
    const reply = replyForError(httpError(422, 'Too long', { field: 'name' }));
    assert.deepEqual(reply.body, {
      status: 'fail',
      data: [{ field: 'name', error: 'unprocessableEntity', message: 'Too long' }],
      meta: {},
    });
  });

  it('returns a bare 500 error for server HTTP errors, unexposed errors and non-errors', () => {
    const bare = { status: 500, body: { status: 'error', message: 'Internal Server Error' } };
    assert.deepEqual(replyForError(httpError(503, 'db down: SELECT * FROM secrets')), bare);
    assert.deepEqual(replyForError(Object.assign(new Error('SELECT 1'), { status: 400, expose: false })), bare);
    assert.deepEqual(replyForError(new Error('SQLITE_ERROR: no such table')), bare);
    assert.deepEqual(replyForError('a string'), bare);
    assert.deepEqual(replyForError({ status: 404, expose: true, message: 'not an Error' }), bare);
  });

  it("returns a fail at the validation status for a CHECK constraint's refusal, naming a MariaDB column check's column", () => {
    const databaseError = (message: string, original: object) =>
      Object.assign(new Error(message), { name: 'SequelizeDatabaseError', original });
    const mariadb = databaseError(
      '(conn=7, no: 4025, SQLState: 23000) CONSTRAINT `shop_docs.meta` failed for `test`.`shop_docs`\nsql: INSERT …',
      { errno: 4025, sqlState: '23000' },
    );
    assert.deepEqual(replyForError(mariadb, 422), {
      status: 422,
      body: {
        status: 'fail',
        data: [{ field: 'meta', error: 'invalidValue', message: 'The meta is not a value its column accepts' }],
        meta: {},
      },
    });
    const postgres = databaseError('new row for relation "docs" violates check constraint "price_positive"', {
      code: '23514',
    });
    assert.deepEqual(replyForError(postgres).body, {
      status: 'fail',
      data: [{ field: null, error: 'invalidValue', message: "A value breaks one of the table's CHECK constraints" }],
      meta: {},
    });
    const other = databaseError('CONSTRAINT `x.y` failed', { errno: 1064, sqlState: '42000' });
    assert.equal(replyForError(other).status, 500);
  });
});

describe('replyForError with Standard Schema issues', () => {
  const withIssues = (issues: unknown) => Object.assign(new Error('Validation failed'), { name: 'ZodError', issues });

  it('returns a fail at the validation status with one schema item per issue, and nothing else of the error', () => {
    const thrown = withIssues([
      { code: 'too_big', maximum: 100, input: 'secret input', message: 'Too big', path: ['price'] },
      { message: 'Bad', path: ['tags', 0, { key: 'name' }] },
    ]);
    assert.deepEqual(replyForError(thrown), {
      status: 400,
      body: {
        status: 'fail',
        data: [
          { field: 'price', error: 'schema', message: 'Too big' },
          { field: 'tags.0.name', error: 'schema', message: 'Bad' },
        ],
        meta: {},
      },
    });
    assert.equal(replyForError(thrown, 422).status, 422);
  });

  it('returns a bare 500 when the issues do not have the exact shape, or the value is not an Error', () => {
    const bare = { status: 500, body: { status: 'error', message: 'Internal Server Error' } };
    for (const issues of [
      [],
      [{ msg: 'x' }],
      [{ message: 'x', path: 'price' }],
      'issues',
      [{ message: 'x', path: [{ k: 1 }] }],
    ]) {
      assert.deepEqual(replyForError(withIssues(issues)), bare, JSON.stringify(issues));
    }
    assert.deepEqual(replyForError({ issues: [{ message: 'not an Error' }] }), bare);
  });
});

describe('clientErrorOf', () => {
  it("returns a client error with the table's status, which replyForError answers as it is", () => {
    const thrown = clientErrorOf('contentTooLarge', 'The body is larger than 64 bytes', 'body');
    assert.deepEqual(
      [thrown.status, thrown.expose, thrown.error, thrown.field],
      [413, true, 'contentTooLarge', 'body'],
    );
    assert.deepEqual(replyForError(thrown, 422), {
      status: 413,
      body: {
        status: 'fail',
        data: [{ field: 'body', error: 'contentTooLarge', message: 'The body is larger than 64 bytes' }],
        meta: {},
      },
    });
  });
});

describe('replyForError with constraint fields', () => {
  const fields = {
    columns: new Map([
      ['author_id', 'authorId'],
      ['authorId', 'authorId'],
      ['token', 'token'],
    ]),
    visible: new Set(['authorId']),
  };
  const unique = (column: string) =>
    Object.assign(new Error('Validation error'), {
      name: 'SequelizeUniqueConstraintError',
      errors: [{ path: column, message: `${column} must be unique` }],
    });
  const fieldOf = ({ body }: ReturnType<typeof replyForError>) =>
    body.status === 'fail' ? body.data[0]?.field : body.status;
  const foreignKey = (extra: object) =>
    Object.assign(new Error('insert or update violates foreign key constraint'), {
      name: 'SequelizeForeignKeyConstraintError',
      fields: null,
      ...extra,
    });

  it("names a foreign key's attribute from PostgreSQL's detail, and none for a row still referenced", () => {
    const child = foreignKey({
      original: { code: '23503', detail: 'Key (author_id)=(5) is not present in table "authors".' },
    });
    assert.deepEqual(replyForError(child, 400, fields).body, {
      status: 'fail',
      data: [{ field: 'authorId', error: 'foreignKey', message: 'The change conflicts with related records' }],
      meta: {},
    });
    assert.deepEqual(fieldOf(replyForError(child)), 'author_id');
    const parent = foreignKey({
      original: { code: '23503', detail: 'Key (id)=(5) is still referenced from table "books".' },
    });
    assert.deepEqual(fieldOf(replyForError(parent, 400, fields)), null);
    const mariadbParent = foreignKey({ fields: ['authorId'], reltype: 'parent' });
    assert.deepEqual(fieldOf(replyForError(mariadbParent, 400, fields)), null);
  });

  it('answers a unique refusal on a hidden column with no field and a message that names no column', () => {
    assert.deepEqual(replyForError(unique('token'), 400, fields), {
      status: 409,
      body: {
        status: 'fail',
        data: [{ field: null, error: 'unique', message: 'The change conflicts with a unique constraint' }],
        meta: {},
      },
    });
    assert.deepEqual(replyForError(unique('author_id'), 400, fields).body, {
      status: 'fail',
      data: [{ field: 'authorId', error: 'unique', message: 'The authorId is already taken' }],
      meta: {},
    });
  });
});
