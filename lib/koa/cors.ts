/** The shell of CORS: writes the headers `lib/core/cross-origin.ts` decides, and answers preflights on crud's paths. */
import type { Context, Middleware, Next } from 'koa';
import { preflightHeaders } from '../core/cross-origin.js';
import type { CorsConfig } from '../types.js';

/**
 * Sets reply headers, adding `Vary` to the reply's own instead of replacing it.
 * @example setHeaders(ctx, corsHeaders(ctx.get('origin'), config.cors))
 */
export function setHeaders(ctx: Context, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'Vary') value.split(', ').forEach((field) => ctx.vary(field));
    else ctx.set(name, value);
  }
}

/**
 * A request header, or undefined when it is absent.
 * @example requestHeader(ctx, 'origin') // 'https://admin.example.com'
 */
export function requestHeader(ctx: Context, name: string): string | undefined {
  const value = ctx.get(name);
  return value === '' ? undefined : value;
}

/**
 * Middleware for the `OPTIONS` route of a path `crud` serves with `methods`: it answers a CORS
 * preflight from a trusted origin (204, `Access-Control-Allow-*`) and passes any other `OPTIONS`
 * on to `router.allowedMethods()`, which answers it with `Allow`.
 * @example router.options('/products', preflight(['GET', 'POST'], config.cors))
 */
export function preflight(methods: readonly string[], cors: CorsConfig): Middleware {
  return function fastCrudPreflight(ctx: Context, next: Next) {
    const request = {
      origin: requestHeader(ctx, 'origin'),
      requestMethod: requestHeader(ctx, 'access-control-request-method'),
      requestHeaders: requestHeader(ctx, 'access-control-request-headers'),
    };
    const headers = preflightHeaders(request, cors, methods);
    if (headers === undefined) return next();
    setHeaders(ctx, headers);
    ctx.status = 204;
    return Promise.resolve();
  };
}
