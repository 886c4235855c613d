/** notFound: a JSend 404 for requests no router answered, mounted after the routers. */
import type { Context, Next } from 'koa';
import { statusOf } from '../core/error-codes.js';
import { fail } from '../core/jsend.js';

/** The methods @koa/router implements by default; for any other, its allowedMethods answers 501. */
const ROUTER_METHODS: ReadonlySet<string> = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * Middleware that answers a request nothing else answered with a JSend 404 `routeNotFound`, instead
 * of Koa's plain-text "Not Found" (a non-UUID `{id}` reaches it too). Mount it after the routers and
 * their `allowedMethods()`: a path a route serves with other methods, and a method the router does
 * not implement, are left to `allowedMethods()` (405 with `Allow`, 501).
 * @example app.use(router.routes()).use(router.allowedMethods()).use(notFound());
 */
export function notFound() {
  return async function fastCrudNotFound(ctx: Context, next: Next): Promise<void> {
    await next();
    if (ctx.body != null || (ctx.status !== 404 && ctx.status !== undefined)) return;
    if (!ROUTER_METHODS.has(ctx.method) || servesOtherMethods(ctx)) return;
    const reply = fail(statusOf('routeNotFound'), [{ field: null, error: 'routeNotFound', message: `No route matches ${ctx.method} ${ctx.path}` }]);
    ctx.status = reply.status;
    ctx.body = reply.body;
  };
}

/**
 * True when @koa/router matched the path only with routes of other methods: its allowedMethods
 * answers 405. A route of this method that passed the request on (a non-UUID `{id}`) is a 404.
 */
function servesOtherMethods(ctx: Context): boolean {
  const matched = (ctx as Context & { matched?: readonly { methods?: readonly string[] }[] }).matched ?? [];
  const methods = matched.flatMap((layer) => layer.methods ?? []);
  return methods.length > 0 && !methods.includes(ctx.method);
}
