/**
 * The demo's react-admin app at /admin (docs/examples/admin/, bundled by esbuild when the demo first
 * serves it), in Debian's Chromium: the product list's sort, filters and pages, the edit form with the
 * server's field errors and the category input filled from the options route, and the bulk delete of selected
 * rows in one batch request, each checked against what the API answers for the same request. The tests share one
 * seeded demo and run in order; the last two save an edit and delete two rows.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserInSuite, browserSkipReason, type WatchedPage, eventually, adminProblems } from '../support/browser.js';
import {
  demoApi,
  serveDemoInSuite,
  type DemoProduct as Product,
  type Failure,
  type OptionItem,
} from '../support/demo.js';

describe('the react-admin app at /admin, in a browser', { skip: browserSkipReason() }, () => {
  const demo = serveDemoInSuite();
  const browser = browserInSuite();
  const opened: Page[] = [];
  /** The query of every `GET /api/products` search each page sent, in order. */
  const searches = new Map<Page, URLSearchParams[]>();
  const lastSearch = (page: Page) => searches.get(page)!.at(-1)!;
  /** Every API request each page sent, as `METHOD /path?query` (decoded). */
  const apiCalls = new Map<Page, string[]>();
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((page) => page.context().close()));
  });

  const { data: apiData, skus: apiSkus } = demoApi(demo);
  const productBySku = async (sku: string) =>
    (await apiData<Product[]>(`/api/products?filter[sku]=${sku}&include=category`))[0]!;

  /** The app at `hash` (the product list by default), once its list or form has loaded. */
  async function openAdmin(hash = '#/products'): Promise<WatchedPage> {
    const watched = await browser.open();
    opened.push(watched.page);
    const sent: URLSearchParams[] = [];
    searches.set(watched.page, sent);
    const calls: string[] = [];
    apiCalls.set(watched.page, calls);
    watched.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/'))
        calls.push(`${request.method()} ${decodeURIComponent(url.pathname + url.search)}`);
      if (url.pathname === '/api/products' && request.method() === 'GET') sent.push(url.searchParams);
    });
    await watched.page.goto(`${demo().url}/admin${hash}`);
    return watched;
  }

  const rows = (page: Page) => page.locator('.RaDatagrid-table tbody tr');
  const column = (page: Page, source: string) =>
    rows(page)
      .locator(`td.column-${source.replace('.', '\\.')}`)
      .allTextContents();
  const skus = (page: Page) => column(page, 'sku');
  const header = (page: Page, name: string) => page.getByRole('columnheader', { name });
  /** The direction the header's sort label shows when it is the active sort, else null. */
  const sortShown = async (page: Page, name: string) => {
    const label = header(page, name).locator('.MuiTableSortLabel-root.Mui-active');
    if ((await label.count()) === 0) return null;
    return /MuiTableSortLabel-direction(Asc|Desc)/.exec((await label.getAttribute('class')) ?? '')?.[1] ?? 'none';
  };
  const pageInfo = (page: Page) => page.locator('.MuiTablePagination-displayedRows').textContent();

  async function showsSkus(page: Page, expected: string[]): Promise<void> {
    await eventually(async () => assert.deepEqual(await skus(page), expected));
  }

  /** The text of the helper under a form input: its `aria-describedby` element. */
  async function helperOf(page: Page, label: string): Promise<string> {
    const input = page.getByLabel(label, { exact: false }).first();
    const id = await input.getAttribute('aria-describedby');
    assert.ok(id, `${label} has no helper text`);
    return (await page.locator(`[id="${id}"]`).textContent()) ?? '';
  }

  it('lists the first page of products as the API answers it, with the category names a ReferenceField reads', async () => {
    const { page, problems } = await openAdmin();
    await showsSkus(page, await apiSkus('sort=name&page=1&perPage=5'));
    assert.deepEqual(await skus(page), ['KT-001', 'BK-002', 'GD-001', 'BK-001', 'MU-001']);
    const search = lastSearch(page);
    assert.deepEqual(Object.fromEntries(search), { sort: 'name', page: '1', perPage: '5' });
    const included = await apiData<Product[]>('/api/products?sort=name&page=1&perPage=5&include=category');
    assert.deepEqual(
      await column(page, 'name'),
      included.map((p) => p.name),
    );
    await eventually(async () =>
      assert.deepEqual(
        await column(page, 'categoryId'),
        included.map((p) => p.category?.name),
      ),
    );
    // The categories of the page in one getMany, whatever the number of rows.
    const categoryReads = apiCalls.get(page)!.filter((call) => call.startsWith('GET /api/categories'));
    assert.deepEqual(
      new Set(categoryReads.map((call) => call.replace(/\[in\]=[^&]*/, '[in]=…'))),
      new Set(['GET /api/categories?filter[id][in]=…&skipPagination=true']),
    );
    const categoryIds = categoryReads[0]!.replace(/^.*\[in\]=([^&]*)&.*$/, '$1').split(',');
    assert.deepEqual(categoryIds.sort(), [...new Set(included.map((p) => p.categoryId))].sort());
    assert.deepEqual(await column(page, 'price'), ['54.00', '44.50', '24.00', '39.90', '89.00']);
    assert.equal(await pageInfo(page), '1-5 of 7');
    assert.equal(await page.title(), 'koa-fast-crud demo admin');
    await browser.shot(page, 'admin-list');
    assert.deepEqual(adminProblems(problems), []);
  });

  it('sorts by the column header clicked, as the API sorts', async () => {
    const { page, problems } = await openAdmin();
    await showsSkus(page, await apiSkus('sort=name&page=1&perPage=5'));
    assert.equal(await sortShown(page, 'Name'), 'Asc');

    await header(page, 'Price').getByRole('button').click();
    await showsSkus(page, await apiSkus('sort=price&page=1&perPage=5'));
    assert.equal(lastSearch(page).get('sort'), 'price');
    await eventually(async () => assert.equal(await sortShown(page, 'Price'), 'Asc'));
    assert.equal(await sortShown(page, 'Name'), null);

    await header(page, 'Price').getByRole('button').click();
    await showsSkus(page, await apiSkus('sort=-price&page=1&perPage=5'));
    assert.equal(lastSearch(page).get('sort'), '-price');
    await eventually(async () => assert.equal(await sortShown(page, 'Price'), 'Desc'));

    // The category column sorts through the relation: `sort=category.name`.
    await header(page, 'Category').getByRole('button').click();
    await showsSkus(page, await apiSkus('sort=category.name&page=1&perPage=5'));
    assert.equal(lastSearch(page).get('sort'), 'category.name');
    await eventually(async () => {
      const names = await column(page, 'categoryId');
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.every((name) => name !== ''));
    });
    await browser.shot(page, 'admin-sorted-by-category');
    assert.deepEqual(adminProblems(problems), []);
  });

  it('narrows the rows with the search box (q, the term search) and the min price filter (price_gte)', async () => {
    const { page, problems } = await openAdmin();
    await showsSkus(page, await apiSkus('sort=name&page=1&perPage=5'));

    await page.getByPlaceholder('Search').fill('ing');
    await showsSkus(page, await apiSkus('filter[term]=ing&sort=name&page=1&perPage=5'));
    assert.deepEqual(await skus(page), ['BK-002', 'GD-001', 'GD-002']);
    assert.equal(lastSearch(page).get('filter[term]'), 'ing');
    await eventually(async () => assert.equal(await pageInfo(page), '1-3 of 3'));

    await page.getByLabel('Min price').fill('20');
    await showsSkus(page, await apiSkus('filter[term]=ing&filter[price][gte]=20&sort=name&page=1&perPage=5'));
    assert.deepEqual(await skus(page), ['BK-002', 'GD-001']);
    assert.equal(lastSearch(page).get('filter[price][gte]'), '20');
    await browser.shot(page, 'admin-filtered');

    await page.getByPlaceholder('Search').fill('');
    await showsSkus(page, await apiSkus('filter[price][gte]=20&sort=name&page=1&perPage=5'));
    assert.equal(lastSearch(page).has('filter[term]'), false);
    assert.deepEqual(adminProblems(problems), []);
  });

  it('shows the next page of rows, then the previous one', async () => {
    const { page, problems } = await openAdmin();
    const first = await apiSkus('sort=name&page=1&perPage=5');
    const second = await apiSkus('sort=name&page=2&perPage=5');
    assert.deepEqual(second, ['GD-002', 'TY-001']);
    await showsSkus(page, first);

    await page.getByRole('button', { name: 'Go to next page' }).click();
    await showsSkus(page, second);
    assert.deepEqual([lastSearch(page).get('page'), lastSearch(page).get('perPage')], ['2', '5']);
    assert.equal(await pageInfo(page), '6-7 of 7');
    assert.equal(await page.getByRole('button', { name: 'Go to next page' }).isDisabled(), true);

    await page.getByRole('button', { name: 'Go to previous page' }).click();
    await showsSkus(page, first);
    assert.deepEqual(adminProblems(problems), []);
  });

  it("shows the server's message under the field when it refuses an edit, and saves nothing", async () => {
    const pan = await productBySku('KT-001');
    const refuse = async (body: object) => {
      const res = await demo().request('PATCH', `/api/products/${pan.id}`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, failures: res.body.data as Failure[] };
    };
    const negative = await refuse({ price: -1 });
    assert.equal(negative.status, 400);
    assert.deepEqual(negative.failures, [{ field: 'price', error: 'schema', message: 'A price is never negative' }]);

    const { page, problems } = await openAdmin(`#/products/${pan.id}`);
    const price = page.getByLabel('Price');
    await eventually(async () => assert.equal(await price.inputValue(), '54'));
    await price.fill('-1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.ra-input-price .Mui-error').first().waitFor();
    await eventually(async () => assert.equal(await helperOf(page, 'Price'), negative.failures[0]!.message));
    assert.equal(await price.getAttribute('aria-invalid'), 'true');
    await browser.shot(page, 'admin-edit-refused');

    // A SKU another product has: the unique index refuses it, and the message goes under the SKU.
    const taken = await refuse({ sku: 'BK-001' });
    assert.equal(taken.status, 409);
    assert.deepEqual(
      taken.failures.map((f) => f.field),
      ['sku'],
    );
    await price.fill('54');
    await page.getByLabel('SKU').fill('BK-001');
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(async () => assert.equal(await helperOf(page, 'SKU'), taken.failures[0]!.message));
    assert.equal(await page.getByLabel('SKU').getAttribute('aria-invalid'), 'true');

    const stored = await productBySku('KT-001');
    assert.deepEqual([stored.price, stored.name], [54, 'Cast Iron Pan']);
    assert.ok(page.url().endsWith(`#/products/${pan.id}`), 'the form stays open');
    // Chromium logs each 4xx answer, and react-admin's development build each rejected call: those are the only problems.
    assert.deepEqual(
      adminProblems(problems).map((p) => /status of (\d+)/.exec(p)?.[1] ?? /HttpError: [^\n]+/.exec(p)?.[0] ?? p),
      ['400', `HttpError: ${negative.failures[0]!.message}`, '409', `HttpError: ${taken.failures[0]!.message}`],
    );
  });

  it('filters the category choices on the server as the user types (ReferenceInput + AutocompleteInput)', async () => {
    const { page, problems } = await openAdmin('#/products/create');
    const category = page.getByRole('combobox', { name: 'Category' });
    await category.click();
    const listbox = page.getByRole('listbox');
    // Typing sends getList's `filter: { q }`, which the provider's `autocomplete` option sends to the options route:
    // the labels containing the text, case-insensitively, in label order, as the API answers them.
    const choices = async (q: string) =>
      (await apiData<OptionItem[]>(`/api/categories/options?label=name&value=id&q=${q}&limit=25`)).map((o) => o.label);
    assert.deepEqual(await choices('O'), ['Books', 'Toys']);
    await category.pressSequentially('O');
    await eventually(async () =>
      assert.deepEqual(await listbox.getByRole('option').allTextContents(), await choices('O')),
    );
    await category.pressSequentially('y');
    await eventually(async () => assert.deepEqual(await listbox.getByRole('option').allTextContents(), ['Toys']));
    const asked = apiCalls.get(page)!.filter((call) => call.startsWith('GET /api/categories/options'));
    assert.ok(asked.includes('GET /api/categories/options?label=name&value=id&q=Oy&limit=25'), asked.join('\n'));
    await browser.shot(page, 'admin-category-autocomplete');

    // Chosen and saved: a new product in that category, which the API then answers.
    await listbox.getByRole('option', { name: 'Toys' }).click();
    await page.getByLabel('SKU').fill('TY-003');
    await page.getByLabel('Name').fill('Spinning Top');
    await page.getByLabel('Price').fill('7.5');
    const [created] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    assert.equal(created.status(), 201);
    const stored = await productBySku('TY-003');
    assert.deepEqual([stored.name, stored.category?.name], ['Spinning Top', 'Toys']);

    // The edit form shows a product's category by its label (read back by id).
    const pan = await productBySku('KT-001');
    await page.goto(`${demo().url}/admin#/products/${pan.id}`);
    await eventually(async () =>
      assert.equal(await page.getByRole('combobox', { name: 'Category' }).inputValue(), 'Kitchen'),
    );
    assert.deepEqual(adminProblems(problems), []);
  });

  it('saves a valid edit, which the API then answers', async () => {
    const pan = await productBySku('KT-001');
    const garden = (await apiData<OptionItem[]>('/api/categories/options?label=name')).find(
      (o) => o.label === 'Garden',
    )!;
    const { page, problems } = await openAdmin(`#/products/${pan.id}`);
    const category = page.getByRole('combobox', { name: 'Category' });
    await eventually(async () => assert.equal(await category.inputValue(), 'Kitchen'));

    await page.getByLabel('Name').fill('Cast Iron Skillet');
    await page.getByLabel('Price').fill('49.5');
    await category.click();
    await category.fill('gar');
    await page.getByRole('listbox').getByRole('option', { name: 'Garden' }).click();
    const [saved] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'PATCH'),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    assert.equal(saved.status(), 200);
    // The form sends the fillable fields only (the provider's `update`, through the app's `transform`).
    assert.deepEqual(saved.request().postDataJSON(), {
      sku: 'KT-001',
      name: 'Cast Iron Skillet',
      price: 49.5,
      categoryId: garden.value,
    });

    // Back on the list, which shows the saved row.
    await rows(page).filter({ hasText: 'Cast Iron Skillet' }).waitFor();
    assert.ok(page.url().endsWith('#/products'), page.url());
    const stored = await productBySku('KT-001');
    assert.deepEqual(
      [stored.name, stored.price, stored.categoryId, stored.category?.name],
      ['Cast Iron Skillet', 49.5, garden.value, 'Garden'],
    );
    const row = rows(page).filter({ hasText: 'KT-001' });
    await eventually(async () => assert.deepEqual(await row.locator('td.column-categoryId').textContent(), 'Garden'));
    assert.deepEqual(await row.locator('td.column-price').textContent(), '49.50');
    await browser.shot(page, 'admin-saved');
    assert.deepEqual(adminProblems(problems), []);
  });

  it('deletes the selected rows with one batch request (BulkDeleteButton), which the API then no longer finds', async () => {
    const spade = await productBySku('GD-001');
    const can = await productBySku('GD-002');
    const { page, problems } = await openAdmin(`#/products?filter=${encodeURIComponent(JSON.stringify({ q: 'GD' }))}`);
    await showsSkus(page, ['GD-001', 'GD-002']);
    for (const sku of ['GD-001', 'GD-002']) await rows(page).filter({ hasText: sku }).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete' }).click();
    const [deleted] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'DELETE'),
      page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click(),
    ]);
    assert.equal(deleted.status(), 200);
    await showsSkus(page, []);
    // One request for both rows (the provider's `batch` option), not one per id.
    const deletes = apiCalls.get(page)!.filter((call) => call.startsWith('DELETE '));
    assert.equal(deletes.length, 1, deletes.join('\n'));
    const ids = deletes[0]!.replace(/^DELETE \/api\/products\?filter\[id\]\[in\]=/, '').split(',');
    assert.deepEqual(ids.sort(), [spade.id, can.id].sort(), deletes[0]);
    assert.deepEqual(await apiSkus('filter[sku][in]=GD-001,GD-002&filter[deletedAt][nn]=1'), []);
    assert.deepEqual(await apiSkus('filter[sku][in]=GD-001,GD-002'), []);
    assert.deepEqual(adminProblems(problems), []);
  });
});

