/**
 * The values withheld from one request's reply, noted by the actions and read by the Koa layer,
 * which adds them to the reply's `meta.withheld`.
 */
import type { Context } from 'koa';

/** A value withheld from a reply: the primary key of its row (of the included record, for one), the attribute, why. */
export interface WithheldValue {
  /** The row's primary key; null in an options list, which selects none. */
  readonly id: unknown;
  /**
   * The attribute, after its association path for an included record (`category.meta`); in options, the
   * `label` or `value` column asked for.
   */
  readonly field: string;
  /** In options: the index of the item in the list whose `label` or `value` is withheld. */
  readonly item?: number;
  readonly message: string;
}

/** Each request's withheld values, by its Koa context: gone with the request, and never in `ctx.state`. */
const notes = new WeakMap<Context, WithheldValue[]>();

/**
 * Notes a value withheld from this request's reply.
 * @example noteWithheld(ctx, { id: 7, field: 'meta', message: 'The stored value of meta nests …' })
 */
export function noteWithheld(ctx: Context, withheld: WithheldValue): void {
  const list = notes.get(ctx) ?? [];
  list.push(withheld);
  notes.set(ctx, list);
}

/**
 * Forgets the values noted after the first `count`: those of a serialization that made no reply (a write's
 * precondition, which serializes the record as a read would).
 * @example const count = withheldValues(ctx)?.length ?? 0; …; forgetWithheldSince(ctx, count);
 */
export function forgetWithheldSince(ctx: Context, count: number): void {
  const list = notes.get(ctx);
  if (list === undefined) return;
  if (count === 0) notes.delete(ctx);
  else list.length = Math.min(list.length, count);
}

/**
 * The values withheld from this request's reply so far, or undefined when none were.
 * @example withheldValues(ctx) // [{ id: 7, field: 'meta', message: … }]
 */
export function withheldValues(ctx: Context): readonly WithheldValue[] | undefined {
  return notes.get(ctx);
}
