/**
 * Refine's bulk hooks in Chromium against the demo: a test-only page (./refine-bulk/page.tsx, bundled here by esbuild
 * as the demo bundles its admin app, and served on the demo's origin by the browser's request routing) calls
 * `useCreateMany`, `useUpdateMany` and `useDeleteMany` through `koa-fast-crud/refine` with `batch: true`. Each call is
 * one request (counted), and the API then answers what it did; a batch with one bad item writes nothing.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserInSuite, browserSkipReason, type WatchedPage, eventually } from '../support/browser.js';
import { demoApi, serveDemoInSuite, type DemoProduct as Product, type OptionItem } from '../support/demo.js';

const ENTRY = fileURLToPath(new URL('./refine-bulk/page.tsx', import.meta.url));

/** The page's script, bundled as the demo bundles its admin app. */
async function bundle(): Promise<string> {
  const { buildAdminBundle } = await import('../../docs/examples/demo/admin.js');
  return (await buildAdminBundle(ENTRY)).code;
}

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Refine bulk hooks</title><link rel="icon" href="data:,"></head>
<body><div id="root"></div><script type="module" src="/refine-bulk/page.js"></script></body>
</html>
`;

describe("Refine's bulk hooks, in a browser against the demo", { skip: browserSkipReason() }, () => {
  const demo = serveDemoInSuite();
  const browser = browserInSuite();
  const opened: Page[] = [];
  /** Every API write each page sent, as `METHOD /path?query` (decoded), with its JSON body. */
  const writes = new Map<Page, { call: string; body: unknown }[]>();
  let script = '';
  before(async () => {
    script = await bundle();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((page) => page.context().close()));
  });

  const { data: apiData, skus: apiSkus } = demoApi(demo);

  async function openPage(categoryId: string): Promise<WatchedPage> {
    const watched = await browser.open();
    const { page } = watched;
    opened.push(page);
    const sent: { call: string; body: unknown }[] = [];
    writes.set(page, sent);
    await page.route(`${demo().url}/refine-bulk/**`, (route) => {
      const { pathname } = new URL(route.request().url());
      return pathname === '/refine-bulk/page.js'
        ? route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: script })
        : route.fulfill({ contentType: 'text/html; charset=utf-8', body: PAGE });
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/') && request.method() !== 'GET')
        sent.push({
          call: `${request.method()} ${decodeURIComponent(url.pathname + url.search)}`,
          body: request.postData() === null ? undefined : request.postDataJSON(),
        });
    });
    await page.goto(`${demo().url}/refine-bulk/?categoryId=${categoryId}`);
    await page.getByRole('button', { name: 'Create two' }).waitFor();
    return watched;
  }

  const logLines = (page: Page) => page.locator('#log li').allTextContents();
  /** Clicks the button and waits for the call's line in the log; the writes it sent. */
  async function run(page: Page, button: string, line: RegExp) {
    const before = writes.get(page)!.length;
    const lines = (await logLines(page)).length;
    await page.getByRole('button', { name: button, exact: true }).click();
    await eventually(async () => assert.equal((await logLines(page)).length, lines + 1));
    assert.match((await logLines(page)).at(-1)!, line);
    return writes.get(page)!.slice(before);
  }

  it('useCreateMany, useUpdateMany and useDeleteMany each send one request, which the API then answers', async () => {
    const books = (await apiData<OptionItem[]>('/api/categories/options?label=name')).find((o) => o.label === 'Books')!;
    const { page, problems } = await openPage(books.value);

    const created = await run(page, 'Create two', /^created RF-001,RF-002$/);
    assert.deepEqual(created, [
      {
        call: 'POST /api/products',
        body: [
          { sku: 'RF-001', name: 'Refine 1', price: 11, categoryId: books.value },
          { sku: 'RF-002', name: 'Refine 2', price: 12, categoryId: books.value },
        ],
      },
    ]);
    const stored = await apiData<Product[]>('/api/products?filter[sku][in]=RF-001,RF-002&sort=sku');
    assert.deepEqual(
      stored.map((p) => [p.sku, p.price, p.categoryId]),
      [
        ['RF-001', 11, books.value],
        ['RF-002', 12, books.value],
      ],
    );
    const ids = stored.map((p) => p.id).sort();

    const updated = await run(page, 'Update', /^updated RF-00\d:9\.5,RF-00\d:9\.5$/);
    assert.equal(updated.length, 1, JSON.stringify(updated));
    const idsIn = (call: string) =>
      call
        .replace(/^\w+ \/api\/products\?filter\[id\]\[in\]=/, '')
        .split(',')
        .sort();
    assert.ok(updated[0]!.call.startsWith('PATCH /api/products?filter[id][in]='), updated[0]!.call);
    assert.deepEqual(idsIn(updated[0]!.call), ids);
    assert.deepEqual(updated[0]!.body, { price: 9.5 });
    assert.deepEqual(
      (await apiData<Product[]>('/api/products?filter[sku][in]=RF-001,RF-002')).map((p) => p.price),
      [9.5, 9.5],
    );

    const deleted = await run(page, 'Delete', /^deleted 2$/);
    assert.equal(deleted.length, 1, JSON.stringify(deleted));
    assert.ok(deleted[0]!.call.startsWith('DELETE /api/products?filter[id][in]='), deleted[0]!.call);
    assert.deepEqual(idsIn(deleted[0]!.call), ids);
    assert.deepEqual(await apiSkus('filter[sku][in]=RF-001,RF-002&filter[deletedAt][ltn]=9999-12-31'), []);
    assert.deepEqual(problems, []);
  });

  it('useCreateMany with one bad item sends one request, fails naming the item, and writes nothing', async () => {
    const toys = (await apiData<OptionItem[]>('/api/categories/options?label=name')).find((o) => o.label === 'Toys')!;
    const { page, problems } = await openPage(toys.value);
    const sent = await run(page, 'Create a bad pair', /^failed 400: 1\.price$/);
    assert.deepEqual(
      sent.map((s) => s.call),
      ['POST /api/products'],
    );
    assert.deepEqual(await apiSkus('filter[sku][in]=RF-003,RF-004&filter[deletedAt][ltn]=9999-12-31'), []);
    // Chromium logs the 400; Refine logs nothing else.
    assert.deepEqual(
      problems.map((p) => /status of (\d+)/.exec(p)?.[1] ?? p),
      ['400'],
    );
  });
});
