/** One router layer's middleware for every verb `crud` serves on one path. */
import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { Verb } from '../types.js';

/**
 * Middleware that runs the middleware of the request's verb (HEAD runs GET's, as @koa/router
 * routes it), and passes any other verb on with `next()`. The layer it is registered on lists the
 * same verbs, so @koa/router's `allowedMethods` answers 405 and `Allow` as it did for one layer per verb.
 * @example router.register('/products', ['get', 'post'], pathMiddleware([['get', search], ['post', create]]))
 */
export function pathMiddleware(byVerb: readonly (readonly [Verb, Middleware])[]): Middleware {
  const table = new Map<string, Middleware>();
  for (const [verb, middleware] of byVerb) {
    const method = verb.toUpperCase();
    if (!table.has(method)) table.set(method, middleware);
    if (method === 'GET' && !table.has('HEAD')) table.set('HEAD', middleware);
  }
  return function fastCrudPath(ctx: ParameterizedContext, next: Next) {
    const middleware = table.get(ctx.method);
    return middleware === undefined ? next() : middleware(ctx, next);
  };
}
