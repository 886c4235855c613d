/** The fail items for `json` filters the database could not run over the values already stored. */
import type { Condition, ErrorCode, FailItem } from '../types.js';

/**
 * One `tooDeep` item per `json` filter of a plan (by its field, once each), for a query SQLite's
 * JSON functions refused (see `isUnreadableJson`): a stored value is nested past their 1,000
 * levels or is not JSON. SQLite does not say which column, so with several `json` filters each
 * is named. Empty when the plan has none: the error was not a filter's.
 * @example unreadableJsonFilters([{ attribute: 'meta', column: 'meta', op: 'json', values: [{ a: 1 }] }])
 *   // [{ field: 'meta', error: 'tooDeep', message: 'filter[meta][json] cannot run: a stored meta value … (1,000
 *   // levels) …' }]
 */
export function unreadableJsonFilters(conditions: readonly Condition[]): FailItem<ErrorCode>[] {
  const fields = conditions.filter((c) => c.op === 'json').map((c) => [...(c.relation ?? []), c.attribute].join('.'));
  return [...new Set(fields)].map((field) => ({
    field,
    error: 'tooDeep',
    message:
      `filter[${field}][json] cannot run: a stored ${field} value is nested deeper than SQLite's JSON functions ` +
      'read (1,000 levels) or is not JSON; repair or remove that row, or filter on another column',
  }));
}
