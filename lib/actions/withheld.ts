/**
 * Stored JSON values nested deeper than `global.max_depth` (written by something other than this
 * library): withheld from replies, so one such row cannot make every read of its resource overflow
 * the stack (Sequelize's `toJSON` clones values recursively, and so does `JSON.stringify`).
 */
import type { Context } from 'koa';
import type { Model, ModelStatic } from 'sequelize';
import { kindOf } from '../core/attribute-kinds.js';
import { tooDeepAt } from '../core/depth.js';

/** A value withheld from a reply: the row's primary key, the attribute, and why. */
export interface WithheldValue {
  readonly id: unknown;
  readonly field: string;
  readonly message: string;
}

/** Internal: the `ctx.state` key the withheld values of one request are collected under; the route adds them to `meta.withheld`. */
export const WITHHELD: unique symbol = Symbol('koa-fast-crud: withheld values');

/**
 * The JSON attributes of a model and its primary key: what `withholdDeep` looks at.
 * @example jsonAttributesOf(Doc) // { json: ['meta'], key: 'id' }
 */
export function jsonAttributesOf(model: ModelStatic<Model>): { readonly json: readonly string[]; readonly key: string | undefined } {
  const attributes = model.getAttributes();
  return {
    json: Object.keys(attributes).filter((name) => kindOf(attributes[name]!) === 'json'),
    key: Object.keys(attributes).find((name) => attributes[name]!.primaryKey),
  };
}

/**
 * Replaces, in place, each JSON value of `values` nested deeper than `max` with null, and notes it
 * on the request (`meta.withheld` of the reply). `values` is a raw row or an instance's `dataValues`
 * (set directly: Sequelize's `set` would compare the old value recursively).
 * @example withholdDeep(ctx, record.dataValues, jsonAttributesOf(Doc), 64)
 */
export function withholdDeep(ctx: Context, values: Record<string, unknown>, attributes: ReturnType<typeof jsonAttributesOf>, max: number): void {
  for (const field of attributes.json) {
    const value = values[field];
    if (typeof value !== 'object' || value === null || tooDeepAt(value, max) === undefined) continue;
    values[field] = null;
    const state = ctx.state as Record<symbol, WithheldValue[] | undefined>;
    const id = attributes.key === undefined ? null : values[attributes.key] ?? null;
    (state[WITHHELD] ??= []).push({ id, field, message: `The stored value of ${field} nests arrays or objects deeper than ${max} levels (global.max_depth); it is withheld` });
  }
}

/**
 * A reply's meta with the request's withheld values added as `withheld`, when there are any.
 * @example ctx.body = { ...body, meta: withheldMeta(ctx, body.meta) };
 */
export function withheldMeta(ctx: Context, meta: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const withheld = (ctx.state as Record<symbol, WithheldValue[] | undefined> | undefined)?.[WITHHELD];
  return withheld === undefined || withheld.length === 0 ? meta : { ...meta, withheld };
}
