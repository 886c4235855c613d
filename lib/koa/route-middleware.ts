/**
 * One planned route as Koa middleware: uuid matching, the ability check, the action call under the request's deadline,
 * the one error exit.
 */
import type { Context, Next } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import { SAFE_METHODS, corsHeaders, crossOriginCheck } from '../core/cross-origin.js';
import type { CrossOriginRefusal, CrossOriginRequest } from '../core/cross-origin.js';
import { fail } from '../core/jsend.js';
import { replyForError } from '../core/error-reply.js';
import { statusOf } from '../core/error-codes.js';
import { isUuid } from '../core/route-path.js';
import { RequestWork, runUnderDeadline } from '../execute/deadline.js';
import type { Can, CrudMethod, FastCrudConfig, Reply, RouteDef } from '../types.js';
import type { RouteHandler } from './route-handler.js';
import { requestHeader, setHeaders } from './cors.js';
import { serializedBody } from '../actions/record-tag.js';
import { withheldMeta } from './withheld-meta.js';

export type { ControllerClass } from '../resource/controller-resource.js';

/** What a route's middleware needs besides its plan. */
export interface RouteRuntime {
  /** Runs the route's action for a request (see `unsafeRouteHandler`). */
  readonly handler: RouteHandler;
  readonly config: FastCrudConfig;
  readonly can: Can | undefined;
  readonly uuidParams: readonly string[];
}

/** The actions that only read: a client that leaves before its reply cancels their queries. A write runs to its end. */
const READS: ReadonlySet<CrudMethod> = new Set(['search', 'options', 'read', 'exportCsv']);

/** Why a read stopped when its client left; never answered, never reported. */
class ClientGone extends Error {
  override readonly name = 'FastCrudClientGone';
}

/**
 * Middleware serving one planned route. A uuid parameter that does not hold a UUID makes the
 * route not match: it passes on to the next matching route, or Koa's 404, and runs no controller code.
 * It answers CORS headers for the origins of `cors.origins`, and refuses a browser's unsafe request
 * from any other origin with a 403 `crossOrigin` fail (see `crossOriginCheck`) before anything reads it.
 * A URL longer than `global.max_url_length` is a 414 `uriTooLong` fail before anything reads it.
 * The action runs under the request's deadline, `global.timeout_ms` (see `runUnderDeadline`):
 * past it, the reply is a 503 `databaseTimeout`. A read whose client disconnects is stopped and
 * its query cancelled. Every error reply of status 500 or more is reported on the app's `error` event.
 * @example router.get('/products/:id', routeMiddleware(def, { handler, config, can, uuidParams: ['id'] }))
 */
export function routeMiddleware(def: RouteDef, runtime: RouteRuntime) {
  // Decided once per route: with no trusted origin, `corsHeaders` gives no header whatever the request; a route of a
  // safe method (GET also answers HEAD) always passes `crossOriginCheck`, which then reads nothing else of the request.
  const withCors = runtime.config.cors.origins.length > 0;
  const unsafe = !SAFE_METHODS.has(def.verb.toUpperCase());
  return async function fastCrudRoute(ctx: Context, next: Next): Promise<void> {
    if (runtime.uuidParams.length > 0 && !hasUuids(ctx, runtime.uuidParams)) {
      await next();
      return;
    }
    if (withCors) setHeaders(ctx, corsHeaders(requestHeader(ctx, 'origin'), runtime.config.cors));
    const crossSite = unsafe ? crossOriginCheck(crossOriginRequest(ctx), runtime.config.cors.origins) : undefined;
    if (crossSite !== undefined && E.isLeft(crossSite)) return writeReply(ctx, crossOriginRefused(crossSite.left));
    if (ctx.url.length > runtime.config.global.max_url_length)
      return writeReply(ctx, uriTooLong(runtime.config.global.max_url_length));
    const work = new RequestWork(runtime.config.global.timeout_ms);
    // `on`, not `once`: a response closes once, and `once` would wrap the listener and take it off again.
    if (READS.has(def.method))
      ctx.res.on(
        'close',
        () => ctx.res.writableFinished || work.stop(new ClientGone('The client closed the connection')),
      );
    try {
      const reply = await runUnderDeadline(work, () => serve(ctx, def, runtime));
      if (reply !== undefined) writeReply(ctx, reply);
    } catch (thrown) {
      if (thrown instanceof ClientGone) return;
      const reply = replyForError(thrown, runtime.config.global.validation.http_status, runtime.handler.fields);
      if (reply.status >= 500) ctx.app.emit('error', thrown, ctx);
      writeReply(ctx, reply);
    }
  };
}

/** True when each of the route's uuid parameters holds a UUID. */
function hasUuids(ctx: Context, names: readonly string[]): boolean {
  const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
  return names.every((name) => isUuid(params[name]));
}

/** The route's action, after its ability check; not an async function, which would wrap the action's promise again. */
function serve(ctx: Context, def: RouteDef, { handler, can }: RouteRuntime): Promise<Reply | undefined> {
  if (def.ability === null) return handler(ctx, def.method, def.batch === true);
  const { ability } = def;
  return Promise.resolve(can!(ctx, ability)).then((allowed) =>
    allowed ? handler(ctx, def.method, def.batch === true) : forbidden(ability),
  );
}

function forbidden(ability: string): Reply {
  return fail(statusOf('forbidden'), [
    { field: null, error: 'forbidden', message: `This action needs the ability ${ability}` },
  ]);
}

function crossOriginRefused({ field, value }: CrossOriginRefusal): Reply {
  const sent = field === 'origin' ? `from the origin ${value}` : `as ${value}`;
  const message = `A browser sent this request ${sent}, from an origin cors.origins does not list`;
  return fail(statusOf('crossOrigin'), [{ field, error: 'crossOrigin', message }]);
}

/** The request's headers the cross-origin check reads. */
function crossOriginRequest(ctx: Context): CrossOriginRequest {
  const secFetchSite = requestHeader(ctx, 'sec-fetch-site');
  return { method: ctx.method, secFetchSite, origin: requestHeader(ctx, 'origin'), host: ctx.host };
}

function uriTooLong(max: number): Reply {
  return fail(statusOf('uriTooLong'), [
    {
      field: 'url',
      error: 'uriTooLong',
      message: `The URL is longer than ${max} characters (global.max_url_length): send fewer or shorter filters`,
    },
  ]);
}

function writeReply(ctx: Context, reply: Reply): void {
  ctx.status = reply.status;
  if (reply.headers !== undefined) ctx.set(reply.headers);
  // A 304 has no body (RFC 9110 §15.4.5): none is made, nor its Content-Type, which Koa would drop again.
  if (reply.status === 304) {
    ctx.body = null;
    return;
  }
  const { body } = reply;
  if (body.status !== 'success') {
    ctx.body = body;
    return;
  }
  const meta = withheldMeta(ctx, body.meta);
  // A search page's JSON was made for its ETag already: send that text rather than serialize the body twice.
  const json = meta === body.meta ? serializedBody(reply) : undefined;
  if (json !== undefined) {
    ctx.type = 'application/json';
    ctx.body = json;
    return;
  }
  ctx.body = meta === body.meta ? body : { ...body, meta };
}
