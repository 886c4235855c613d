/**
 * The demo's react-admin app at /admin (source in ../admin/): its page and one script, which esbuild
 * bundles in memory from ../admin/main.tsx the first time it is asked for (a few seconds), so
 * `npm start` needs no build step. Only the two URLs named here are served.
 */
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';

const ENTRY = fileURLToPath(new URL('../admin/main.tsx', import.meta.url));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>koa-fast-crud demo admin</title>
  <link rel="icon" href="data:,">
</head>
<body>
  <div id="root"></div>
  <script type="module" src="/admin/assets/admin.js"></script>
</body>
</html>
`;

/** Its own origin only; Material UI (emotion) writes its styles into `<style>` elements, hence `'unsafe-inline'` for styles alone. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The bundle and the files it was made from (relative to the working directory, as esbuild names them). */
export interface AdminBundle {
  readonly code: string;
  readonly inputs: readonly string[];
}

/**
 * Bundles the admin app for the browser (or another page of the same kind, from `entry`, as the browser tests'
 * own pages). React's development build: its warnings reach the console, where the browser test sees them.
 */
export async function buildAdminBundle(entry: string = ENTRY): Promise<AdminBundle> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"development"' },
    metafile: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
}

/** Routes for the admin page (`/admin`) and its bundle (`/admin/assets/admin.js`); the bundle is built once, on first use. */
export function adminRouter(): Router & { ready(): Promise<AdminBundle> } {
  let bundle: Promise<AdminBundle> | undefined;
  const ready = () => {
    bundle ??= buildAdminBundle();
    // A failed build is retried on the next request rather than kept.
    bundle.catch(() => (bundle = undefined));
    return bundle;
  };
  const router = new Router({ prefix: '/admin' })
    .get('/', (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      ctx.body = PAGE;
    })
    .get('/assets/admin.js', async (ctx) => {
      const { code } = await ready();
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = code;
    });
  return Object.assign(router, { ready });
}
