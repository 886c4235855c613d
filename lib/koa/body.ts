/** readJsonBody: the request's JSON body, read once with a size limit; failures are client errors. */
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { clientErrorOf } from '../core/error-reply.js';

/**
 * The parsed JSON body, or undefined when the request has none. A body another middleware
 * already parsed (`ctx.request.body`) is used as it is. Throws client errors: 415 when it is not
 * JSON, 413 over `limit` bytes, 400 when malformed.
 * @example const body = await readJsonBody(ctx, 1_048_576);
 */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const parsed = (ctx.request as { body?: unknown }).body;
  if (parsed !== undefined) return parsed;
  if (!ctx.request.length && ctx.get('transfer-encoding') === '') return undefined;
  if (!ctx.is('json')) throw clientErrorOf('unsupportedMediaType', 'The body must be JSON (Content-Type: application/json)', 'body');
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit, encoding: 'utf8', length: ctx.request.length });
  } catch (cause) {
    if ((cause as { type?: string }).type === 'entity.too.large') {
      throw clientErrorOf('contentTooLarge', `The body is larger than ${limit} bytes`, 'body');
    }
    throw clientErrorOf('invalidBody', 'The body could not be read', 'body');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw clientErrorOf('invalidJson', 'The body is not valid JSON', 'body');
  }
}
