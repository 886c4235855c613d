/**
 * The change feed's pure planning: which event a write makes, what a subscriber may see of an event, how events are
 * framed as Server-Sent Events, how `Last-Event-ID` and `?ids=` are read, and how far the feed may go past ids that
 * have not committed yet.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { CrudMethod, FailItem, RowScope } from '../types.js';

/** The kind of a change event: the `event:` field of its frame. */
export type ChangeKind = 'created' | 'updated' | 'deleted' | 'softDeleted' | 'restored';

/**
 * Every kind, by the write action that makes it.
 * @example CHANGE_KINDS.softDelete // 'softDeleted'
 */
export const CHANGE_KINDS: Readonly<Record<'create' | 'update' | 'delete' | 'softDelete' | 'restore', ChangeKind>> =
  Object.freeze({
    create: 'created',
    update: 'updated',
    delete: 'deleted',
    softDelete: 'softDeleted',
    restore: 'restored',
  });

/**
 * The kind of event a committed write of `action` makes; undefined for an action that writes nothing.
 * @example changeKindOf('create') // 'created'
 * @example changeKindOf('search') // undefined
 */
export function changeKindOf(action: CrudMethod): ChangeKind | undefined {
  return (CHANGE_KINDS as Readonly<Record<string, ChangeKind>>)[action];
}

/**
 * One event of the outbox, as the feed reads it: its id (decimal text of the outbox's increasing key), the
 * resource's model, the kind, the find-field values of the records written (as text), and for each record the values
 * of the attributes the model's row scopes name (its tenant), in the same order.
 * @example { id: '42', resource: 'Product', kind: 'updated', ids: ['7'], scopes: [{ tenantId: 1 }] }
 */
export interface ChangeEvent {
  readonly id: string;
  readonly resource: string;
  readonly kind: ChangeKind;
  readonly ids: readonly string[];
  readonly scopes: readonly Readonly<Record<string, unknown>>[];
}

/**
 * What one subscriber may receive: the resource's events, within its row scopes (its tenant), and with `?ids=`
 * only those records (null: any).
 * @example { resource: 'Product', ids: new Set(['7']), scopes: [{ attribute: 'tenantId', values: [1] }] }
 */
export interface FeedFilter {
  readonly resource: string;
  readonly ids: ReadonlySet<string> | null;
  readonly scopes: readonly RowScope[];
}

/**
 * What a subscriber is sent of an event: its id, kind and the ids it may see.
 * @example { id: '42', kind: 'updated', ids: ['7'] }
 */
export interface FeedEvent {
  readonly id: string;
  readonly kind: ChangeKind;
  readonly ids: readonly string[];
}

/**
 * The event as `filter`'s subscriber sees it: only the records within its row scopes (a record whose scope values are
 * unknown is never shown) and, with `?ids=`, only those; undefined when none is left or the event is another
 * resource's.
 * @example
 * eventFor({ resource: 'Product', ids: null, scopes: [{ attribute: 'tenantId', values: [1] }] },
 *   { id: '3', resource: 'Product', kind: 'created', ids: ['7', '8'], scopes: [{ tenantId: 1 }, { tenantId: 2 }] })
 *   // { id: '3', kind: 'created', ids: ['7'] }
 */
export function eventFor(filter: FeedFilter, event: ChangeEvent): FeedEvent | undefined {
  if (event.resource !== filter.resource) return undefined;
  const ids = event.ids.filter(
    (id, index) =>
      (filter.ids === null || filter.ids.has(id)) && withinScopes(filter.scopes, event.scopes[index] ?? undefined),
  );
  return ids.length === 0 ? undefined : { id: event.id, kind: event.kind, ids };
}

function withinScopes(scopes: readonly RowScope[], values: Readonly<Record<string, unknown>> | undefined): boolean {
  if (scopes.length === 0) return true;
  if (values === undefined) return false;
  return scopes.every(
    ({ attribute, values: allowed }) =>
      Object.hasOwn(values, attribute) && allowed.some((value) => sameValue(value, values[attribute])),
  );
}

/** Equal as the outbox keeps values: through JSON, so a number and its text (a BIGINT's) compare equal. */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (isScalar(a) && isScalar(b) && String(a) === String(b));
}

function isScalar(value: unknown): value is string | number | bigint | boolean {
  return ['string', 'number', 'bigint', 'boolean'].includes(typeof value);
}

/**
 * An event's frame: `id:`, `event:` (the kind) and `data:` holding only `{"ids":[…]}`.
 * @example frameEvent({ id: '3', kind: 'created', ids: ['7'] }) // 'id: 3\nevent: created\ndata: {"ids":["7"]}\n\n'
 */
export function frameEvent(event: FeedEvent): string {
  return `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify({ ids: event.ids })}\n\n`;
}

