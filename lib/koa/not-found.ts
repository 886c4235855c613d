/** notFound: JSend 404 and 405 replies for requests no router answered, mounted after the routers. */
import type { Context, Next } from 'koa';
import { statusOf } from '../core/error-codes.js';
import { fail } from '../core/jsend.js';

/** The methods @koa/router implements by default; for any other, its allowedMethods answers 501. */
const ROUTER_METHODS: ReadonlySet<string> = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * Middleware that answers a request nothing else answered as JSend instead of Koa's plain text: a
 * 404 `routeNotFound` (a non-UUID `{id}` reaches it too), and for a path that routes serve with other
 * methods, a 405 `methodNotAllowed` with `Allow` listing them, as `router.allowedMethods()` would.
 * Mount it after the routers and their `allowedMethods()`, which still answers `OPTIONS` and the
 * 501 of a method the router does not implement.
 * @example app.use(router.routes()).use(router.allowedMethods()).use(notFound());
 */
export function notFound() {
  return async function fastCrudNotFound(ctx: Context, next: Next): Promise<void> {
    await next();
    if (ctx.body != null || (ctx.status !== 404 && ctx.status !== undefined)) return;
    const served = servedMethods(ctx);
    if (!ROUTER_METHODS.has(ctx.method) || (ctx.method === 'OPTIONS' && served.length > 0)) return;
    // A route of this method that passed the request on (a non-UUID `{id}`) makes it a 404.
    const allowed = served.includes(ctx.method) ? [] : served;
    const reply = allowed.length > 0 ? methodNotAllowed(ctx, allowed) : routeNotFound(ctx);
    ctx.status = reply.status;
    if (allowed.length > 0) ctx.set('Allow', allowed.join(', '));
    ctx.body = reply.body;
  };
}

function routeNotFound(ctx: Context) {
  const message = `No route matches ${ctx.method} ${ctx.path}`;
  return fail(statusOf('routeNotFound'), [{ field: null, error: 'routeNotFound', message }]);
}

function methodNotAllowed(ctx: Context, allowed: readonly string[]) {
  const message = `${ctx.path} does not answer ${ctx.method}; it answers ${allowed.join(', ')}`;
  return fail(statusOf('methodNotAllowed'), [{ field: null, error: 'methodNotAllowed', message }]);
}

/** The methods of the routes @koa/router matched by path, in its order (allowedMethods' `Allow`). */
function servedMethods(ctx: Context): string[] {
  const matched = (ctx as Context & { matched?: readonly { methods?: readonly string[] }[] }).matched ?? [];
  return [...new Set(matched.flatMap((layer) => layer.methods ?? []))];
}
