/**
 * Stored JSON values nested deeper than `global.max_depth` (written by something other than this
 * library): withheld from replies, so one such row cannot make every read of its resource overflow
 * the stack (Sequelize's `toJSON` clones values recursively, and so does `JSON.stringify`). Each is noted
 * for the Koa layer, which lists them in the reply's `meta.withheld` (koa/withheld-meta.ts).
 */
import type { Context } from 'koa';
import { Model, type ModelStatic } from 'sequelize';
import { kindOf } from '../core/attribute-kinds.js';
import { tooDeepAt } from '../core/depth.js';
import { noteWithheld } from '../resource/withheld-notes.js';

/** The JSON attributes of a model and its primary key: what `withholdDeep` looks at. */
interface JsonAttributes {
  readonly json: readonly string[];
  readonly key: string | undefined;
}

const jsonByModel = new WeakMap<ModelStatic<Model>, JsonAttributes>();

/** A model's JSON attributes and primary key, worked out once per model. */
function jsonAttributesOf(model: ModelStatic<Model>): JsonAttributes {
  let found = jsonByModel.get(model);
  if (found === undefined) {
    const attributes = model.getAttributes();
    found = {
      json: Object.keys(attributes).filter((name) => kindOf(attributes[name]!) === 'json'),
      key: Object.keys(attributes).find((name) => attributes[name]!.primaryKey),
    };
    jsonByModel.set(model, found);
  }
  return found;
}

/**
 * Replaces, in place, each JSON value of `values` nested deeper than `max` with null, and notes it
 * on the request (`meta.withheld` of the reply) under `path` + its name. `values` is a raw row or an
 * instance's `dataValues` (set directly: Sequelize's `set` would compare the old value recursively).
 */
function withholdDeep(
  ctx: Context,
  values: Record<string, unknown>,
  attributes: JsonAttributes,
  max: number,
  path: string,
): void {
  for (const name of attributes.json) {
    const value = values[name];
    if (typeof value !== 'object' || value === null || tooDeepAt(value, max) === undefined) continue;
    values[name] = null;
    const id = attributes.key === undefined ? null : (values[attributes.key] ?? null);
    const field = `${path}${name}`;
    noteWithheld(ctx, { id, field, message: withheldMessage(field, max) });
  }
}

function withheldMessage(field: string, max: number): string {
  const nests = `nests arrays or objects deeper than ${max} levels (global.max_depth)`;
  return `The stored value of ${field} ${nests}; it is withheld`;
}

/** An array or a plain object, as a driver parses a JSON column: what may nest (a Date or a Buffer does not). */
function isJsonContainer(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

/**
 * `withholdDeep` for the raw rows of an options list: a `label` or `value` nested deeper than `max`
 * (a JSON column, parsed by the PostgreSQL or MariaDB driver) becomes null, noted with the item's
 * index and the column asked for (`columns`). Rows are changed in place, their keys in the same order.
 * @example withholdDeepOptions(ctx, rows, 64, { label: 'name', value: 'meta' })
 *   // a deep meta → null, noted as item 3's 'meta'
 */
export function withholdDeepOptions(
  ctx: Context,
  rows: readonly Record<string, unknown>[],
  max: number,
  columns: { readonly label: string; readonly value: string },
): void {
  rows.forEach((row, item) => {
    for (const key of ['label', 'value'] as const) {
      const value = row[key];
      if (!isJsonContainer(value) || tooDeepAt(value, max) === undefined) continue;
      row[key] = null;
      noteWithheld(ctx, { id: null, field: columns[key], item, message: withheldMessage(columns[key], max) });
    }
  });
}

/**
 * `withholdDeep` for raw rows of a model (search's fast path, which reads no includes).
 * @example withholdDeepRows(ctx, Doc, rows, 64) // a deep meta → null, noted as 'meta'
 */
export function withholdDeepRows(
  ctx: Context,
  model: ModelStatic<Model>,
  rows: readonly Record<string, unknown>[],
  max: number,
): void {
  const json = jsonAttributesOf(model);
  if (json.json.length > 0) for (const row of rows) withholdDeep(ctx, row, json, max, '');
}

/**
 * `withholdDeep` for a model instance and every instance included with it (`include=`, nested
 * ones too), each by its own model's JSON attributes: an included record's deep value would
 * overflow `toJSON` as the row's own would.
 * @example withholdDeepRecord(ctx, Product, record, 64) // a deep category.meta → null, noted as 'category.meta'
 */
export function withholdDeepRecord(
  ctx: Context,
  model: ModelStatic<Model>,
  record: Model,
  max: number,
  path = '',
): void {
  const json = jsonAttributesOf(model);
  const values = record.dataValues as Record<string, unknown>;
  if (json.json.length > 0) withholdDeep(ctx, values, json, max, path);
  for (const name in model.associations) {
    const included = values[name];
    if (included === null || included === undefined) continue;
    const target = model.associations[name]!.target;
    for (const child of Array.isArray(included) ? included : [included]) {
      if (child instanceof Model) withholdDeepRecord(ctx, target, child, max, `${path}${name}.`);
    }
  }
}
