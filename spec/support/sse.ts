/** A plain HTTP client for a Server-Sent Events stream (node:http): what the change-feed suites read it with. */
import { request, type IncomingMessage } from 'node:http';

/** One event of a stream, as its fields came. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/** An open stream: its status and headers, what came so far, and its end. */
export interface SseStream {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** Every event so far, in order. */
  readonly events: SseEvent[];
  /** Every comment line so far (heartbeats). */
  readonly comments: string[];
  /** The `retry:` hints so far. */
  readonly retries: number[];
  /** The body of a reply that is not a stream (a JSend fail or error). */
  readonly text: () => string;
  /** Resolves with the events once there are at least `count`; rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<SseEvent[]>;
  /** Resolves when the server has closed the stream. */
  readonly ended: Promise<void>;
  /** Stops reading (the socket's buffers fill, and the server's writes back up). */
  pause(): void;
  close(): void;
}

/**
 * Opens `url` as an `EventSource` would (`Accept: text/event-stream`, `Last-Event-ID` when given), and resolves once
 * the status and headers came.
 * @example const stream = await openStream(`${server.url}/items/changes`);
 */
export function openStream(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const retries: number[] = [];
      let raw = '';
      let buffer = '';
      const waiters = new Set<() => void>();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('retry: ')) retries.push(Number(line.slice(7)));
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) ((event = line.slice(7)), (isEvent = true));
            else if (line.startsWith('data: ')) ((isEvent = true), data.push(line.slice(6)));
          }
          if (isEvent) events.push({ id, event, data: data.join('\n') });
        }
        for (const waiter of waiters) waiter();
      });
      const ended = new Promise<void>((done) => {
        res.once('close', () => {
          for (const waiter of waiters) waiter();
          done();
        });
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        retries,
        text: () => raw,
        ended,
        waitFor: (count, ms = 5000) =>
          new Promise((ok, fail) => {
            const check = () => {
              if (events.length >= count) {
                waiters.delete(check);
                clearTimeout(timer);
                ok(events);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`${events.length} events after ${ms} ms, expected ${count}: ${JSON.stringify(events)}`));
            }, ms);
            waiters.add(check);
            check();
          }),
        pause: () => res.pause(),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The `ids` of an event's data. */
export function idsOf(event: SseEvent): string[] {
  return (JSON.parse(event.data) as { ids: string[] }).ids;
}
