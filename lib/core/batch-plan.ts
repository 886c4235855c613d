/**
 * Batch writes planned as values: the checks a batch request passes before anything is written, the fail items of
 * one item named by its index, and the records that can share one UPDATE statement.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { ErrorCode, FailItem, SearchPlan } from '../types.js';
import { everyCondition } from './filter-parser.js';

/**
 * The items of a create-many body: a non-empty array of at most `max` items; Left the fail item
 * (`emptyPayload` for an empty array, `tooManyRows` past `batch.max_records`).
 * @example batchItems([{ name: 'a' }], 1000) // right([{ name: 'a' }])
 * @example batchItems([], 1000) // left({ field: 'body', error: 'emptyPayload', … })
 */
export function batchItems(body: readonly unknown[], max: number): E.Either<FailItem<ErrorCode>, readonly unknown[]> {
  if (body.length === 0)
    return E.left({ field: 'body', error: 'emptyPayload', message: 'The array must hold at least one record' });
  if (body.length > max) return E.left(tooManyRecords('body', max, `the array holds ${body.length}`));
  return E.right(body);
}

/** What a batch `PATCH` or `DELETE` that names no records answers. */
const FILTER_REQUIRED: FailItem<ErrorCode> = {
  field: 'filter',
  error: 'filterRequired',
  message: 'A batch write names its records with filter[...]: send at least one filter',
};

/**
 * The failure of a batch `PATCH` or `DELETE` whose query string has no filter: undefined when `filter` is a
 * non-empty object (as qs parsed it), else `filterRequired`, so that no request changes every record by omission.
 * @example filterProblem({ filter: { id: { in: '4,5' } } }) // undefined
 * @example filterProblem({}) // { field: 'filter', error: 'filterRequired', … }
 */
export function filterProblem(query: Readonly<Record<string, unknown>>): FailItem<ErrorCode> | undefined {
  const filter = query['filter'];
  const present = typeof filter === 'object' && filter !== null && Object.keys(filter).length > 0;
  return present ? undefined : FILTER_REQUIRED;
}

/**
 * The same failure for a planned filter that keeps no condition: every value blank (`filter[name]=`, a group of blank
 * items) drops out of the plan, and such a batch would otherwise act on every record.
 * @example planFilterProblem({ conditions: [], groups: undefined, term: null }) // { error: 'filterRequired', … }
 */
export function planFilterProblem(
  plan: Pick<SearchPlan, 'conditions' | 'groups' | 'term'>,
): FailItem<ErrorCode> | undefined {
  return plan.term !== null || everyCondition(plan).length > 0 ? undefined : FILTER_REQUIRED;
}

/**
 * The failure of a filter that matches `count` records when a batch takes at most `max`; undefined within it.
 * @example matchProblem(1001, 1000) // { field: 'filter', error: 'tooManyRows', … }
 */
export function matchProblem(count: number, max: number): FailItem<ErrorCode> | undefined {
  return count > max ? tooManyRecords('filter', max, 'the filter matches more') : undefined;
}

function tooManyRecords(field: string, max: number, why: string): FailItem<ErrorCode> {
  return {
    field,
    error: 'tooManyRows',
    message: `A batch writes at most ${max} records (batch.max_records) and ${why}: split it, or raise the cap`,
  };
}

/**
 * The fail items of one item of a batch, each field prefixed with the item's index (`1.price`); an item naming no
 * field names the item (`1`).
 * @example itemFailures(1, [{ field: 'price', error: 'type', message: '…' }]) // [{ field: '1.price', … }]
 */
export function itemFailures(index: number, items: readonly FailItem[]): FailItem[] {
  return items.map((item) => ({ ...item, field: item.field === null ? String(index) : `${index}.${item.field}` }));
}

/**
 * Groups the records of a batch update by the data each will be written with, in first-seen order, so that the
 * records given the same fields and values share one UPDATE statement. `key` is a value's canonical text (see
 * `dataKey`); records whose data has no key are each a group of their own.
 * @example groupByData([[1, { a: 1 }], [2, { a: 1 }], [3, { a: 2 }]], dataKey)
 *   // [{ data: { a: 1 }, ids: [1, 2] }, { data: { a: 2 }, ids: [3] }]
 */
export function groupByData<Id>(
  writes: readonly (readonly [Id, Readonly<Record<string, unknown>>])[],
  key: (data: Readonly<Record<string, unknown>>) => string | undefined,
): { readonly data: Readonly<Record<string, unknown>>; readonly ids: Id[] }[] {
  const groups = new Map<string, { data: Readonly<Record<string, unknown>>; ids: Id[] }>();
  const order: { data: Readonly<Record<string, unknown>>; ids: Id[] }[] = [];
  for (const [id, data] of writes) {
    const text = key(data);
    const known = text === undefined ? undefined : groups.get(text);
    if (known !== undefined) {
      known.ids.push(id);
      continue;
    }
    const group = { data, ids: [id] };
    if (text !== undefined) groups.set(text, group);
    order.push(group);
  }
  return order;
}

/**
 * The canonical text of write data whose values are JSON scalars, dates or plain JSON values: equal for equal data
 * whatever the key order; undefined for data holding anything else (a Sequelize literal, a function, a Buffer), which
 * is never merged with other data.
 * @example dataKey({ b: 1, a: 'x' }) === dataKey({ a: 'x', b: 1 }) // true
 * @example dataKey({ at: Sequelize.fn('NOW') }) // undefined
 */
export function dataKey(data: Readonly<Record<string, unknown>>): string | undefined {
  const entries = Object.keys(data)
    .sort()
    .map((name) => [name, plain(data[name])] as const);
  if (entries.some(([, value]) => value === NOT_PLAIN)) return undefined;
  return JSON.stringify(entries);
}

const NOT_PLAIN: unique symbol = Symbol('not plain');

function plain(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : NOT_PLAIN;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? NOT_PLAIN : { $date: value.toISOString() };
  if (Array.isArray(value)) {
    const items = value.map(plain);
    return items.includes(NOT_PLAIN) ? NOT_PLAIN : { $array: items };
  }
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
    const key = dataKey(value as Record<string, unknown>);
    return key === undefined ? NOT_PLAIN : { $object: key };
  }
  return NOT_PLAIN;
}
