/**
 * The demo's react-admin app at /admin in Chromium, its bulk actions, product page and trash: react-admin's
 * BulkUpdateButton moves the selected rows to a category in one batch `PATCH`, the product page shows the category
 * through a ReferenceField, and soft delete and restore, of one record or of the selected rows (one batch request
 * each), move products to the trash and back. Each is checked against what the API then answers. The tests share one
 * seeded demo and run in order.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserInSuite, browserSkipReason, type WatchedPage, eventually, adminProblems } from '../support/browser.js';
import { demoApi, serveDemoInSuite, type DemoProduct as Product, type OptionItem } from '../support/demo.js';

describe(
  "the react-admin app's bulk actions, product page and trash, in a browser",
  { skip: browserSkipReason() },
  () => {
    const demo = serveDemoInSuite();
    const browser = browserInSuite();
    const opened: Page[] = [];
    /** Every API request each page sent, as `METHOD /path?query` (decoded). */
    const apiCalls = new Map<Page, string[]>();
    /** The body of every write each page sent, by `METHOD /path?query`. */
    const bodies = new Map<Page, Map<string, unknown>>();
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((page) => page.context().close()));
    });

    const { data: apiData, skus: apiSkus } = demoApi(demo);
    const productBySku = async (sku: string) =>
      (await apiData<Product[]>(`/api/products?filter[sku]=${sku}&filter[deletedAt][ltn]=9999-12-31`))[0]!;
    const categoryId = async (name: string) =>
      (await apiData<OptionItem[]>('/api/categories/options?label=name')).find((o) => o.label === name)!.value;
    const writes = (page: Page) => apiCalls.get(page)!.filter((call) => !call.startsWith('GET '));

    async function openAdmin(hash: string): Promise<WatchedPage> {
      const watched = await browser.open();
      opened.push(watched.page);
      const calls: string[] = [];
      const sent = new Map<string, unknown>();
      apiCalls.set(watched.page, calls);
      bodies.set(watched.page, sent);
      watched.page.on('request', (request) => {
        const url = new URL(request.url());
        if (!url.pathname.startsWith('/api/')) return;
        const call = `${request.method()} ${decodeURIComponent(url.pathname + url.search)}`;
        calls.push(call);
        if (request.postData() !== null) sent.set(call, request.postDataJSON());
      });
      await watched.page.goto(`${demo().url}/admin${hash}`);
      return watched;
    }

    const rows = (page: Page) => page.locator('.RaDatagrid-table tbody tr');
    const column = (page: Page, source: string) =>
      rows(page)
        .locator(`td.column-${source.replace('.', '\\.')}`)
        .allTextContents();
    const showsSkus = (page: Page, expected: string[]) =>
      eventually(async () => assert.deepEqual(await column(page, 'sku'), expected));
    const select = async (page: Page, skus: readonly string[]) => {
      for (const sku of skus) await rows(page).filter({ hasText: sku }).getByRole('checkbox').check();
    };
    const byQ = (q: string) => `#/products?filter=${encodeURIComponent(JSON.stringify({ q }))}`;

    it('moves the selected rows to a category with one batch PATCH (BulkUpdateButton), which the API then answers', async () => {
      const spade = await productBySku('GD-001');
      const can = await productBySku('GD-002');
      const toys = await categoryId('Toys');
      const { page, problems } = await openAdmin(byQ('GD'));
      await showsSkus(page, ['GD-001', 'GD-002']);
      await eventually(async () => assert.deepEqual(await column(page, 'categoryId'), ['Garden', 'Garden']));
      await select(page, ['GD-001', 'GD-002']);
      await page.getByLabel('Move to category').selectOption({ label: 'Toys' });
      await page.getByRole('button', { name: 'Move', exact: true }).click();
      const [patched] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'PATCH'),
        page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click(),
      ]);
      assert.equal(patched.status(), 200);
      await eventually(async () => assert.deepEqual(await column(page, 'categoryId'), ['Toys', 'Toys']));
      await browser.shot(page, 'admin-bulk-moved');

      // One request for both rows, with the one body.
      const patches = writes(page);
      assert.equal(patches.length, 1, patches.join('\n'));
      const ids = patches[0]!.replace(/^PATCH \/api\/products\?filter\[id\]\[in\]=/, '').split(',');
      assert.deepEqual(ids.sort(), [spade.id, can.id].sort(), patches[0]);
      assert.deepEqual(bodies.get(page)!.get(patches[0]!), { categoryId: toys });
      for (const sku of ['GD-001', 'GD-002']) assert.equal((await productBySku(sku)).categoryId, toys, sku);
      assert.deepEqual(adminProblems(problems), []);
    });

    it("shows a product's category through a ReferenceField, read with getMany and linked to the category", async () => {
      const pan = await productBySku('KT-001');
      const { page, problems } = await openAdmin(`#/products/${pan.id}/show`);
      const field = page.locator('.ra-field-categoryId');
      await eventually(async () => assert.equal(await field.locator('a').textContent(), 'Kitchen'));
      assert.equal(await field.locator('a').getAttribute('href'), `#/categories/${pan.categoryId}`);
      assert.equal(await page.locator('.ra-field-sku').locator('span').last().textContent(), 'KT-001');
      assert.equal(await page.locator('.ra-field-price').locator('span').last().textContent(), '54.00');
      // The provider's getMany: the categories of the screen, by id, in one search.
      assert.ok(
        apiCalls.get(page)!.includes(`GET /api/categories?filter[id][in]=${pan.categoryId}&skipPagination=true`),
        apiCalls.get(page)!.join('\n'),
      );
      await browser.shot(page, 'admin-show');
      assert.deepEqual(adminProblems(problems), []);
    });

    it('moves the product shown to the trash, and restores it from the trash with its row button', async () => {
      const pan = await productBySku('KT-001');
      const { page, problems } = await openAdmin(`#/products/${pan.id}/show`);
      await page.locator('.ra-field-categoryId a').waitFor();
      const [trashed] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'DELETE'),
        page.getByRole('button', { name: 'Move to trash' }).click(),
      ]);
      assert.equal(trashed.status(), 200);
      await eventually(async () => assert.ok(page.url().endsWith('#/products'), page.url()));
      assert.deepEqual(writes(page), [`DELETE /api/products/${pan.id}/soft`]);
      assert.deepEqual(await apiSkus('filter[sku]=KT-001'), []);
      assert.deepEqual(await apiSkus('filter[sku]=KT-001&filter[deletedAt][nn]=1'), ['KT-001']);

      // The trash: the soft-deleted rows (the seed's Kite and the pan), with their categories.
      await page.getByRole('link', { name: 'Trash' }).click();
      await showsSkus(page, ['KT-001', 'TY-002']);
      assert.ok(page.url().endsWith('#/products/trash'), page.url());
      await eventually(async () => assert.deepEqual(await column(page, 'categoryId'), ['Kitchen', 'Toys']));
      assert.ok(apiCalls.get(page)!.some((call) => call.includes('filter[deletedAt][nn]=1')));
      await browser.shot(page, 'admin-trash');

      const [restored] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'PATCH'),
        rows(page).filter({ hasText: 'KT-001' }).getByRole('button', { name: 'Restore' }).click(),
      ]);
      assert.equal(restored.status(), 200);
      await showsSkus(page, ['TY-002']);
      assert.deepEqual(writes(page).slice(1), [`PATCH /api/products/${pan.id}/restore`]);
      assert.deepEqual(await apiSkus('filter[sku]=KT-001'), ['KT-001']);
      assert.deepEqual(adminProblems(problems), []);
    });

    it('moves the selected rows to the trash and restores them, each with one batch request', async () => {
      const books = [await productBySku('BK-001'), await productBySku('BK-002')];
      const bookIds = books.map((b) => b.id).sort();
      const { page, problems } = await openAdmin(byQ('BK'));
      await showsSkus(page, ['BK-002', 'BK-001']);
      await select(page, ['BK-001', 'BK-002']);
      const [trashed] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'DELETE'),
        page.getByRole('button', { name: 'Move to trash' }).click(),
      ]);
      assert.equal(trashed.status(), 200);
      await showsSkus(page, []);
      const deletes = writes(page);
      assert.equal(deletes.length, 1, deletes.join('\n'));
      const idsOf = (call: string) =>
        call
          .replace(/^\w+ \/api\/products\/\w+\?filter\[id\]\[in\]=/, '')
          .split(',')
          .sort();
      assert.ok(deletes[0]!.startsWith('DELETE /api/products/soft?filter[id][in]='), deletes[0]);
      assert.deepEqual(idsOf(deletes[0]!), bookIds);
      assert.deepEqual(await apiSkus('filter[sku][in]=BK-001,BK-002'), []);
      assert.deepEqual(await apiSkus('filter[sku][in]=BK-001,BK-002&filter[deletedAt][nn]=1&sort=sku'), [
        'BK-001',
        'BK-002',
      ]);

      await page.getByRole('link', { name: 'Trash' }).click();
      await showsSkus(page, ['BK-002', 'TY-002', 'BK-001']);
      await select(page, ['BK-001', 'BK-002']);
      const [restored] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'PATCH'),
        page.locator('.RaBulkActionsToolbar-toolbar').getByRole('button', { name: 'Restore' }).click(),
      ]);
      assert.equal(restored.status(), 200);
      await showsSkus(page, ['TY-002']);
      const restores = writes(page).slice(1);
      assert.equal(restores.length, 1, restores.join('\n'));
      assert.ok(restores[0]!.startsWith('PATCH /api/products/restore?filter[id][in]='), restores[0]);
      assert.deepEqual(idsOf(restores[0]!), bookIds);
      assert.deepEqual(await apiSkus('filter[sku][in]=BK-001,BK-002&sort=sku'), ['BK-001', 'BK-002']);
      assert.deepEqual(await apiSkus('filter[deletedAt][nn]=1'), ['TY-002']);
      assert.deepEqual(adminProblems(problems), []);
    });
  },
);