/**
 * The `reset` frame: the events since the client's `Last-Event-ID` are no longer known, so it should refetch what it
 * shows. It carries the feed's present position as its id (when there is one), to resume from.
 * @example frameReset('40') // 'id: 40\nevent: reset\ndata: {}\n\n'
 */
export function frameReset(id: string | undefined): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: reset\ndata: {}\n\n`;
}

/**
 * The frame that opens a stream: how long an `EventSource` waits before it reconnects, in milliseconds.
 * @example frameRetry(3000) // 'retry: 3000\n\n'
 */
export function frameRetry(ms: number): string {
  return `retry: ${ms}\n\n`;
}

/**
 * A comment frame (a heartbeat): clients ignore it; proxies see traffic. Line breaks in `text` are dropped.
 * @example frameComment('heartbeat') // ': heartbeat\n\n'
 */
export function frameComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** The longest event id the feed reads: a BIGINT's 19 digits. */
const ID_PATTERN = /^(0|[1-9]\d{0,18})$/;

/**
 * Reads the `Last-Event-ID` header: undefined when absent or empty (a fresh subscription), the id's text when it is
 * a decimal integer of at most 19 digits, else a fail item naming the header.
 * @example parseLastEventId('42') // right('42')
 * @example parseLastEventId('x1') // left({ field: 'Last-Event-ID', error: 'invalidValue', … })
 */
export function parseLastEventId(header: string | undefined): E.Either<FailItem<'invalidValue'>, string | undefined> {
  if (header === undefined || header === '') return E.right(undefined);
  const trimmed = header.trim();
  if (ID_PATTERN.test(trimmed)) return E.right(trimmed);
  return E.left({
    field: 'Last-Event-ID',
    error: 'invalidValue',
    message: 'Last-Event-ID must be the id of an event this feed sent (a decimal integer)',
    value: header.slice(0, 40),
  });
}

/** Most records one subscription may narrow to with `?ids=`. */
export const MAX_FEED_IDS = 1000;

/**
 * Reads `?ids=a,b`: null when absent (every record), else the set of the listed values; a fail item naming `ids` when
 * it is empty, repeated, has an empty item, or lists more than `MAX_FEED_IDS`.
 * @example parseFeedIds('7,8') // right(new Set(['7', '8']))
 * @example parseFeedIds(undefined) // right(null)
 */
export function parseFeedIds(
  value: string | readonly string[] | undefined,
): E.Either<FailItem<'invalidValue'>, ReadonlySet<string> | null> {
  if (value === undefined) return E.right(null);
  const bad = (message: string) =>
    E.left({ field: 'ids', error: 'invalidValue' as const, message, value: String(value).slice(0, 80) });
  if (typeof value !== 'string') return bad('ids must be given once, as a comma-separated list');
  const items = value.split(',');
  if (items.some((item) => item.trim() === '')) return bad('ids must be a comma-separated list of record ids');
  if (items.length > MAX_FEED_IDS) return bad(`ids may list at most ${MAX_FEED_IDS} records`);
  return E.right(new Set(items.map((item) => item.trim())));
}

/**
 * Where the feed stands: every event up to `cursor` has been handed out (or given up for lost), and since
 * `gapSince` (a time in ms) the next id after it has been missing while a later one was there.
 */
export interface FeedPosition {
  readonly cursor: bigint;
  readonly gapSince: number | undefined;
}

/**
 * Which of the events read after the position may be handed out now, in id order: the run that follows the cursor
 * without a hole. An id missing before a later one (a write that has not committed yet, or that rolled back) holds the
 * later ones back until it appears, or until `graceMs` has passed since the hole was first seen: then it is taken for
 * rolled back and skipped. `ids` are the events read (id > cursor), in increasing order.
 * @example advance({ cursor: 4n, gapSince: undefined }, [5n, 7n], 100, 1000)
 *   // { deliver: [5n], position: { cursor: 5n, gapSince: 100 } }
 */
export function advance(
  position: FeedPosition,
  ids: readonly bigint[],
  now: number,
  graceMs: number,
): { readonly deliver: readonly bigint[]; readonly position: FeedPosition } {
  const deliver: bigint[] = [];
  let cursor = position.cursor;
  let gapSince = position.gapSince;
  for (const id of ids) {
    if (id <= cursor) continue;
    if (id === cursor + 1n) {
      deliver.push(id);
      cursor = id;
      gapSince = undefined;
      continue;
    }
    const since = gapSince ?? now;
    if (now - since < graceMs) return { deliver, position: { cursor, gapSince: since } };
    deliver.push(id);
    cursor = id;
    gapSince = undefined;
  }
  return { deliver, position: { cursor, gapSince } };
}
