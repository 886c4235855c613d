/** The demo's API explorer at /docs, in Debian's Chromium: it loads and lists every route the demo registers. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserInSuite, browserSkipReason } from '../support/browser.js';
import { serveDemoInSuite } from '../support/demo.js';

describe('the API explorer at /docs, in a browser', { skip: browserSkipReason() }, () => {
  const demo = serveDemoInSuite();
  const browser = browserInSuite();

  it('loads without a console error and lists every route of the OpenAPI document', async () => {
    const { page, problems } = await browser.open();
    await page.goto(`${demo().url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const document = (await demo().get('/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const listed = await page
      .locator('.opblock-summary')
      .evaluateAll((rows) =>
        rows.map(
          (row) =>
            `${row.querySelector('.opblock-summary-method')?.textContent} ${row.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    await browser.shot(page, 'explorer');
    assert.ok(expected.length >= 20, `the document has ${expected.length} operations`);
    assert.deepEqual(listed.sort(), expected);
    assert.deepEqual(problems, []);
  });

  it('sends a filter from "Try it out": filter[price][gte]=30 on the products search answers 200 with only the matching rows', async () => {
    const { page, problems } = await browser.open();
    await page.goto(`${demo().url}/docs`);
    const search = page
      .locator('.opblock-get')
      .filter({ has: page.locator('.opblock-summary-path[data-path="/products"]') });
    await search.locator('.opblock-summary').click();
    await search.locator('.try-out__btn').click();
    await search.locator('tr[data-param-name="filter[price][gte]"] input').fill('30');
    const [reply] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === '/api/products'),
      search.locator('.execute').click(),
    ]);
    const sent = new URL(reply.url()).searchParams;
    assert.equal(sent.get('filter[price][gte]'), '30');
    const body = (await reply.json()) as { status: string; data: { sku: string; price: number }[] };
    assert.equal(reply.status(), 200, JSON.stringify(body));
    await search.locator('.live-responses-table tbody .response-col_status').first().waitFor();
    assert.equal(
      (await search.locator('.live-responses-table tbody .response-col_status').first().textContent())?.trim(),
      '200',
    );
    const expected = (
      (await demo().get('/api/products?filter%5Bprice%5D%5Bgte%5D=30&perPage=100')).body.data as { sku: string }[]
    )
      .map((row) => row.sku)
      .sort();
    assert.deepEqual(body.data.map((row) => row.sku).sort(), expected);
    assert.ok(expected.length > 0 && body.data.every((row) => Number(row.price) >= 30), JSON.stringify(body.data));
    const all = (await demo().get('/api/products?perPage=100')).body.data as unknown[];
    assert.ok(body.data.length < all.length, 'the filter left some rows out');
    await browser.shot(page, 'explorer-filter');
    assert.deepEqual(problems, []);
  });
});
