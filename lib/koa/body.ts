/** The request body of create and update: JSON or a form, read once with a size limit; failures are client errors. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { clientErrorOf } from '../core/error-reply.js';
import { parseBrackets } from '../core/qs-limits.js';
import type { RequestBody } from '../resource/scope.js';

/**
 * The parsed body: JSON, or an `application/x-www-form-urlencoded` form parsed with qs within the
 * query-string limits (brackets at most 3 deep, 200 parameters, lists of 100 items). A body another
 * middleware already parsed (`ctx.request.body`) is used as it is. Throws client errors: 415 for
 * any other type, 413 over `limit` bytes, 400 when malformed or beyond a form limit. Read once per request:
 * a second call answers the first one's value (or failure).
 * @example const { value, form } = await readBody(ctx, 1_048_576);
 */
export function readBody(ctx: Context, limit: number): Promise<RequestBody> {
  const known = bodies.get(ctx);
  if (known !== undefined) return known;
  const read = readOnce(ctx, limit);
  bodies.set(ctx, read);
  return read;
}

/** Each request's body, read once: create many looks at it before create reads it again. */
const bodies = new WeakMap<Context, Promise<RequestBody>>();

async function readOnce(ctx: Context, limit: number): Promise<RequestBody> {
  const form = ctx.is('urlencoded') === 'urlencoded';
  const parsed = (ctx.request as { body?: unknown }).body;
  if (parsed !== undefined) return { value: parsed, form };
  if (!ctx.request.length && ctx.get('transfer-encoding') === '') return { value: undefined, form };
  if (form) return { value: parseForm(await readText(ctx, limit)), form };
  if (!ctx.is('json')) {
    throw clientErrorOf(
      'unsupportedMediaType',
      'The body must be JSON (Content-Type: application/json) or a form (application/x-www-form-urlencoded)',
      'body',
    );
  }
  return { value: parseJson(await readText(ctx, limit)), form };
}

async function readText(ctx: Context, limit: number): Promise<string> {
  try {
    return await getRawBody(ctx.req, { limit, encoding: 'utf8', length: ctx.request.length });
  } catch (cause) {
    // The rest of the body stays unread, so this connection cannot carry another request: close it after the reply.
    ctx.set('Connection', 'close');
    if ((cause as { type?: string }).type === 'entity.too.large') {
      throw clientErrorOf('contentTooLarge', `The body is larger than ${limit} bytes`, 'body');
    }
    throw clientErrorOf('invalidBody', 'The body could not be read', 'body');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw clientErrorOf('invalidJson', 'The body is not valid JSON', 'body');
  }
}

function parseForm(text: string): Record<string, unknown> {
  const parsed = parseBrackets(text, 'The body');
  if (E.isLeft(parsed)) throw clientErrorOf('invalidForm', parsed.left, 'body');
  return parsed.right;
}