describe('the react-admin app files, over HTTP', () => {
  const demo = serveDemoInSuite();

  it('serves the page and its bundle, which holds no server code', async () => {
    const page = await demo().get('/admin');
    assert.deepEqual([page.status, page.headers.get('content-type')], [200, 'text/html; charset=utf-8']);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(page.text, /<script type="module" src="\/admin\/assets\/admin\.js"><\/script>/);
    const script = await demo().get('/admin/assets/admin.js');
    assert.deepEqual([script.status, script.headers.get('content-type')], [200, 'text/javascript; charset=utf-8']);
    assert.match(script.text, /koa-fast-crud\/react-admin/);
  });

  it('bundles the app from react-admin, the provider and the operator table: nothing of koa, sequelize or the server side of lib/', async () => {
    const { buildAdminBundle } = await import('../../docs/examples/demo/admin.js');
    const { inputs } = await buildAdminBundle();
    const ours = inputs.filter((file) => !file.includes('node_modules/'));
    assert.deepEqual(ours.sort(), [
      'docs/examples/admin/App.tsx',
      'docs/examples/admin/bulk.tsx',
      'docs/examples/admin/live.tsx',
      'docs/examples/admin/main.tsx',
      'docs/examples/admin/show.tsx',
      'docs/examples/admin/trash.tsx',
      // The realtime client (realtime()), which the product list's live hook subscribes through.
      'lib/clients/live.ts',
      'lib/clients/protocol.ts',
      'lib/clients/react-admin.ts',
      'lib/core/operators.ts',
    ]);
    const packages = new Set(inputs.flatMap((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? []));
    for (const server of ['koa', '@koa/router', 'sequelize', 'pg', 'mariadb', 'sqlite3', 'fp-ts', 'qs'])
      assert.equal(packages.has(server), false, server);
    assert.ok(packages.has('react-admin') && packages.has('ra-core') && packages.has('react-dom'));
  });

  it('serves no other file', async () => {
    for (const path of [
      '/admin/assets/',
      '/admin/assets/App.tsx',
      '/admin/assets/main.tsx',
      '/admin/assets/..%2FApp.tsx',
      '/admin/assets/admin.js/x',
      '/admin/index.html',
    ]) {
      assert.equal((await demo().get(path)).status, 404, path);
    }
  });
});
