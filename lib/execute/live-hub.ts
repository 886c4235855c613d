/**
 * The change feed's hub, one per Sequelize instance and process: it reads the outbox past its position when something
 * may have been written (a write of this process committed, PostgreSQL announced one, or the MariaDB poll came round)
 * and hands each event, in id order, to the subscribers that may see it.
 */
import type { Sequelize } from 'sequelize';
import {
  advance,
  eventFor,
  frameEvent,
  frameReset,
  type ChangeEvent,
  type FeedFilter,
  type FeedPosition,
} from '../core/live-feed.js';
import type { LiveConfig } from '../types.js';
import { outsideRequests } from './deadline.js';
import { holdsChange, lastChangeId, OUTBOX_CHANNEL, readChanges, readChangesOn } from './live-outbox.js';

/** How long an id missing before later ones holds them back before it is taken for a rolled-back write. */
export const GAP_GRACE_MS = 2000;

/** Events read from the outbox per query. */
const PAGE = 500;

/** One open stream: what it may see, how far it has been sent, and how to send it a frame. */
export interface Subscriber {
  readonly filter: FeedFilter;
  /** The last event id handed to it (sent, or not for it). */
  lastSent: bigint;
  /** Writes a frame to the stream. */
  send(frame: string): void;
  /** Closes the stream (a failure of the feed). */
  close(): void;
}

/** A subscriber while it catches up from its `Last-Event-ID`: the live events that came meanwhile wait here. */
interface Member {
  readonly subscriber: Subscriber;
  queue: ChangeEvent[] | undefined;
}

