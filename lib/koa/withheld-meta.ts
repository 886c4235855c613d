/** The withheld values of a request (see actions/withheld.ts) as its reply's `meta.withheld`. */
import type { Context } from 'koa';
import { withheldValues } from '../resource/withheld-notes.js';

/**
 * A reply's meta with the request's withheld values added as `withheld`, when there are any.
 * @example ctx.body = { ...body, meta: withheldMeta(ctx, body.meta) };
 */
export function withheldMeta(ctx: Context, meta: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const withheld = withheldValues(ctx);
  return withheld === undefined || withheld.length === 0 ? meta : { ...meta, withheld };
}
