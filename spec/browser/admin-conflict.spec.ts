/**
 * Two people edit one product in the demo's react-admin app (docs/examples/admin/, whose provider has
 * `preconditions: ['products']`), in Debian's Chromium: both open its edit page, the first saves, then the second
 * saves. The second save sends the ETag of the product its form loaded, the server refuses it with 412, react-admin
 * shows the conflict message, the form stays open, and the database keeps the first save.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { CONFLICT_MESSAGE } from '../../lib/clients/protocol.js';
import { browserInSuite, browserSkipReason, eventually, type WatchedPage, adminProblems } from '../support/browser.js';
import { demoApi, serveDemoInSuite, type DemoProduct as Product } from '../support/demo.js';

describe('two tabs edit one product in the react-admin app, in a browser', { skip: browserSkipReason() }, () => {
  const demo = serveDemoInSuite();
  const browser = browserInSuite();
  const opened: Page[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((page) => page.context().close()));
  });
  const { data: apiData } = demoApi(demo);
  const productBySku = async (sku: string) => (await apiData<Product[]>(`/api/products?filter[sku]=${sku}`))[0]!;

  /** The edit page of a product in a browser context of its own (another person), once its form has loaded. */
  async function openEdit(product: Product): Promise<WatchedPage> {
    const watched = await browser.open();
    opened.push(watched.page);
    await watched.page.goto(`${demo().url}/admin#/products/${product.id}`);
    await eventually(async () => assert.equal(await watched.page.getByLabel('Name').inputValue(), product.name));
    return watched;
  }

  /** Changes the name and saves; the PATCH's request and status. */
  async function saveName(page: Page, name: string) {
    await page.getByLabel('Name').fill(name);
    const [reply] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'PATCH'),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    return { status: reply.status(), ifMatch: await reply.request().headerValue('if-match') };
  }

  it('the second save is refused with the conflict message, and nothing is overwritten', async () => {
    const original = await productBySku('BK-002');
    const first = await openEdit(original);
    const second = await openEdit(original);
    const etag = (await demo().get(`/api/products/${original.id}`)).headers.get('etag');

    const saved = await saveName(first.page, 'First title');
    assert.deepEqual(saved, { status: 200, ifMatch: etag });
    await eventually(async () => assert.ok(first.page.url().endsWith('#/products'), first.page.url()));
    assert.equal((await productBySku('BK-002')).name, 'First title');

    const refused = await saveName(second.page, 'Second title');
    assert.deepEqual(refused, { status: 412, ifMatch: etag }, 'the ETag of the product the second form loaded');
    const notification = second.page.getByRole('alert').filter({ hasText: CONFLICT_MESSAGE });
    await notification.waitFor();
    await browser.shot(second.page, 'admin-edit-conflict');
    assert.ok(second.page.url().endsWith(`#/products/${original.id}`), 'the form stays open');
    assert.equal(await second.page.getByLabel('Name').inputValue(), 'Second title', 'the typed change is kept');

    const stored = await productBySku('BK-002');
    assert.deepEqual([stored.name, stored.price], ['First title', original.price], 'the first save stands');
    // Chromium logs the 412, and react-admin's development build the rejected call: those are the only problems.
    assert.deepEqual(adminProblems(first.problems), []);
    assert.deepEqual(
      adminProblems(second.problems).map(
        (p) => /status of (\d+)/.exec(p)?.[1] ?? /HttpError: [^\n]+/.exec(p)?.[0] ?? p,
      ),
      ['412', `HttpError: ${CONFLICT_MESSAGE}`],
    );

    // Reloaded, the second form shows the first save, and saving it then goes through.
    await second.page.reload();
    await eventually(async () => assert.equal(await second.page.getByLabel('Name').inputValue(), 'First title'));
    const again = await saveName(second.page, 'Second title');
    assert.equal(again.status, 200);
    assert.equal((await productBySku('BK-002')).name, 'Second title');
  });
});
