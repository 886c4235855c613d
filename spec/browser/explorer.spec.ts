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
    const listed = await page.locator('.opblock-summary').evaluateAll((rows) =>
      rows.map((row) => `${row.querySelector('.opblock-summary-method')?.textContent} ${row.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    await browser.shot(page, 'explorer');
    assert.ok(expected.length >= 20, `the document has ${expected.length} operations`);
    assert.deepEqual(listed.sort(), expected);
    assert.deepEqual(problems, []);
  });
});
