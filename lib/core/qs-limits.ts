/** The bracket syntax (`a[b][c]=1`) of query strings and form bodies, parsed by qs within one set of limits. */
import * as E from 'fp-ts/lib/Either.js';
import qs from 'qs';

/**
 * The qs limits of every bracket string the library parses: brackets at most 3 deep, 100 list items, 200 parameters.
 */
export const QS_OPTIONS = Object.freeze({
  depth: 3,
  arrayLimit: 100,
  parameterLimit: 200,
  allowPrototypes: false,
  strictDepth: true,
  throwOnLimitExceeded: true,
} as const);

/**
 * The qs limits of query strings: QS_OPTIONS, brackets at most 9 deep. The deepest filter three `$or`/`$and` groups
 * down needs them all: `filter[$or][0][$and][0][$or][0][sku][in][]=x` (each group adds `[$or][0]` to the three
 * brackets of `filter[sku][in][]`). Bodies keep QS_OPTIONS' 3.
 */
export const QUERY_QS_OPTIONS = Object.freeze({ ...QS_OPTIONS, depth: 9 } as const);

/** The qs options parseBrackets applies: QS_OPTIONS or QUERY_QS_OPTIONS. */
export type BracketLimits = typeof QS_OPTIONS | typeof QUERY_QS_OPTIONS;

/**
 * A bracket string (a query string, or an `application/x-www-form-urlencoded` body) parsed with qs
 * within `limits` (QS_OPTIONS unless told); Left is the message for a string beyond a limit, naming it as `what`.
 * A limit is never met by silently dropping parameters.
 * @example parseBrackets('a[b]=1', 'The query string', QUERY_QS_OPTIONS) // right({ a: { b: '1' } })
 * @example parseBrackets('a[b][c][d][e]=1', 'The body') // left('The body nests deeper than 3 brackets')
 */
export function parseBrackets(
  text: string,
  what: string,
  limits: BracketLimits = QS_OPTIONS,
): E.Either<string, Record<string, unknown>> {
  return E.tryCatch(
    () => qs.parse(text, limits) as Record<string, unknown>,
    (thrown) => limitMessage(thrown instanceof Error ? thrown.message : '', what, limits),
  );
}

/**
 * The bracket paths of a string's parameters that qs drops without a word because one of their
 * segments names a property of `Object.prototype` (`constructor`, `toString`) or is `__proto__`
 * (`allowPrototypes: false` keeps them from touching any prototype). Read from the raw text, so the
 * caller can refuse what the parsed object no longer shows.
 * @example prototypeKeys('filter[constructor]=1&sort=name') // [['filter', 'constructor']]
 */
export function prototypeKeys(text: string): string[][] {
  return text
    .split('&')
    .map((part) => segmentsOf(decodeKey(part.split('=', 1)[0] ?? '')))
    .filter((segments) => segments.some(isPrototypeKey));
}

/**
 * True for a key qs refuses to set: `__proto__`, or a property every object inherits.
 * @example isPrototypeKey('constructor') // true
 */
export function isPrototypeKey(key: string): boolean {
  return key === '__proto__' || Object.hasOwn(Object.prototype, key);
}

function decodeKey(key: string): string {
  const spaced = key.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** `a[b][c]` as `['a', 'b', 'c']`, as qs reads brackets. */
function segmentsOf(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0) return [key];
  const children = key.slice(open).match(/\[([^[\]]*)\]/g) ?? [];
  return [key.slice(0, open), ...children.map((child) => child.slice(1, -1))];
}

function limitMessage(reason: string, what: string, limits: BracketLimits): string {
  if (/depth/i.test(reason)) return `${what} nests deeper than ${limits.depth} brackets`;
  if (/parameter limit/i.test(reason)) return `${what} has more than ${QS_OPTIONS.parameterLimit} parameters`;
  if (/array limit/i.test(reason))
    return `A list in ${what.charAt(0).toLowerCase()}${what.slice(1)} has more than ${QS_OPTIONS.arrayLimit} items`;
  return `${what} cannot be parsed`;
}
