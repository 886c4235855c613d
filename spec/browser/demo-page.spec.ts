/**
 * The demo page at `/`, in Debian's Chromium: the options-filled select, the category autocomplete, the
 * product form and the product table (sort, filter, pages, soft-delete and restore, CSV download), each
 * checked against what the API answers for the same request. The tests share one seeded demo and run in
 * order: the product created by the form test is in the table for the tests after it.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { browserInSuite, browserSkipReason, type WatchedPage, eventually } from '../support/browser.js';
import {
  demoApi,
  serveDemoInSuite,
  type DemoProduct as Product,
  type Failure,
  type OptionItem,
} from '../support/demo.js';

describe('the demo page at /, in a browser', { skip: browserSkipReason() }, () => {
  const demo = serveDemoInSuite();
  const browser = browserInSuite();
  const opened: Page[] = [];
  /** The query of every `GET /api/products` search each page sent, in order. */
  const searches = new Map<Page, URLSearchParams[]>();
  const lastSearch = (page: Page) => searches.get(page)!.at(-1)!;
  // Closing each test's browser context closes its sockets, among them the ones Chromium opens ahead
  // of a request; the demo server's close would otherwise wait for those (Node's 60 s headers timeout).
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((page) => page.context().close()));
  });

  const { data: apiData, skus: apiSkus } = demoApi(demo);
  const categories = () => apiData<OptionItem[]>('/api/categories/options?label=name');

  /** The page, loaded with its first table page shown. */
  async function openPage(): Promise<WatchedPage> {
    const watched = await browser.open();
    opened.push(watched.page);
    const sent: URLSearchParams[] = [];
    searches.set(watched.page, sent);
    watched.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/products') sent.push(url.searchParams);
    });
    await watched.page.goto(`${demo().url}/`);
    await watched.page.locator('#products[aria-busy="false"] tbody tr').first().waitFor();
    return watched;
  }

  const productForm = (page: Page) => page.getByRole('form', { name: 'New product' });
  const filters = (page: Page) => page.getByRole('search', { name: 'Filter products' });
  const table = (page: Page) => page.getByRole('table', { name: 'products' });
  const column = (page: Page, index: number) =>
    table(page).locator(`tbody tr > td:nth-child(${index})`).allTextContents();
  const skus = (page: Page) => column(page, 1);
  const indicator = (page: Page) => page.locator('#page-indicator');
  const sortButton = (page: Page, name: string) => table(page).getByRole('columnheader', { name }).getByRole('button');
  const ariaSort = (page: Page, name: string) =>
    table(page).getByRole('columnheader', { name }).getAttribute('aria-sort');

  async function showsSkus(page: Page, expected: string[]): Promise<void> {
    await eventually(async () => assert.deepEqual(await skus(page), expected));
  }

  async function messageOf(control: Locator): Promise<string> {
    const id = await control.getAttribute('aria-describedby');
    return (await control.page().locator(`#${id}`).textContent()) ?? '';
  }

  it('loads, fills the category select from the options route and shows the first page', async () => {
    const { page, problems } = await openPage();
    const options = await categories();
    const select = productForm(page).getByLabel('Category');
    await eventually(async () => assert.equal(await select.locator('option').count(), options.length + 1));
    const shown = await select
      .locator('option')
      .evaluateAll((elements) =>
        elements.map((option) => ({ label: option.textContent, value: option.getAttribute('value') })),
      );
    assert.deepEqual(shown, [{ label: 'Choose a category…', value: '' }, ...options]);
    assert.deepEqual(
      options.map((o) => o.label),
      ['Books', 'Garden', 'Kitchen', 'Music', 'Toys'],
    );

    assert.deepEqual(await skus(page), ['KT-001', 'BK-002', 'GD-001', 'BK-001', 'MU-001']);
    assert.deepEqual(await skus(page), await apiSkus('sort=name&page=1&perPage=5'));
    assert.deepEqual(await column(page, 3), ['Kitchen', 'Books', 'Garden', 'Books', 'Music']);
    // The category names come with the products: the page asks for include=category and shows what it gets.
    assert.equal(lastSearch(page).get('include'), 'category');
    const included = await apiData<Product[]>('/api/products?sort=name&page=1&perPage=5&include=category');
    assert.deepEqual(
      await column(page, 3),
      included.map((p) => p.category?.name),
    );
    assert.deepEqual(await column(page, 4), ['54.00', '44.50', '24.00', '39.90', '89.00']);
    assert.equal(await indicator(page).textContent(), 'Page 1 of 2 · 7 products');
    assert.equal(await ariaSort(page, 'Name'), 'ascending');
    assert.equal(await page.title(), 'koa-fast-crud demo shop');
    await browser.shot(page, 'demo-page-loaded');
    assert.deepEqual(problems, []);
  });

  it('lists the matching categories while typing in the autocomplete, and picking one filters the table', async () => {
    const { page, problems } = await openPage();
    const options = await categories();
    const box = filters(page).getByRole('combobox', { name: 'Category' });
    const listbox = page.getByRole('listbox', { name: 'Categories' });
    const categoryFilter = () => [...lastSearch(page)].filter(([key]) => key.startsWith('filter[category'));

    // Typed text filters by part of the category's name, through the relation: Books and Toys.
    await box.pressSequentially('o');
    await listbox.waitFor();
    await showsSkus(page, await apiSkus('filter[category.name][like]=o&sort=name&page=1&perPage=5'));
    assert.deepEqual(await skus(page), ['BK-002', 'BK-001', 'TY-001']);
    assert.deepEqual(categoryFilter(), [['filter[category.name][like]', 'o']]);
    assert.equal(await box.getAttribute('aria-expanded'), 'true');
    const matching = options.filter((o) => o.label.toLowerCase().includes('o')).map((o) => o.label);
    assert.deepEqual(matching, ['Books', 'Toys']);
    assert.deepEqual(await listbox.getByRole('option').allTextContents(), matching);
    await browser.shot(page, 'demo-page-autocomplete');

    // Keyboard: the second ArrowDown makes Toys the active option, Enter picks it.
    await box.press('ArrowDown');
    await box.press('ArrowDown');
    const toys = listbox.getByRole('option', { name: 'Toys' });
    assert.equal(await toys.getAttribute('aria-selected'), 'true');
    assert.equal(await box.getAttribute('aria-activedescendant'), await toys.getAttribute('id'));
    await box.press('Enter');
    await listbox.waitFor({ state: 'hidden' });
    assert.equal(await box.inputValue(), 'Toys');
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    await showsSkus(page, ['TY-001']);
    // A picked option filters by the whole name.
    assert.deepEqual(categoryFilter(), [['filter[category.name]', 'Toys']]);

    // Mouse: typing again drops the pick; clicking an option picks it.
    await box.fill('');
    await box.pressSequentially('GAR');
    await eventually(async () => assert.deepEqual(await listbox.getByRole('option').allTextContents(), ['Garden']));
    await listbox.getByRole('option', { name: 'Garden' }).click();
    assert.equal(await box.inputValue(), 'Garden');
    await showsSkus(page, ['GD-001', 'GD-002']);
    await eventually(async () => assert.deepEqual(categoryFilter(), [['filter[category.name]', 'Garden']]));
    assert.ok(page.url().endsWith('/'), 'the filter form was not submitted');

    // Escape on a closed list clears the pick: the whole first page again.
    await box.press('Escape');
    assert.equal(await box.inputValue(), '');
    await showsSkus(page, await apiSkus('sort=name&page=1&perPage=5'));
    assert.deepEqual(categoryFilter(), []);

    // Escape also clears typed text that picked nothing.
    await box.pressSequentially('usi');
    await showsSkus(page, ['MU-001']);
    await box.press('Escape');
    await box.press('Escape');
    assert.equal(await box.inputValue(), '');
    await showsSkus(page, await apiSkus('sort=name&page=1&perPage=5'));
    assert.deepEqual(problems, []);
  });

  it('creates a product through the form and shows it in the table', async () => {
    const { page, problems } = await openPage();
    const form = productForm(page);
    await form.getByLabel('SKU').fill('KT-010');
    await form.getByLabel('Name').fill('Apron');
    await form.getByLabel('Price').fill('15.5');
    await form.getByLabel('Category').selectOption({ label: 'Kitchen' });
    await form.getByRole('button', { name: 'Create product' }).click();

    await form.getByRole('status').filter({ hasText: 'Created Apron (KT-010).' }).waitFor();
    await showsSkus(page, ['KT-010', 'KT-001', 'BK-002', 'GD-001', 'BK-001']);
    const row = table(page).getByRole('row', { name: /KT-010/ });
    assert.deepEqual(await row.getByRole('cell').allTextContents(), ['KT-010', 'Apron', 'Kitchen', '15.50', 'Delete']);
    const [created] = await apiData<Product[]>('/api/products?filter[sku]=KT-010');
    const kitchen = (await categories()).find((o) => o.label === 'Kitchen')!.value;
    assert.deepEqual([created?.name, created?.price, created?.categoryId], ['Apron', 15.5, kitchen]);
    assert.equal(await form.getByLabel('SKU').inputValue(), '', 'the form is reset');
    assert.equal(await indicator(page).textContent(), 'Page 1 of 2 · 8 products');
    assert.deepEqual(problems, []);
  });

  it("shows the server's field messages when a create fails, next to each field", async () => {
    const { page, problems } = await openPage();
    const form = productForm(page);
    const control = (field: string) =>
      form.getByLabel({ sku: 'SKU', name: 'Name', price: 'Price', categoryId: 'Category' }[field]!);

    // Only a SKU: the server names each missing field.
    const expected = (
      await demo().request('POST', '/api/products', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sku: 'KT-011' }),
      })
    ).body.data as Failure[];
    assert.deepEqual(
      expected.map((f) => f.field),
      ['name', 'price', 'categoryId'],
    );
    await form.getByLabel('SKU').fill('KT-011');
    await form.getByRole('button', { name: 'Create product' }).click();
    for (const { field, message } of expected) {
      await form.locator(`[name="${field}"][aria-invalid="true"]`).waitFor();
      assert.equal(await messageOf(control(field)), message);
    }
    assert.equal(await messageOf(control('name')), 'Product.name cannot be null');
    assert.equal(await control('sku').getAttribute('aria-invalid'), null);
    await eventually(async () =>
      assert.equal(await control('name').evaluate((element) => element.ownerDocument.activeElement === element), true),
    );
    await browser.shot(page, 'demo-page-create-failed');

    // A price that is not a number: the type check answers first, and the old messages go.
    await control('name').fill('Whisk');
    await control('price').fill('cheap');
    await form.getByRole('button', { name: 'Create product' }).click();
    await eventually(async () => assert.equal(await control('name').getAttribute('aria-invalid'), null));
    await form.locator('[name="price"][aria-invalid="true"]').waitFor();
    assert.equal(await messageOf(control('price')), 'price must be a number');

    // A SKU that is taken: the 409 names the field.
    await control('sku').fill('BK-001');
    await control('price').fill('9');
    await control('categoryId').selectOption({ label: 'Kitchen' });
    await form.getByRole('button', { name: 'Create product' }).click();
    await form.locator('[name="sku"][aria-invalid="true"]').waitFor();
    assert.equal(await messageOf(control('sku')), 'The sku is already taken');
    assert.equal(await control('price').getAttribute('aria-invalid'), null);
    assert.deepEqual(await apiSkus('filter[name]=Whisk'), []);

    // Chromium logs each 4xx answer as a console error; those three are the only problems.
    assert.deepEqual(
      problems.map((p) => /status of (\d+)/.exec(p)?.[1] ?? p),
      ['400', '400', '409'],
    );
  });

  it('sorts by a column when its header is clicked, and reverses on a second click', async () => {
    const { page, problems } = await openPage();
    await sortButton(page, 'Price').click();
    await showsSkus(page, await apiSkus('sort=price&page=1&perPage=5'));
    assert.deepEqual(await skus(page), ['GD-002', 'KT-010', 'GD-001', 'TY-001', 'BK-001']);
    assert.equal(await ariaSort(page, 'Price'), 'ascending');
    assert.equal(await ariaSort(page, 'Name'), null);

    await sortButton(page, 'Price').click();
    await showsSkus(page, await apiSkus('sort=-price&page=1&perPage=5'));
    assert.deepEqual(await skus(page), ['MU-001', 'KT-001', 'BK-002', 'BK-001', 'TY-001']);
    const prices = (await column(page, 4)).map(Number);
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => b - a),
    );
    assert.equal(await ariaSort(page, 'Price'), 'descending');
    await browser.shot(page, 'demo-page-sorted');

    await sortButton(page, 'SKU').click();
    await showsSkus(page, ['BK-001', 'BK-002', 'GD-001', 'GD-002', 'KT-001']);
    assert.equal(await ariaSort(page, 'SKU'), 'ascending');
    assert.equal(await ariaSort(page, 'Price'), null);
    assert.deepEqual(problems, []);
  });

  it('sorts by the category name through the relation when its header is clicked, and reverses on a second click', async () => {
    const { page, problems } = await openPage();
    await page.getByLabel('Rows per page').selectOption('10');
    await sortButton(page, 'Category').click();
    const ascending = await apiSkus('sort=category.name&include=category&page=1&perPage=10');
    await showsSkus(page, ascending);
    assert.equal(lastSearch(page).get('sort'), 'category.name');
    assert.equal(await ariaSort(page, 'Category'), 'ascending');
    assert.equal(await ariaSort(page, 'Name'), null);
    const names = await column(page, 3);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual([...new Set(names)], ['Books', 'Garden', 'Kitchen', 'Music', 'Toys']);

    await sortButton(page, 'Category').click();
    await showsSkus(page, await apiSkus('sort=-category.name&include=category&page=1&perPage=10'));
    assert.equal(await ariaSort(page, 'Category'), 'descending');
    assert.deepEqual(await column(page, 3), [...names].sort().reverse());
    await browser.shot(page, 'demo-page-sorted-by-category');

    // A renamed category shows at once: the names come with each search, not from a map the page keeps.
    const kitchen = (await categories()).find((o) => o.label === 'Kitchen')!.value;
    const rename = (name: string) =>
      demo().request('PATCH', `/api/categories/${kitchen}`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    assert.equal((await rename('Cookware')).status, 200);
    try {
      await sortButton(page, 'Category').click();
      await eventually(async () =>
        assert.deepEqual(new Set(await column(page, 3)), new Set(['Books', 'Cookware', 'Garden', 'Music', 'Toys'])),
      );
      assert.deepEqual((await column(page, 3)).slice(0, 4), ['Books', 'Books', 'Cookware', 'Cookware']);
    } finally {
      await rename('Kitchen');
    }
    assert.deepEqual(problems, []);
  });

  it('narrows the table as the search text is typed (debounced)', async () => {
    const { page, problems } = await openPage();
    const search = filters(page).getByRole('searchbox', { name: 'Search' });
    await search.pressSequentially('ing');
    await showsSkus(page, ['BK-002', 'GD-001', 'GD-002']);
    assert.deepEqual(await skus(page), await apiSkus('filter[term]=ing&sort=name'));
    await eventually(async () => assert.equal(await indicator(page).textContent(), 'Page 1 of 1 · 3 products'));
    assert.deepEqual(
      await Promise.all([page.locator('#previous-page').isDisabled(), page.locator('#next-page').isDisabled()]),
      [true, true],
    );

    await search.fill('no such product');
    await eventually(async () => assert.deepEqual(await column(page, 1), ['No products match.']));

    await search.fill('');
    await showsSkus(page, await apiSkus('sort=name&page=1&perPage=5'));
    assert.deepEqual(problems, []);
  });

  it('pages through the table with Next and Previous', async () => {
    const { page, problems } = await openPage();
    const previous = page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Previous' });
    const next = page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Next' });
    const first = await apiSkus('sort=name&page=1&perPage=5');
    const second = await apiSkus('sort=name&page=2&perPage=5');
    assert.deepEqual(second, ['MU-001', 'GD-002', 'TY-001']);
    assert.equal(await previous.isDisabled(), true);

    await next.click();
    await showsSkus(page, second);
    assert.equal(await indicator(page).textContent(), 'Page 2 of 2 · 8 products');
    assert.deepEqual([await previous.isDisabled(), await next.isDisabled()], [false, true]);

    await previous.click();
    await showsSkus(page, first);
    assert.equal(await indicator(page).textContent(), 'Page 1 of 2 · 8 products');

    await page.getByLabel('Rows per page').selectOption('10');
    await showsSkus(page, [...first, ...second]);
    assert.equal(await indicator(page).textContent(), 'Page 1 of 1 · 8 products');
    assert.deepEqual(problems, []);
  });

  it('soft-deletes a row, lists it among the deleted products and restores it', async () => {
    const { page, problems } = await openPage();
    const spade = (await apiData<Product[]>('/api/products?filter[sku]=GD-001'))[0]!;
    await table(page).getByRole('button', { name: 'Delete Folding Spade' }).click();
    await page.getByRole('status').filter({ hasText: 'Folding Spade moved to the deleted products.' }).waitFor();
    await showsSkus(page, ['KT-010', 'KT-001', 'BK-002', 'BK-001', 'MU-001']);
    assert.equal((await demo().get(`/api/products/${spade.id}`)).status, 404);

    await filters(page).getByLabel('Show deleted products').check();
    await page.getByRole('heading', { name: 'Deleted products' }).waitFor();
    await showsSkus(page, ['GD-001', 'TY-002']);
    assert.deepEqual(await skus(page), await apiSkus('filter[deleted_at][nn]=1&sort=name'));
    await browser.shot(page, 'demo-page-deleted');

    await table(page).getByRole('button', { name: 'Restore Folding Spade' }).click();
    await showsSkus(page, ['TY-002']);
    assert.equal((await demo().get(`/api/products/${spade.id}`)).status, 200);

    await filters(page).getByLabel('Show deleted products').uncheck();
    await page.getByRole('heading', { name: 'Products', exact: true }).waitFor();
    await showsSkus(page, ['KT-010', 'KT-001', 'BK-002', 'GD-001', 'BK-001']);
    assert.deepEqual(problems, []);
  });

  it('downloads the CSV export of the current sort and filter', async () => {
    const { page, problems } = await openPage();
    await sortButton(page, 'Price').click();
    await sortButton(page, 'Price').click();
    await filters(page).getByRole('searchbox', { name: 'Search' }).pressSequentially('ing');
    await showsSkus(page, ['BK-002', 'GD-001', 'GD-002']);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csv = await readFile(await download.path(), 'utf8');
    assert.equal(download.suggestedFilename(), 'products.csv');
    assert.equal(csv, (await demo().get('/api/products/export-csv?sort=-price&filter[term]=ing')).text);
    const header = (await demo().get('/api/products/export-csv')).text.split(/\r?\n/)[0];
    assert.equal(header, 'SKU,Name,Category,Price');
    assert.deepEqual(csv.trim().split(/\r?\n/), [
      header,
      'BK-002,Designing Data-Intensive Applications,Books,44.5',
      'GD-001,Folding Spade,Garden,24',
      'GD-002,Watering Can,Garden,12.75',
    ]);
    assert.deepEqual(problems, []);
  });
});

