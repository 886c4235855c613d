/// <reference lib="dom" />
/**
 * docs/examples/react/CategorySelect.tsx in Debian's Chromium: bundled with esbuild, served next to the
 * demo's routes, it fills with the categories the options route returns and reports the choice.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { Sequelize } from 'sequelize';
import { createDemoApp } from '../../docs/examples/demo/app.js';
import { seedDemo } from '../../docs/examples/demo/seed.js';
import { browserInSuite, browserSkipReason } from '../support/browser.js';
import { serve, type TestServer } from '../support/http.js';

/** The test page's script: the components as an app would mount them; `?url=` sets the select's endpoint. */
const ENTRY = `
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { CategoryAutocomplete, CategorySelect } from './CategorySelect.tsx';

const initialUrl = new URLSearchParams(location.search).get('url') ?? undefined;

function App() {
  const [chosen, setChosen] = useState('');
  const [typed, setTyped] = useState('');
  const [url, setUrl] = useState(initialUrl);
  return (
    <main>
      <label>Category <CategorySelect value={chosen} onChange={setChosen} url={url} /></label>
      <button onClick={() => setUrl('/api/products/options?label=sku')}>Products instead</button>
      <p>Chosen: <output id="chosen">{chosen}</output></p>
      <label>Type a category <CategoryAutocomplete onChange={setTyped} /></label>
      <p>Typed: <output id="typed">{typed}</output></p>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
`;

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CategorySelect</title><link rel="icon" href="data:,"></head>
<body><div id="root"></div><script type="module" src="/react-options/app.js"></script></body></html>`;

async function bundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: ENTRY,
      loader: 'tsx',
      sourcefile: 'entry.tsx',
      resolveDir: fileURLToPath(new URL('../../docs/examples/react/', import.meta.url)),
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    // React's development build: its warnings are console errors, which fail the test.
    define: { 'process.env.NODE_ENV': '"development"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('docs/examples/react/CategorySelect.tsx, in a browser', { skip: browserSkipReason() }, () => {
  const browser = browserInSuite();
  const sqlite = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  let server: TestServer;

  before(async () => {
    const script = await bundle();
    const { app, models } = createDemoApp(sqlite);
    await seedDemo(models);
    // `&slow=1` delays a request before the demo's routes answer it (the options route ignores it).
    app.middleware.unshift(async (ctx, next) => {
      if (ctx.query['slow'] === '1') await new Promise((resolve) => setTimeout(resolve, 700));
      await next();
    });
    // The test page and its script, on the demo's origin: requests the demo's routes leave unanswered.
    app.use(async (ctx, next) => {
      const served = {
        '/react-options': ['text/html; charset=utf-8', HTML],
        '/react-options/app.js': ['text/javascript; charset=utf-8', script],
      }[ctx.path];
      if (served === undefined) return next();
      ctx.type = served[0]!;
      ctx.body = served[1];
    });
    server = await serve(app);
  });
  after(async () => {
    await server?.close();
    await sqlite.close();
  });

  const categories = async () =>
    (await server.get('/api/categories/options?label=name')).body.data as { label: string; value: string }[];

  it('fills the select with the options route’s categories, and choosing one reaches onChange', async () => {
    const { page, problems } = await browser.open();
    await page.goto(`${server.url}/react-options`);
    const select = page.locator('select');
    await page.waitForFunction(
      () => document.querySelectorAll('select option').length > 1 && !document.querySelector('select')!.disabled,
    );
    const expected = await categories();
    const shown = await select
      .locator('option')
      .evaluateAll((options) => options.map((o) => [o.textContent, (o as HTMLOptionElement).value]));
    assert.deepEqual(shown, [['Choose a category', ''], ...expected.map((c) => [c.label, c.value])]);

    const garden = expected.find((c) => c.label === 'Garden')!;
    await select.selectOption({ label: 'Garden' });
    await page.locator('#chosen', { hasText: garden.value }).waitFor();
    assert.equal(await select.inputValue(), garden.value);

    const datalist = await page
      .locator('datalist option')
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    assert.deepEqual(
      datalist,
      expected.map((c) => c.label),
    );
    const input = page.getByPlaceholder('Type a category');
    await input.fill('Kitchen');
    await page.locator('#typed', { hasText: expected.find((c) => c.label === 'Kitchen')!.value }).waitFor();
    await input.fill('Kit');
    assert.equal(await page.locator('#typed').textContent(), '');

    await browser.shot(page, 'react-options');
    assert.deepEqual(problems, []);
  });

  it('aborts the request under way when the url changes, so a late reply never replaces the new list', async () => {
    const { page, problems } = await browser.open();
    const slow = encodeURIComponent('/api/categories/options?label=name&slow=1');
    await page.goto(`${server.url}/react-options?url=${slow}`);
    await page.evaluate(() => {
      const seen = document.createElement('output');
      seen.id = 'saw-alert';
      document.body.append(seen);
      new MutationObserver(() => {
        if (document.querySelector('[role="alert"]')) seen.textContent = 'yes';
      }).observe(document.getElementById('root')!, { subtree: true, childList: true });
    });
    await page.getByRole('button', { name: 'Products instead' }).click();
    await page.waitForFunction(() => document.querySelectorAll('select option').length > 1);
    const skus = ((await server.get('/api/products/options?label=sku')).body.data as { label: string }[]).map(
      (p) => p.label,
    );
    assert.deepEqual((await page.locator('select option').allTextContents()).slice(1), skus);
    await page.waitForTimeout(1000); // the slow categories reply would have come by now
    assert.deepEqual((await page.locator('select option').allTextContents()).slice(1), skus);
    assert.equal(
      await page.locator('#saw-alert').textContent(),
      '',
      'the aborted request showed an error, if only briefly',
    );
    assert.deepEqual(
      problems.filter((p) => !p.includes('net::ERR_ABORTED')),
      [],
    );
  });

  it('shows the route’s fail message instead of a select', async () => {
    const { page, problems } = await browser.open();
    await page.goto(`${server.url}/react-options?url=${encodeURIComponent('/api/categories/options?label=colour')}`);
    const alert = page.locator('[role="alert"]');
    await alert.waitFor();
    assert.equal(await alert.textContent(), 'Categories could not be loaded: The column "colour" was not found');
    assert.deepEqual(
      problems.filter((p) => !p.includes('status of 400')),
      [],
    );
  });
});
