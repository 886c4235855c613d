/** The change feed: `GET <uri>/changes`, a Server-Sent Events stream of the resource's committed writes. */
import { PassThrough } from 'node:stream';
import * as E from 'fp-ts/lib/Either.js';
import { frameComment, frameRetry, parseFeedIds, parseLastEventId } from '../core/live-feed.js';
import type { FailItem, Reply } from '../types.js';
import { liveHub, openStreams, type Subscriber } from '../execute/live-hub.js';
import { outsideRequests } from '../execute/deadline.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';

/** The headers of a stream: not cached, not transformed or buffered by proxies (nginx reads `X-Accel-Buffering`). */
const STREAM_HEADERS = Object.freeze({
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
});

/**
 * Serves `GET <uri>/changes` (a resource declared `live: true`): checks `?ids=` and `Last-Event-ID` (a 400 naming
 * either), resolves the request's row scopes (a tenant-scoped resource without a tenant: the scope's 403), refuses a
 * stream past `live.max_subscribers` (503 `tooManySubscribers`), then answers `text/event-stream` at once with a
 * `retry:` hint, the events missed since `Last-Event-ID`, and from then on every event the request may see, with a
 * comment every `live.heartbeat_s`. A subscriber with more than `live.max_buffered_events` events waiting is closed;
 * a client that leaves frees its subscription.
 * @example const reply = await changesAction(resourceScope(bound, ctx, readBody));
 */
export async function changesAction(scope: ActionScope): Promise<Reply | undefined> {
  const { ctx, config, model } = scope;
  const problems: FailItem[] = [];
  if (config.search.strict_params)
    for (const key of Object.keys(ctx.query))
      if (key !== 'ids')
        problems.push({
          field: key,
          error: 'unknownParameter',
          message: `The change feed reads no parameter ${key}: only ids`,
        });
  const ids = parseFeedIds(ctx.query['ids']);
  if (E.isLeft(ids)) problems.push(ids.left);
  const last = parseLastEventId(ctx.get('last-event-id') || undefined);
  if (E.isLeft(last)) problems.push(last.left);
  if (problems.length > 0 || E.isLeft(ids) || E.isLeft(last)) return scope.answers.answerFail(problems);
  const scopes = (await rowScopesOf(scope, 'changes')).get(model) ?? [];
  const live = config.live;
  if (openStreams() >= live.max_subscribers)
    return {
      status: 503,
      headers: { 'Retry-After': String(Math.ceil(live.retry_ms / 1000)) },
      body: {
        status: 'error',
        code: 'tooManySubscribers',
        message: 'This server has as many change feeds open as it serves (live.max_subscribers): retry later',
      },
    };
  const hub = liveHub(model.sequelize!, live);
  const body = new PassThrough();
  let waiting = 0;
  body.on('drain', () => {
    waiting = 0;
  });
  const subscriber: Subscriber = {
    filter: { resource: model.name, ids: ids.right, scopes },
    lastSent: 0n,
    send: (frame) => {
      if (body.destroyed) return;
      if (body.write(frame)) return;
      waiting += 1;
      if (waiting >= live.max_buffered_events) subscriber.close();
    },
    close: () => {
      body.destroy();
      ctx.res.destroy();
    },
  };
  body.write(frameRetry(live.retry_ms));
  const lastEventId = last.right === undefined ? undefined : BigInt(last.right);
  // Registered before the headers go: a client that writes once its stream is open hears of its write.
  const { caughtUp } = await outsideRequests(() => hub.join(subscriber, lastEventId));
  // Answered meanwhile (the deadline passed while the feed started) or left: nothing to serve.
  if (ctx.res.headersSent || ctx.res.destroyed) {
    hub.leave(subscriber);
    return undefined;
  }
  ctx.status = 200;
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.set(STREAM_HEADERS);
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.body = body;
  let left = false;
  const heartbeat = outsideRequests(() =>
    setInterval(() => {
      if (!body.destroyed && body.writableLength === 0) body.write(frameComment('heartbeat'));
    }, live.heartbeat_s * 1000),
  );
  heartbeat.unref();
  const leave = () => {
    if (left) return;
    left = true;
    clearInterval(heartbeat);
    hub.leave(subscriber);
  };
  ctx.res.once('close', leave);
  body.once('close', leave);
  // The missed events are sent while the client reads.
  caughtUp.catch((error: unknown) => {
    if (!left) ctx.app.emit('error', error, ctx);
    subscriber.close();
  });
  return undefined;
}