describe('the demo page files, over HTTP', () => {
  const demo = serveDemoInSuite();

  it('serves the page and its two assets from the demo, with no URL of another origin', async () => {
    const page = await demo().get('/');
    assert.deepEqual([page.status, page.headers.get('content-type')], [200, 'text/html; charset=utf-8']);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(page.text, /<link rel="icon" href="data:,">/);
    assert.match(page.text, /<script type="module" src="\/assets\/demo\.js"><\/script>/);
    const script = await demo().get('/assets/demo.js');
    const style = await demo().get('/assets/demo.css');
    assert.deepEqual([script.status, script.headers.get('content-type')], [200, 'text/javascript; charset=utf-8']);
    assert.deepEqual([style.status, style.headers.get('content-type')], [200, 'text/css; charset=utf-8']);
    for (const { text } of [page, script, style]) assert.doesNotMatch(text, /https?:\/\//);
    assert.match(script.text, /\/\/ #region options-select\n[\s\S]+\/\/ #endregion options-select/);
    assert.match(script.text, /\/\/ #region options-autocomplete\n[\s\S]+\/\/ #endregion options-autocomplete/);
  });

  it('serves no other file of its folder, nor anything outside it', async () => {
    for (const path of [
      '/index.html',
      '/assets/index.html',
      '/assets/router.ts',
      '/assets/..%2Frouter.ts',
      '/assets/..%2F..%2Fapp.ts',
      '/assets/%2e%2e%2fdemo.js',
      '/assets/',
      '/assets/demo.js/x',
      '/page/demo.js',
    ]) {
      assert.equal((await demo().get(path)).status, 404, path);
    }
  });
});
