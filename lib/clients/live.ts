/**
 * The change feed as browser clients read it: one `EventSource` per resource (`GET <uri>/changes`), shared by every
 * listener of that resource, closed when the last one leaves. `EventSource` itself reconnects after a drop and
 * resumes with `Last-Event-ID`, so no write is missed while the outbox holds it.
 */
import { resourceUrl } from './protocol.js';

/** An event as an `EventSource` hands it to a listener. */
export interface MessageEventLike {
  readonly data: string;
  readonly lastEventId: string;
}

/** What the feed needs of an `EventSource`: the browser's, or any implementation of the standard (undici's). */
export interface EventSourceLike {
  addEventListener(type: string, listener: (event: MessageEventLike) => void): void;
  close(): void;
}

/** An `EventSource` constructor. */
export type EventSourceClass = new (url: string, init?: { withCredentials?: boolean }) => EventSourceLike;

/** How the live clients open the feed. */
export interface LiveOptions {
  /** The `EventSource` class (default: the global one, which browsers have and Node 20 lacks). */
  EventSource?: EventSourceClass;
  /** True: cookies go with the stream's request to another origin (`withCredentials`). */
  withCredentials?: boolean;
}

/**
 * The kinds of event the feed sends: a write's, and `reset` (the client's position is no longer known: refetch).
 * @example const kind: FeedKind = 'softDeleted';
 */
export type FeedKind = 'created' | 'updated' | 'deleted' | 'softDeleted' | 'restored' | 'reset';

/** The event names the feed sends. */
export const FEED_KINDS: readonly FeedKind[] = Object.freeze([
  'created',
  'updated',
  'deleted',
  'softDeleted',
  'restored',
  'reset',
]);

/** Hears one resource's events: the kind and the records' ids (as text; none for `reset`). */
export type FeedListener = (kind: FeedKind, ids: readonly string[]) => void;

/** The feeds of one API: listeners by resource, over one `EventSource` each. */
export interface LiveFeeds {
  /** Starts hearing a resource's events; the function it returns stops. */
  listen(resource: string, listener: FeedListener): () => void;
  /** Hands an event to the listeners of a resource in this page (what `publish` does). */
  emit(resource: string, kind: FeedKind, ids: readonly string[]): void;
}

/**
 * The feeds of the API under `apiUrl`.
 * @example const feeds = liveFeeds('/api'); const stop = feeds.listen('products', (kind, ids) => refetch());
 */
export function liveFeeds(apiUrl: string, options: LiveOptions = {}): LiveFeeds {
  const open = new Map<string, { readonly source: EventSourceLike; readonly listeners: Set<FeedListener> }>();
  const emit = (resource: string, kind: FeedKind, ids: readonly string[]) => {
    for (const listener of [...(open.get(resource)?.listeners ?? [])]) listener(kind, ids);
  };
  return {
    emit,
    listen(resource, listener) {
      let feed = open.get(resource);
      if (feed === undefined) {
        const Source = options.EventSource ?? (globalThis as { EventSource?: EventSourceClass }).EventSource;
        if (Source === undefined)
          throw new TypeError('No EventSource: pass one (options.EventSource), e.g. undici’s in Node');
        const source = new Source(resourceUrl(apiUrl, resource, '/changes'), {
          withCredentials: options.withCredentials === true,
        });
        feed = { source, listeners: new Set() };
        open.set(resource, feed);
        for (const kind of FEED_KINDS)
          source.addEventListener(kind, (event) => emit(resource, kind, idsOf(event.data)));
      }
      feed.listeners.add(listener);
      return () => {
        const current = open.get(resource);
        if (current === undefined || !current.listeners.delete(listener) || current.listeners.size > 0) return;
        current.source.close();
        open.delete(resource);
      };
    },
  };
}

/** The ids of an event's data (`{"ids":[…]}`); none when it has none (`reset`) or is not that shape. */
function idsOf(data: string): string[] {
  try {
    const parsed = JSON.parse(data) as { ids?: unknown };
    return Array.isArray(parsed.ids) ? parsed.ids.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * The kind a client library knows for a feed kind: a soft delete is a delete and a restore a creation to a list;
 * `reset` asks for everything to be refetched, as an update of everything would.
 * @example clientKind('softDeleted') // 'deleted'
 */
export function clientKind(kind: FeedKind): 'created' | 'updated' | 'deleted' {
  if (kind === 'softDeleted' || kind === 'deleted') return 'deleted';
  if (kind === 'restored' || kind === 'created') return 'created';
  return 'updated';
}
