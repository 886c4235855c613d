/**
 * The built doc site, in Debian's Chromium: `npm run docs:build`'s two steps (TypeDoc, then VitePress)
 * run into a temporary folder; every page reachable from the home page loads with no console error,
 * every internal link and anchor resolves, and the local search finds "options".
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { browserInSuite, browserSkipReason, type WatchedPage } from '../support/browser.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** The file a site path names, as a static host serves VitePress output (`/a/` → `/a/index.html`). */
function fileFor(root: string, pathname: string): string | undefined {
  const relative = normalize(decodeURIComponent(pathname)).replace(/^(\.\.[/\\])+/, '');
  for (const candidate of [relative, `${relative}.html`, join(relative, 'index.html')]) {
    const file = join(root, candidate);
    if (file.startsWith(root) && existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

function serveStatic(root: string): Promise<Server> {
  const server = createServer((req, res) => {
    const file = fileFor(root, new URL(req.url!, 'http://x').pathname);
    res.writeHead(file ? 200 : 404, { 'content-type': TYPES[extname(file ?? '.html')] ?? 'application/octet-stream' });
    res.end(readFileSync(file ?? join(root, '404.html')));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('the doc site, built and opened in a browser', { skip: browserSkipReason() }, () => {
  const browser = browserInSuite();
  const outDir = mkdtempSync(join(tmpdir(), 'fast-crud-site-'));
  let server: Server;
  let base: string;

  before(async () => {
    execFileSync('npx', ['typedoc', '--logLevel', 'Warn'], { stdio: 'pipe', timeout: 600_000 });
    execFileSync('npx', ['vitepress', 'build', 'docs', '--outDir', outDir], { stdio: 'pipe', timeout: 600_000 });
    server = await serveStatic(outDir);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('every page loads without a console error, and every internal link and anchor resolves', async () => {
    const tabs = await Promise.all(Array.from({ length: 2 }, () => browser.open()));
    const seen = new Set<string>(['/']);
    const queue = ['/'];
    const broken: string[] = [];
    const anchors: { path: string; id: string; from: string }[] = [];
    const ids = new Map<string, Set<string>>();
    let busy = 0;
    // Two tabs take pages off one queue; a tab stops when the queue is empty and no tab can add to it.
    const failures: string[] = [];
    const crawl = async ({ page, problems }: WatchedPage): Promise<void> => {
      for (;;) {
        const path = queue.shift();
        if (path === undefined) {
          if (busy === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        busy += 1;
        const known = problems.length;
        const response = await page.goto(base + path, { waitUntil: 'load' });
        if (response?.status() === 200) {
          const { links, pageIds } = await page.evaluate(() => ({
            links: [...document.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href),
            pageIds: [...document.querySelectorAll('[id]')].map((e) => e.id),
          }));
          ids.set(path, new Set(pageIds));
          for (const url of links.map((href) => new URL(href)).filter((u) => u.origin === base)) {
            if (url.hash.length > 1)
              anchors.push({ path: url.pathname, id: decodeURIComponent(url.hash.slice(1)), from: path });
            if (!seen.has(url.pathname)) {
              seen.add(url.pathname);
              queue.push(url.pathname);
            }
          }
        } else broken.push(`${path}: HTTP ${response?.status()}`);
        failures.push(...problems.slice(known).map((problem) => `${path}: ${problem}`));
        busy -= 1;
      }
    };
    await Promise.all(tabs.map(crawl));
    for (const { path, id, from } of anchors) {
      if (ids.has(path) && !ids.get(path)!.has(id)) broken.push(`${path}#${id} (linked from ${from})`);
    }
    assert.ok(seen.size >= 40, `reached only ${seen.size} pages`);
    assert.ok(
      [...seen].some((p) => p.startsWith('/api/')),
      'the API reference is linked',
    );
    assert.deepEqual(broken, []);
    assert.deepEqual(failures, []);
  });

  it('the local search finds the options page when a reader types "options"', async () => {
    const { page, problems } = await browser.open();
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: /search/i }).click();
    await page.getByRole('searchbox').fill('options');
    const hits = page.locator('.VPLocalSearchBox .result');
    await hits.first().waitFor();
    const titles = await hits.allInnerTexts();
    await browser.shot(page, 'doc-site-search');
    assert.ok(
      titles.some((t) => /options/i.test(t)),
      titles.join(' | '),
    );
    await hits
      .filter({ hasText: /Options for select boxes/ })
      .first()
      .click();
    await page.waitForURL(/\/actions\/options/);
    assert.deepEqual(problems, []);
  });

  it('the home page leads to the guide', async () => {
    const { page, problems } = await browser.open();
    await page.goto(`${base}/`);
    await browser.shot(page, 'doc-site-home');
    await page.getByRole('link', { name: 'Get started' }).click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.match(page.url(), /\/guide\/getting-started/);
    assert.deepEqual(problems, []);
  });
});
