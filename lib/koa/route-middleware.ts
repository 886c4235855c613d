/** One planned route as Koa middleware: uuid matching, the ability check, the action call, the one error exit. */
import type { Context, Next } from 'koa';
import { fail } from '../core/jsend.js';
import { replyForError } from '../core/error-reply.js';
import { statusOf } from '../core/error-codes.js';
import { isUuid } from '../core/route-path.js';
import type { Can, FastCrudConfig, Reply, RouteDef } from '../types.js';
import type { RouteHandler } from './route-handler.js';

export type { ControllerClass } from '../resource/controller-resource.js';

/** What a route's middleware needs besides its plan. */
export interface RouteRuntime {
  /** Runs the route's action for a request (see `unsafeRouteHandler`). */
  readonly handler: RouteHandler;
  readonly config: FastCrudConfig;
  readonly can: Can | undefined;
  readonly uuidParams: readonly string[];
}

/**
 * Middleware serving one planned route. A uuid parameter that does not hold a UUID makes the
 * route not match: it passes on to the next matching route, or Koa's 404, and runs no controller code.
 * @example router.get('/products/:id', routeMiddleware(def, { handler, config, can, uuidParams: ['id'] }))
 */
export function routeMiddleware(def: RouteDef, runtime: RouteRuntime) {
  return async function fastCrudRoute(ctx: Context, next: Next): Promise<void> {
    const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
    if (!runtime.uuidParams.every((name) => isUuid(params[name]))) return next();
    try {
      const reply = await serve(ctx, def, runtime);
      if (reply !== undefined) writeReply(ctx, reply);
    } catch (thrown) {
      const reply = replyForError(thrown, runtime.config.global.validation.http_status);
      if (reply.status >= 500) ctx.app.emit('error', thrown, ctx);
      writeReply(ctx, reply);
    }
  };
}

async function serve(ctx: Context, def: RouteDef, { handler, can }: RouteRuntime): Promise<Reply | undefined> {
  if (def.ability !== null && !(await can!(ctx, def.ability))) return forbidden(def.ability);
  return handler(ctx, def.method);
}

function forbidden(ability: string): Reply {
  return fail(statusOf('forbidden'), [{ field: null, error: 'forbidden', message: `This action needs the ability ${ability}` }]);
}

function writeReply(ctx: Context, reply: Reply): void {
  ctx.status = reply.status;
  ctx.body = reply.body;
}
