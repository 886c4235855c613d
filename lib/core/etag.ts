/**
 * Entity tags (RFC 9110 §8.8.3) and the preconditions that compare them (§13.1): `If-Match` compares strongly,
 * `If-None-Match` weakly. Pure: the hash is the caller's.
 */

/**
 * One entity tag: its opaque part (between the quotes) and whether it is weak (`W/"…"`).
 * @example const tag: EntityTag = { weak: false, opaque: '3' }; // "3"
 */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/**
 * A precondition header as parsed: `*` (any current representation), or the list of tags it names. A member that
 * is not an entity tag is left out of the list, so it matches nothing.
 * @example const list: TagList = [{ weak: true, opaque: 'a' }];
 */
export type TagList = '*' | readonly EntityTag[];

/**
 * The outcome of a request's preconditions on one record: go on, answer 304 (a read whose `If-None-Match` matched),
 * or refuse with 412 (a write whose `If-Match` did not).
 * @example const outcome: Precondition = 'notModified';
 */
export type Precondition = 'proceed' | 'notModified' | 'failed';

/** etagc: `!`, `#`–`~` and obs-text (RFC 9110 §8.8.3); the quote, controls, space and DEL are not. */
const OPAQUE = /^[\x21\x23-\x7e\x80-\xff]*$/;

/**
 * A tag's header form: `"opaque"`, or `W/"opaque"` when weak. The opaque part must hold only etagc characters.
 * @example formatTag({ weak: true, opaque: 'abc' }) // 'W/"abc"'
 */
export function formatTag(tag: EntityTag): string {
  return `${tag.weak ? 'W/' : ''}"${tag.opaque}"`;
}

/**
 * Whether a string may be a tag's opaque part (every character an etagc).
 * @example isOpaque('v3') // true
 * @example isOpaque('a"b') // false
 */
export function isOpaque(value: string): boolean {
  return OPAQUE.test(value);
}

/**
 * The strong tag of a record from its version attribute's value, or undefined when the value is not a safe integer.
 * @example versionTag(3) // { weak: false, opaque: 'v3' }
 */
export function versionTag(version: unknown): EntityTag | undefined {
  const value = typeof version === 'string' && /^\d+$/.test(version) ? Number(version) : version;
  return Number.isSafeInteger(value) ? { weak: false, opaque: `v${value as number}` } : undefined;
}

/**
 * Parses an `If-Match` or `If-None-Match` value: `*`, or a comma-separated list of tags with optional whitespace
 * (empty members allowed, as RFC 9110 §5.6.1 asks). A member that is not a tag is dropped; it matches nothing.
 * Never throws.
 * @example parseTagList('W/"a", "b"') // [{ weak: true, opaque: 'a' }, { weak: false, opaque: 'b' }]
 * @example parseTagList(' * ') // '*'
 */
export function parseTagList(header: string): TagList {
  const trimmed = header.trim();
  if (trimmed === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < trimmed.length) {
    while (trimmed[at] === ' ' || trimmed[at] === '\t') at += 1;
    const weak = trimmed.startsWith('W/"', at);
    const start = weak ? at + 2 : at;
    const end = trimmed[start] === '"' ? trimmed.indexOf('"', start + 1) : -1;
    const comma = trimmed.indexOf(',', end === -1 ? at : end);
    const next = comma === -1 ? trimmed.length : comma + 1;
    if (end !== -1) {
      const opaque = trimmed.slice(start + 1, end);
      const rest = trimmed.slice(end + 1, comma === -1 ? trimmed.length : comma);
      if (isOpaque(opaque) && rest.trim() === '') tags.push({ weak, opaque });
    }
    at = next;
  }
  return tags;
}

/**
 * Strong comparison (RFC 9110 §8.8.3.2): both tags strong and their opaque parts equal.
 * @example strongMatch({ weak: false, opaque: 'a' }, { weak: false, opaque: 'a' }) // true
 * @example strongMatch({ weak: true, opaque: 'a' }, { weak: false, opaque: 'a' }) // false
 */
export function strongMatch(a: EntityTag, b: EntityTag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/**
 * Weak comparison (RFC 9110 §8.8.3.2): the opaque parts equal, whether either tag is weak.
 * @example weakMatch({ weak: true, opaque: 'a' }, { weak: false, opaque: 'a' }) // true
 */
export function weakMatch(a: EntityTag, b: EntityTag): boolean {
  return a.opaque === b.opaque;
}

/**
 * Whether `If-Match` holds for a record whose current tag is `current` (undefined: no current record): true without
 * the header; `*` holds for any current record; a list holds when one of its tags matches `current` strongly.
 * @example ifMatchHolds('"v2"', { weak: false, opaque: 'v2' }) // true
 * @example ifMatchHolds('W/"v2"', { weak: false, opaque: 'v2' }) // false: If-Match compares strongly
 */
export function ifMatchHolds(header: string | undefined, current: EntityTag | undefined): boolean {
  if (header === undefined) return true;
  if (current === undefined) return false;
  const list = parseTagList(header);
  return list === '*' || list.some((tag) => strongMatch(tag, current));
}

/**
 * Whether `If-None-Match` holds (the reply is not cached already): true without the header; `*` fails for any current
 * record; a list fails when one of its tags matches `current` weakly.
 * @example ifNoneMatchHolds('W/"v2"', { weak: false, opaque: 'v2' }) // false: answer 304
 */
export function ifNoneMatchHolds(header: string | undefined, current: EntityTag | undefined): boolean {
  if (header === undefined || current === undefined) return true;
  const list = parseTagList(header);
  return list !== '*' && !list.some((tag) => weakMatch(tag, current));
}

/**
 * A read's outcome (GET): 304 when `If-None-Match` fails; `If-Match` is evaluated first, as RFC 9110 §13.2.2 orders
 * them, and a 412 when it fails.
 * @example readPrecondition({ ifNoneMatch: '"a"' }, { weak: false, opaque: 'a' }) // 'notModified'
 */
export function readPrecondition(headers: ConditionalHeaders, current: EntityTag): Precondition {
  if (!ifMatchHolds(headers.ifMatch, current)) return 'failed';
  return ifNoneMatchHolds(headers.ifNoneMatch, current) ? 'proceed' : 'notModified';
}

/**
 * A write's outcome: 412 when `If-Match` fails, or when `If-None-Match` names the current record (a write is never a
 * 304, RFC 9110 §13.1.2).
 * @example writePrecondition({ ifMatch: '"old"' }, { weak: false, opaque: 'new' }) // 'failed'
 */
export function writePrecondition(headers: ConditionalHeaders, current: EntityTag): Precondition {
  return ifMatchHolds(headers.ifMatch, current) && ifNoneMatchHolds(headers.ifNoneMatch, current)
    ? 'proceed'
    : 'failed';
}

/**
 * The conditional headers of a request, undefined when absent.
 * @example const headers: ConditionalHeaders = { ifMatch: '"v3"' };
 */
export interface ConditionalHeaders {
  readonly ifMatch?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
}