/** The dedicated PostgreSQL connection the hub listens on, as pg's client shows it. */
interface ListenClient {
  query(sql: string, values?: readonly unknown[]): Promise<unknown>;
  on(event: 'notification' | 'error' | 'end', listener: (...args: unknown[]) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

const hubs = new WeakMap<Sequelize, LiveHub>();

/** Open streams in this process, over every hub: what `live.max_subscribers` bounds. */
let open = 0;

/**
 * The number of change-feed streams this process has open.
 * @example if (openStreams() >= config.live.max_subscribers) return tooMany();
 */
export function openStreams(): number {
  return open;
}

/**
 * The hub of a Sequelize instance, made on first use with the settings of the first feed that asks.
 * @example const hub = liveHub(sequelize, config.live);
 */
export function liveHub(sequelize: Sequelize, config: LiveConfig): LiveHub {
  const known = hubs.get(sequelize);
  if (known !== undefined) return known;
  const hub = new LiveHub(sequelize, config);
  hubs.set(sequelize, hub);
  return hub;
}

/**
 * Tells the instance's hub, if it has subscribers, that a write of this process committed an event: it reads the
 * outbox at once (the in-process delivery; on SQLite the only one).
 * @example announceChange(sequelize);
 */
export function announceChange(sequelize: Sequelize): void {
  hubs.get(sequelize)?.wake();
}

/** The hub of one Sequelize instance. */
export class LiveHub {
  private readonly members = new Set<Member>();
  /** The subscribers counted in `open`, until they leave. */
  private readonly counted = new Set<Subscriber>();
  private position: FeedPosition | undefined = undefined;
  private starting: Promise<void> | undefined = undefined;
  private reading = false;
  private again = false;
  private poll: NodeJS.Timeout | undefined = undefined;
  private gapTimer: NodeJS.Timeout | undefined = undefined;
  private listener: ListenClient | undefined = undefined;
  private listening: Promise<void> | undefined = undefined;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly config: LiveConfig,
  ) {}

  /** Subscribers now open on this instance. */
  get size(): number {
    return this.counted.size;
  }

  /**
   * Adds a subscriber: from the feed's present position when `lastEventId` is undefined; else it first receives every
   * event after that id the outbox holds, in order, or one `reset` frame when the outbox does not hold that id.
   * Resolves once it is registered (every later write reaches it), with `caughtUp`, which settles once the missed
   * events are sent; rejects (and removes it) when the feed cannot start.
   */
  async join(subscriber: Subscriber, lastEventId: bigint | undefined): Promise<{ caughtUp: Promise<void> }> {
    open += 1;
    this.counted.add(subscriber);
    const member: Member = { subscriber, queue: lastEventId === undefined ? undefined : [] };
    try {
      await this.start();
    } catch (error) {
      this.leave(subscriber);
      throw error;
    }
    if (!this.counted.has(subscriber)) return { caughtUp: Promise.resolve() };
    const upTo = this.position!.cursor;
    subscriber.lastSent = upTo;
    this.members.add(member);
    if (lastEventId === undefined) return { caughtUp: Promise.resolve() };
    subscriber.lastSent = lastEventId;
    const caughtUp = outsideRequests(async () => {
      await this.catchUp(subscriber, lastEventId, upTo);
      for (const event of member.queue!) this.hand(subscriber, event);
      member.queue = undefined;
    });
    return { caughtUp };
  }

  /**
   * Removes a subscriber (its client left, or it was dropped), once however often it is called, also before it was
   * added; the last one out stops the hub.
   */
  leave(subscriber: Subscriber): void {
    if (!this.counted.delete(subscriber)) return;
    open -= 1;
    for (const member of this.members) if (member.subscriber === subscriber) this.members.delete(member);
    if (this.counted.size === 0) this.stop();
  }

  /** Reads the outbox past the position now (or right after the read under way). */
  wake(): void {
    if (this.position === undefined) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void outsideRequests(() => this.read()).finally(() => {
      this.reading = false;
    });
  }

  private async catchUp(subscriber: Subscriber, after: bigint, upTo: bigint): Promise<void> {
    if (!(await holdsChange(this.sequelize, after))) {
      // Pruned, or never sent: the client refetches, and goes on from the feed's present position.
      subscriber.lastSent = upTo;
      subscriber.send(frameReset(upTo.toString()));
      return;
    }
    // Ahead of this process (sent by another one): the events after it come live.
    if (after >= upTo) return;
    let cursor = after;
    for (;;) {
      const events = await readChanges(this.sequelize, cursor, PAGE, upTo);
      for (const event of events) this.hand(subscriber, event);
      if (events.length < PAGE) return;
      cursor = BigInt(events[events.length - 1]!.id);
    }
  }

  private hand(subscriber: Subscriber, event: ChangeEvent): void {
    const id = BigInt(event.id);
    if (id <= subscriber.lastSent) return;
    subscriber.lastSent = id;
    const shown = eventFor(subscriber.filter, event);
    if (shown !== undefined) subscriber.send(frameEvent(shown));
  }

  private start(): Promise<void> {
    this.starting ??= outsideRequests(async () => {
      this.position = { cursor: await lastChangeId(this.sequelize), gapSince: undefined };
      const dialect = this.sequelize.getDialect();
      // MariaDB (and any other database) is polled; PostgreSQL announces writes, and is polled seldom in case a
      // notification was lost with its connection; SQLite's writes are this process's own.
      if (dialect !== 'sqlite') {
        const every = dialect === 'postgres' ? this.config.poll_ms * 10 : this.config.poll_ms;
        this.poll = setInterval(() => {
          if (dialect === 'postgres' && this.listener === undefined) this.listen().catch(() => undefined);
          this.wake();
        }, every);
        this.poll.unref();
      }
      if (dialect === 'postgres') await this.listen();
    }).catch((error: unknown) => {
      this.stop();
      throw error;
    });
    return this.starting;
  }

  private stop(): void {
    clearInterval(this.poll);
    clearTimeout(this.gapTimer);
    this.poll = undefined;
    this.gapTimer = undefined;
    this.position = undefined;
    this.starting = undefined;
    const client = this.listener;
    this.listener = undefined;
    if (client !== undefined) void outsideRequests(() => this.release(client, true));
  }

  /** Takes a connection of the pool for `LISTEN` (Sequelize's public `connectionManager.getConnection`). */
  private listen(): Promise<void> {
    this.listening ??= (async () => {
      const manager = this.sequelize.connectionManager as unknown as {
        getConnection(options: { type: string }): Promise<ListenClient>;
      };
      const client = await manager.getConnection({ type: 'write' });
      try {
        client.on('notification', () => this.wake());
        const lost = () => {
          if (this.listener !== client) return;
          this.listener = undefined;
          void this.release(client, false);
        };
        client.on('error', lost);
        client.on('end', lost);
        await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
        if (this.position === undefined) {
          await this.release(client, true);
          return;
        }
        this.listener = client;
        // Whatever committed between reading the position and listening.
        this.wake();
      } catch (error) {
        await this.release(client, false);
        throw error;
      }
    })().finally(() => {
      this.listening = undefined;
    });
    return this.listening;
  }

  private async release(client: ListenClient, healthy: boolean): Promise<void> {
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    try {
      if (healthy) await client.query(`UNLISTEN ${OUTBOX_CHANNEL}`);
    } catch {
      // The connection is going back to the pool anyway, or away.
    }
    const manager = this.sequelize.connectionManager as unknown as {
      releaseConnection(connection: unknown): unknown;
    };
    await Promise.resolve()
      .then(() => manager.releaseConnection(client))
      .catch(() => undefined);
    // An error after release has nowhere to go but here.
    client.removeAllListeners('error');
    client.on('error', () => undefined);
  }

  private async read(): Promise<void> {
    try {
      do {
        this.again = false;
        if (this.position === undefined) return;
        // On the listening connection while there is one: the pool may be busy with a burst of writes, and the
        // events would wait behind them.
        const listener = this.listener;
        const events =
          listener === undefined
            ? await readChanges(this.sequelize, this.position.cursor, PAGE)
            : await readChangesOn(this.sequelize, listener, this.position.cursor, PAGE);
        if (this.position === undefined) return;
        const byId = new Map(events.map((event) => [BigInt(event.id), event]));
        const { deliver, position } = advance(this.position, [...byId.keys()], Date.now(), GAP_GRACE_MS);
        this.position = position;
        for (const id of deliver) this.fanOut(byId.get(id)!);
        if (events.length === PAGE && deliver.length > 0) this.again = true;
        if (position.gapSince !== undefined && this.gapTimer === undefined) {
          this.gapTimer = setTimeout(() => {
            this.gapTimer = undefined;
            this.wake();
          }, GAP_GRACE_MS);
          this.gapTimer.unref();
        }
      } while (this.again);
    } catch {
      // The outbox could not be read now: the next write, notification or poll tries again.
    }
  }

  private fanOut(event: ChangeEvent): void {
    for (const member of this.members) {
      if (member.queue !== undefined) member.queue.push(event);
      else this.hand(member.subscriber, event);
    }
  }
}
