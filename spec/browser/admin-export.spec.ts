/**
 * react-admin's own ExportButton on the demo's product list, in Chromium, with more products than the server answers
 * in one page: it asks `getList` for `perPage=1000`, the server lowers that to `search.max_per_page` (500) and says so
 * in `Fast-Crud-Per-Page-Lowered`, and the provider reads the rest of the asked page, so the downloaded CSV has every
 * product, not the first 500 (issue 24 item 5).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { adminProblems, browserInSuite, browserSkipReason } from '../support/browser.js';
import { demoApi, serveDemoInSuite, type DemoProduct as Product, type OptionItem } from '../support/demo.js';

/** More than the demo's `search.max_per_page` (500), fewer than ExportButton's 1,000. */
const ADDED = 520;

describe(
  "react-admin's ExportButton on more products than one page holds, in a browser",
  { skip: browserSkipReason() },
  () => {
    const demo = serveDemoInSuite();
    const browser = browserInSuite();
    const { data } = demoApi(demo);

    it('downloads every product: the lowered page is read to its end, in two requests', async () => {
      const toys = (await data<OptionItem[]>('/api/categories/options?label=name')).find(
        (o) => o.label === 'Toys',
      )!.value;
      const items = Array.from({ length: ADDED }, (_, i) => ({
        sku: `EX-${String(i).padStart(3, '0')}`,
        name: `Export item ${i}`,
        price: i,
        categoryId: toys,
      }));
      const created = await demo().request('POST', '/api/products', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(items),
      });
      assert.equal(created.status, 201, created.text);
      const expected = (await data<Product[]>('/api/products?skipPagination=true')).map((p) => p.sku).sort();
      assert.ok(expected.length > 500 && expected.length < 1000, String(expected.length));

      const { page, problems } = await browser.open();
      const searches: { url: string; lowered: string | null }[] = [];
      page.on('response', (response) => {
        const url = new URL(response.url());
        if (response.request().method() === 'GET' && url.pathname === '/api/products')
          searches.push({
            url: decodeURIComponent(url.search),
            lowered: response.headers()['fast-crud-per-page-lowered'] ?? null,
          });
      });
      await page.goto(`${demo().url}/admin#/products`);
      await page.locator('.RaDatagrid-table tbody tr').first().waitFor();
      searches.length = 0;
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export' }).click(),
      ]);
      const csv = (await readFile((await download.path())!, 'utf8')).trim().split(/\r?\n/);

      // react-admin's exporter writes a header, then one line per record; the sku is a column of its own.
      const skuColumn = csv[0]!.split(',').indexOf('sku');
      assert.ok(skuColumn >= 0, csv[0]);
      const exported = csv.slice(1).map((line) => line.split(',')[skuColumn]!);
      assert.equal(exported.length, expected.length);
      assert.deepEqual([...exported].sort(), expected);

      // The export's own requests: the asked page lowered by the server, then its rest, in the server's page size.
      assert.equal(searches.length, 2, JSON.stringify(searches));
      assert.match(searches[0]!.url, /[?&]perPage=1000(&|$)/);
      assert.equal(searches[0]!.lowered, '500');
      assert.match(searches[1]!.url, /[?&]page=2(&|$)/);
      assert.match(searches[1]!.url, /[?&]perPage=500(&|$)/);
      await browser.shot(page, 'admin-export');
      assert.deepEqual(adminProblems(problems), []);
    });
  },
);
