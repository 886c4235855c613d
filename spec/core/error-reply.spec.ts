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
});

describe('clientErrorOf', () => {
  it("returns a client error with the table's status, which replyForError answers as it is", () => {
    const thrown = clientErrorOf('contentTooLarge', 'The body is larger than 64 bytes', 'body');
    assert.deepEqual([thrown.status, thrown.expose, thrown.error, thrown.field], [413, true, 'contentTooLarge', 'body']);
    assert.deepEqual(replyForError(thrown, 422), {
      status: 413,
      body: { status: 'fail', data: [{ field: 'body', error: 'contentTooLarge', message: 'The body is larger than 64 bytes' }], meta: {} },
    });
  });
});
