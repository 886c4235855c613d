/** The one mapping from a thrown value to a reply: client errors become fail, the rest a bare 500. */
import { camelCase } from 'change-case';
import type { Reply } from '../types.js';
import { HttpStatus } from './http-status.js';
import { error, fail } from './jsend.js';

const NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(HttpStatus).map(([name, code]) => [code, camelCase(name)] as const),
);

/**
 * The reply for anything an action or hook throws. An HTTP error meant for the client
 * (`ctx.throw(409, 'msg')`, http-errors with a 4xx status) becomes a JSend fail with its
 * status and message; anything else is a 500 JSend error that carries nothing of the fault.
 * @example replyForError(Object.assign(new Error('Taken'), { status: 409, expose: true }))
 *   // { status: 409, body: { status: 'fail', data: [{ field: null, error: 'conflict', message: 'Taken' }], meta: {} } }
 */
export function replyForError(thrown: unknown): Reply {
  if (!isClientHttpError(thrown)) return error();
  const field = typeof thrown.field === 'string' ? thrown.field : null;
  return fail(thrown.status, [{ field, error: NAMES.get(thrown.status) ?? 'clientError', message: thrown.message }]);
}

interface ClientHttpError {
  readonly status: number;
  readonly expose: true;
  readonly message: string;
  readonly field?: unknown;
}

function isClientHttpError(thrown: unknown): thrown is ClientHttpError {
  if (!(thrown instanceof Error)) return false;
  const { status, expose } = thrown as Partial<ClientHttpError>;
  return expose === true && typeof status === 'number' && status >= 400 && status < 500;
}
