/**
 * The demo page at `/`: plain HTML, one JavaScript module and one stylesheet from this folder, served
 * as they are (no build step, no CDN). Only the files named here are served; any other name is a 404.
 */
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';

const ASSETS: Readonly<Record<string, string>> = {
  'demo.js': 'text/javascript; charset=utf-8',
  'demo.css': 'text/css; charset=utf-8',
};

const folder = dirname(fileURLToPath(import.meta.url));

/** The page talks to its own origin only; the favicon is the `data:` URL the page declares. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function send(ctx: Context, file: string, type: string): void {
  ctx.type = type;
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = createReadStream(join(folder, file));
}

/** Routes for the page (`/`) and its two assets (`/assets/demo.js`, `/assets/demo.css`). */
export function pageRouter(): Router {
  return new Router()
    .get('/', (ctx) => {
      send(ctx, 'index.html', 'text/html; charset=utf-8');
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    })
    .get('/assets/:file', (ctx) => {
      const file = ctx.params['file']!;
      if (!Object.hasOwn(ASSETS, file)) return;
      send(ctx, file, ASSETS[file]!);
    });
}
