/** Pure plans for single-record actions: the lookup of `{id}`, the writable part of a body, the serialized record. */
import * as E from 'fp-ts/lib/Either.js';
import type { AttributeDefinition, AttributeSource, ErrorCode, FailItem, FieldPolicy } from '../types.js';
import { checkBodyValue, checkFormValue, coerceQueryValue, kindOf, refusalCode } from './attribute-kinds.js';
import { isUuid } from './route-path.js';
import { findColumn } from './columns.js';
import { findFieldNamed } from './find-field.js';

/** Which rows a lookup may find, by the deleted-at attribute. */
export type Scope = 'active' | 'trashed' | 'any';

/** A record lookup: the where clause (attribute names) and whether Sequelize's paranoid filter is off. */
export interface Lookup {
  readonly where: Readonly<Record<string, unknown>>;
  readonly paranoid: boolean;
}

/** A `not null` marker that compileLookup (lib/compile/lookup.ts) turns into `{ [Op.ne]: null }`. */
export const NOT_NULL = Object.freeze({ notNull: true as const });

/**
 * The lookup for `{id}` in the find field, or undefined when the id cannot be a value of that
 * attribute (so nothing can match: 404 with no query). The find field falls back to the primary key.
 * @example lookupFor(Product, 'id', '7f…', 'active', 'deletedAt')
 *   // { where: { id: '7f…', deletedAt: null }, paranoid: true }
 */
export function lookupFor(
  model: AttributeSource,
  findField: string,
  id: string,
  scope: Scope,
  deletedAt: string | undefined,
): Lookup | undefined {
  const found = findFieldNamed(model, findField);
  if (found === undefined) return undefined;
  const { attribute, definition } = found;
  const value = coerceQueryValue(definition, id);
  if (E.isLeft(value)) return undefined;
  const marker =
    deletedAt === undefined || scope === 'any' ? {} : { [deletedAt]: scope === 'active' ? null : NOT_NULL };
  return { where: { [attribute]: uuidForms(definition, value.right), ...marker }, paranoid: scope === 'active' };
}

/**
 * What a lookup compares `{id}` with: a UUID in a text column (which compares case-sensitively on
 * SQLite and PostgreSQL) matches it written in lower or upper case, as a UUID column does on every
 * database; any other value is itself. A UUID column's value is already lower-cased by `coerceQueryValue`.
 * @example uuidForms({ type: DataTypes.STRING(36) }, 'AB6F…') // ['ab6f…', 'AB6F…']
 */
export function uuidForms(definition: AttributeDefinition, value: unknown): unknown {
  if (kindOf(definition) !== 'string' || typeof value !== 'string' || !isUuid(value)) return value;
  const lower = value.toLowerCase();
  const upper = value.toUpperCase();
  return lower === upper ? lower : [lower, upper];
}

/**
 * The part of a body a client may write, keyed by attribute name, with every value checked against
 * its attribute's kind. Keys that are not fillable are dropped. Left `emptyPayload` for a body that
 * is not a non-empty object; Left with one item per bad value otherwise. With `form`, the body came
 * as `application/x-www-form-urlencoded`, so booleans may be the text `true`/`false`/`1`/`0`.
 * @example fillableData(Product, { name: 'Kite', id: 'x', price: 'cheap' }, policy)
 *   // left([{ field: 'price', error: 'type', value: 'cheap', message: 'price must be a number' }])
 */
export function fillableData(
  model: AttributeSource,
  body: unknown,
  policy: FieldPolicy,
  form = false,
): E.Either<FailItem<ErrorCode>[], Record<string, unknown>> {
  const payload = payloadOf(body);
  return E.isLeft(payload) ? E.left([payload.left]) : fillableFields(model, payload.right, policy, form);
}

/**
 * A body as a write's payload: a non-empty object; Left `emptyPayload` for anything else
 * (nothing, an empty object, an array, a scalar).
 * @example payloadOf([]) // left({ field: 'body', error: 'emptyPayload', … })
 */
export function payloadOf(body: unknown): E.Either<FailItem<ErrorCode>, Readonly<Record<string, unknown>>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length === 0) {
    return E.left({
      field: 'body',
      error: 'emptyPayload',
      message: 'The body must be a JSON object with at least one field',
    });
  }
  return E.right(body as Readonly<Record<string, unknown>>);
}

/**
 * The fillable fields of an object, each value checked against its attribute's kind (`checkFormValue`
 * for a form body); other keys are dropped. Left with one item per bad value: `type`, or
 * `invalidValue` for a date that does not exist (`2024-02-30`) or lies outside the years 1000 to 9999.
 * @example fillableFields(Product, { name: 'Kite', id: 'x' }, policy) // right({ name: 'Kite' })
 */
export function fillableFields(
  model: AttributeSource,
  fields: Readonly<Record<string, unknown>>,
  policy: FieldPolicy,
  form = false,
): E.Either<FailItem<ErrorCode>[], Record<string, unknown>> {
  const attributes = model.getAttributes();
  const check = form ? checkFormValue : checkBodyValue;
  const failures: FailItem<ErrorCode>[] = [];
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const attribute = findColumn(model, key)?.attribute;
    if (attribute === undefined || !policy.fillable.has(attribute)) continue;
    const checked = check(attributes[attribute]!, value);
    if (E.isLeft(checked)) {
      const message = `${key} ${checked.left}`;
      failures.push(
        refusalCode(attributes[attribute]!, value) === 'invalidValue'
          ? { field: key, error: 'invalidValue', value, message }
          : { field: key, error: 'type', value, message },
      );
    } else data[attribute] = checked.right;
  }
  return failures.length > 0 ? E.left(failures) : E.right(data);
}

/**
 * A serialized record without the model attributes the policy does not show (associations stay).
 * @example visibleFields(User, { id: 1, name: 'Ada', password: 'x' }, policy) // { id: 1, name: 'Ada' }
 */
export function visibleFields(
  model: AttributeSource,
  serialized: Readonly<Record<string, unknown>>,
  policy: FieldPolicy,
): Record<string, unknown> {
  const attributes = model.getAttributes();
  return Object.fromEntries(
    Object.entries(serialized).filter(([key]) => !Object.hasOwn(attributes, key) || policy.visible.has(key)),
  );
}
