/** parseSort and processSort: the spec's `sort=a,-b` parameter as ordering clauses. */
import { snakeCase } from 'change-case';
import type { FindOptions, OrderItem } from 'sequelize';
import type { Order } from '../types.js';

/**
 * The items of a sort string as the client wrote them: trimmed, empty ones skipped, a leading `-`
 * read as descending and taken off. Names are not converted, so messages can quote them: a name
 * with no letter or digit (`_`) is kept, for search to refuse as it refuses it in a filter.
 * @example parseSortItems('categoryId, -price') // [['categoryId', 'ASC'], ['price', 'DESC']]
 */
export function parseSortItems(sort: string): Order[] {
  return sort.split(',').flatMap((raw): Order[] => {
    const item = raw.trim();
    const descending = item.startsWith('-');
    const name = descending ? item.slice(1).trim() : item;
    return name === '' ? [] : [[name, descending ? 'DESC' : 'ASC']];
  });
}

/**
 * Parses a comma-separated sort string into ordering clauses (spec sorting rules 1–5).
 * Items are trimmed, empty ones skipped, a leading `-` means descending, names become snake_case.
 * Never throws. Unchecked: it checks no column against a model or a policy; a caller that sorts by a
 * client's string checks each one (`allowedColumn` with `resolvePolicy`), as search does.
 * @example parseSort('createdAt, -price') // [['created_at', 'ASC'], ['price', 'DESC']]
 */
export function parseSort(sort: string): Order[] {
  return parseSortItems(sort).flatMap(([name, direction]): Order[] => {
    // A name that snake_case empties (`_`, `-_`) names no column: skipped, as an empty item is.
    const column = snakeCase(name);
    return column === '' ? [] : [[column, direction]];
  });
}

/**
 * Returns new find options with the sort string's clauses appended after any order already there.
 * The input is never mutated; an empty sort adds nothing. Unchecked, like `parseSort`: every column
 * named is appended as it is, so check them against a policy first.
 * @example processSort({ where: { active: true } }, '-price')
 *   // { where: { active: true }, order: [['price', 'DESC']] }
 */
export function processSort<T extends FindOptions>(findOptions: T, sort = ''): T {
  const orders = parseSort(sort);
  if (orders.length === 0) return { ...findOptions };
  return { ...findOptions, order: [...existingOrder(findOptions.order), ...orders] };
}

function existingOrder(order: FindOptions['order']): OrderItem[] {
  if (order === undefined) return [];
  return Array.isArray(order) ? [...(order as OrderItem[])] : [order];
}
