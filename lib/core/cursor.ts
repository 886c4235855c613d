/**
 * Cursor pagination: signed, opaque tokens naming a row of a search's order, and the keyset pages they read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Cursor, CursorPlan, CursorValue, ErrorCode, FailItem } from '../types.js';

export type { Cursor, CursorPlan, CursorValue };
import type { KeyColumn } from './keyset.js';

/** The longest cursor accepted, in characters: a few sort values and a signature fit well within it. */
export const MAX_CURSOR_LENGTH = 4096;

const TOKEN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

/**
 * What a cursor is bound to: the sort and the filter of the request, as canonical JSON (object keys sorted, so
 * `filter[a]=1&filter[b]=2` and `filter[b]=2&filter[a]=1` are one scope). A cursor used with another sort or filter
 * does not verify.
 * @example cursorScope('-price', { name: { like: 'a' } }) // '["-price",{"name":{"like":"a"}}]'
 */
export function cursorScope(sort: unknown, filter: unknown): string {
  return canonicalJson([sort ?? null, filter ?? null]);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A cursor as an opaque token: its JSON in base64url, a dot, and the HMAC-SHA256 (base64url) of that text and the
 * scope under `secret`.
 * @example encodeCursor({ direction: 'after', values: [5, 12] }, '[null,null]', 'secret') // 'WyJhIiw1LDEyXQ.…'
 */
export function encodeCursor(cursor: Cursor, scope: string, secret: string): string {
  const body = Buffer.from(JSON.stringify([cursor.direction === 'after' ? 'a' : 'b', ...cursor.values])).toString(
    'base64url',
  );
  return `${body}.${signature(body, scope, secret)}`;
}

function signature(body: string, scope: string, secret: string): string {
  return createHmac('sha256', secret).update(`fast-crud cursor 1\n${scope}\n${body}`).digest('base64url');
}

/**
 * The cursor a token names, when it is one `encodeCursor` made with this scope and secret: a changed character, or
 * another sort or filter than the request that produced it, is an `invalidCursor` failure on `cursor`.
 * @example decodeCursor(encodeCursor(cursor, scope, secret), scope, secret) // right(cursor)
 * @example decodeCursor('abc', scope, secret) // left({ field: 'cursor', error: 'invalidCursor', … })
 */
export function decodeCursor(token: string, scope: string, secret: string): E.Either<FailItem<ErrorCode>, Cursor> {
  const match = token.length <= MAX_CURSOR_LENGTH ? TOKEN.exec(token) : null;
  if (match === null) return E.left(invalidCursor());
  const [, body, signed] = match as unknown as [string, string, string];
  const expected = Buffer.from(signature(body, scope, secret));
  if (!timingSafeEqual(expected, Buffer.from(signed))) return E.left(invalidCursor());
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return E.left(invalidCursor());
  }
  if (!Array.isArray(parsed) || (parsed[0] !== 'a' && parsed[0] !== 'b') || parsed.length < 2)
    return E.left(invalidCursor());
  const values = parsed.slice(1) as unknown[];
  if (!values.every(isCursorValue)) return E.left(invalidCursor());
  return E.right({ direction: parsed[0] === 'a' ? 'after' : 'before', values });
}

function isCursorValue(value: unknown): value is CursorValue {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/**
 * The `invalidCursor` failure: a cursor this search did not give, or given for another sort or filter.
 * @example invalidCursor() // { field: 'cursor', error: 'invalidCursor', message: 'The cursor is not one …' }
 */
export function invalidCursor(): FailItem<ErrorCode> {
  return {
    field: 'cursor',
    error: 'invalidCursor',
    message:
      'The cursor is not one this search gave, or it was sent with another sort or filter than the request that ' +
      'gave it: resend sort and filter unchanged, or start again with cursor= (empty)',
  };
}

/**
 * The key columns that read the rows before a row: the order reversed (each direction and NULL placement flipped), so
 * the keyset condition "after" in it is "before" in the original order, read nearest first.
 * @example reversedColumns([{ expression: 'p', descending: false, nullsFirst: true }])
 *   // [{ expression: 'p', descending: true, nullsFirst: false }]
 */
export function reversedColumns(columns: readonly KeyColumn[]): KeyColumn[] {
  return columns.map((column) => ({ ...column, descending: !column.descending, nullsFirst: !column.nullsFirst }));
}

/**
 * An order item's direction text reversed: `ASC` ↔ `DESC`, `NULLS FIRST` ↔ `NULLS LAST` (a dialect's default NULL
 * placement flips with the direction by itself).
 * @example reversedDirection('DESC NULLS LAST') // 'ASC NULLS FIRST'
 */
export function reversedDirection(direction: string): string {
  return direction
    .trim()
    .toUpperCase()
    .replace(/^(ASC|DESC)/, (word) => (word === 'ASC' ? 'DESC' : 'ASC'))
    .replace(/NULLS (FIRST|LAST)$/, (_, where: string) => `NULLS ${where === 'FIRST' ? 'LAST' : 'FIRST'}`);
}

/**
 * One cursor page from the rows read for it: `perPage` + 1 rows in the order (after a row, or from the start) or in
 * the reversed order (before a row). Gives the page's rows in the order, and the rows the next and previous cursors
 * name (its last and first rows), or null where there is nothing that way: no row past the page, or the first page.
 * @example cursorPage(null, [1, 2, 3], 2) // { rows: [1, 2], next: 2, prev: null }
 * @example cursorPage('before', [5, 4, 3], 2) // { rows: [4, 5], next: 5, prev: 4 }
 */
export function cursorPage<T>(
  direction: Cursor['direction'] | null,
  read: readonly T[],
  perPage: number,
): { rows: T[]; next: T | null; prev: T | null } {
  const more = read.length > perPage;
  if (direction === 'before') {
    const rows = read.slice(0, perPage).reverse();
    return { rows, next: rows.at(-1) ?? null, prev: more ? rows[0]! : null };
  }
  const rows = read.slice(0, perPage);
  return {
    rows,
    next: more ? rows.at(-1)! : null,
    prev: direction === 'after' && rows.length > 0 ? rows[0]! : null,
  };
}
