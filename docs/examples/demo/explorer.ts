/** The demo's API explorer at /docs: Swagger UI from the swagger-ui-dist package, served locally (no CDN). */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Router from '@koa/router';

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const page = (specUrl: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>koa-fast-crud demo — API explorer</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="explorer"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#explorer', deepLinking: true });</script>
</body>
</html>
`;

/** Routes for the explorer page and its two assets; any other asset name is a 404. */
export function explorerRouter(specUrl: string): Router {
  return new Router({ prefix: '/docs' })
    .get('/', (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page(specUrl);
    })
    .get('/assets/:file', (ctx) => {
      const type = Object.hasOwn(ASSETS, ctx.params['file']!) ? ASSETS[ctx.params['file']!] : undefined;
      if (type === undefined) return;
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = createReadStream(join(root, ctx.params['file']!));
    });
}
