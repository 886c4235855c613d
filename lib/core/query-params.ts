/** Query-string values as the actions read them. */
import type { ErrorCode, FailItem } from '../types.js';
import { didYouMean } from './nearest.js';

/**
 * One query parameter as a string: a repeated parameter (`?a=x&a=y`) is joined with commas,
 * so a column check sees and names the whole of what the client sent; absent stays undefined.
 * @example singleParam(['name', 'id']) // 'name,id'
 */
export function singleParam(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' || value === undefined ? value : value.join(',');
}

/**
 * True for a plain object as qs and JSON give them (not null, not an array).
 * @example isRecord({ gte: '10' }) // true
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The top-level query parameters search, exportCsv and aggregate read; with `search.strict_params` (the
 * default) any other is a 400 `unknownParameter`. exportCsv reads no page (it sends every row) and
 * loads no `include`. options is not checked: its `modifyOptionsQuery` hook may read parameters of its own.
 * @example KNOWN_PARAMS.exportCsv // ['filter', 'sort', 'fields']
 */
export const KNOWN_PARAMS = Object.freeze({
  search: Object.freeze(['filter', 'sort', 'page', 'perPage', 'skipPagination', 'include', 'cursor', 'fields']),
  exportCsv: Object.freeze(['filter', 'sort', 'fields']),
  aggregate: Object.freeze(['aggregate', 'groupBy', 'filter']),
} as const satisfies Readonly<Record<string, readonly string[]>>);

/**
 * One `unknownParameter` failure per parameter name outside `known`, named as the client wrote it
 * (the part before any bracket: `filters[price]` is `filters`), with the nearest known name.
 * @example unknownParams(['perpage', 'sort'], KNOWN_PARAMS.search)
 *   // [{ field: 'perpage', error: 'unknownParameter', message: "Unknown query parameter \"perpage\" …; did you mean
 *   // 'perPage'?" }]
 */
export function unknownParams(names: Iterable<string>, known: readonly string[]): FailItem<ErrorCode>[] {
  const roots = new Set([...names].map((name) => name.replace(/\[.*$/s, '')));
  return [...roots]
    .filter((name) => !known.includes(name))
    .map((name) => ({
      field: name,
      error: 'unknownParameter',
      message:
        `Unknown query parameter ${JSON.stringify(name)}: this action reads ` +
        `${known.join(', ')}${didYouMean(name, known)}`,
    }));
}

/**
 * The text of a comma-separated list parameter as qs gives it: a string as it is, a repeated parameter's strings joined
 * with commas; undefined for anything else (an object, a mix of types).
 * @example listText(['id', 'name,price']) // 'id,name,price'
 */
export function listText(raw: unknown): string | undefined {
  return typeof raw === 'string'
    ? raw
    : Array.isArray(raw) && raw.every((item) => typeof item === 'string')
      ? raw.join(',')
      : undefined;
}
