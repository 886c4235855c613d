/** JSend replies as values: success, fail and error bodies with their statuses. */
import type { ErrorCode, FailItem, OptionsError, Reply } from '../types.js';
import type { DatabaseFailure } from './db-failure.js';
import { statusOf } from './error-codes.js';

/**
 * A success reply.
 * @example success([{ label: 'Books', value: 1 }])
 *   // { status: 200, body: { status: 'success', data: [...], meta: {} } }
 */
export function success(data: unknown, status = 200, meta: Readonly<Record<string, unknown>> = {}): Reply {
  return { status, body: { status: 'success', data, meta } };
}

/**
 * A fail reply: the client's request is at fault, for the reasons listed.
 * @example fail(403, [{ field: null, error: 'forbidden', message: 'Forbidden' }])
 */
export function fail(status: number, items: readonly FailItem[], meta: Readonly<Record<string, unknown>> = {}): Reply {
  return { status, body: { status: 'fail', data: items, meta } };
}

/**
 * An error reply: the server is at fault. The message is fixed so nothing internal leaks.
 * @example error() // { status: 500, body: { status: 'error', message: 'Internal Server Error' } }
 */
export function error(status = 500, message = 'Internal Server Error'): Reply {
  return { status, body: { status: 'error', message } };
}

/**
 * `reply` with one more response header (replacing one of that name). Built field by field: in Node 20's V8, a literal
 * that spreads an object and then adds a key (`{ ...reply, headers }`, `{ ...headers, Location }`) makes a new hidden
 * class on every call, old-space garbage under load (the performance page, stop 32;
 * `spec/architecture/hidden-classes.spec.ts`).
 * @example withHeader(success({ id: 7 }, 201), 'Location', '/products/7').headers // { Location: '/products/7' }
 */
export function withHeader(reply: Reply, name: string, value: string): Reply {
  const headers: Record<string, string> = Object.assign({}, reply.headers);
  headers[name] = value;
  return { status: reply.status, body: reply.body, headers };
}

/**
 * A 503 error reply for a database failure the client may retry: the code says which
 * (`databaseUnavailable`, `databaseTimeout`), `Retry-After` says when, and nothing of the fault is in it.
 * @example unavailable('databaseTimeout')
 *   // { status: 503, headers: { 'Retry-After': '1' }, body: { status: 'error', code: 'databaseTimeout', message: 'The
 *   // database did not answer in time' } }
 */
export function unavailable(code: DatabaseFailure, retryAfterSeconds = RETRY_AFTER_SECONDS): Reply {
  return {
    status: statusOf(code),
    headers: { 'Retry-After': String(retryAfterSeconds) },
    body: { status: 'error', code, message: UNAVAILABLE_MESSAGES[code] },
  };
}

/**
 * The `Retry-After` of a 503, in seconds. Recovery after an outage was measured at 0.05 s, so one
 * second lets a client come back soon without a tight loop; clients should add jitter.
 * @example RETRY_AFTER_SECONDS // 1
 */
export const RETRY_AFTER_SECONDS = 1;

const UNAVAILABLE_MESSAGES: Readonly<Record<DatabaseFailure, string>> = {
  databaseUnavailable: 'The database is unavailable',
  databaseTimeout: 'The database did not answer in time',
};

/**
 * The fail item of an options planning error, with a message a person can act on.
 * @example failItemOf({ _tag: 'required', field: 'label' })
 *   // { field: 'label', error: 'required', message: 'The label field is required' }
 */
export function failItemOf(optionsError: OptionsError): FailItem<ErrorCode> {
  const { _tag, field } = optionsError;
  switch (_tag) {
    case 'required':
      return { field, error: _tag, message: `The ${field} field is required` };
    case 'columnNotFound':
      return { field, error: _tag, message: `The column ${JSON.stringify(field)} was not found` };
  }
}
