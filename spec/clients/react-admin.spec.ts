/**
 * koa-fast-crud/react-admin against the demo app, called through ra-core's own machinery: the
 * provider is typed as ra-core's `DataProvider`, and every call goes through the proxy
 * `useDataProvider()` returns (rendered in Node with react-dom/server), which in development checks
 * each reply's shape with ra-core's validateResponseFormat. react-admin's `fetchUtils.fetchJson`
 * serves as the httpClient in one suite.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fetchUtils, withLifecycleCallbacks, type DataProvider } from 'ra-core';
import {
  dataProvider,
  HttpError,
  type KoaFastCrudDataProvider,
  type ReactAdminOptions,
} from 'koa-fast-crud/react-admin';
import { stableId } from '../../docs/examples/demo/seed.js';
import { serveDemoInSuite } from '../support/demo.js';
import { inDevelopmentMode, quietly, rejection, throughRaCore } from '../support/ra-core.js';

/** The rejection of `promise`, which must be one, an HttpError. */
async function rejected(promise: Promise<unknown>): Promise<HttpError> {
  const error = await rejection(promise);
  assert.ok(error instanceof HttpError, String(error));
  return error;
}

/** The provider through ra-core, with the provider's own methods beside react-admin's. */
const throughRaCoreAll = (provider: DataProvider) =>
  throughRaCore<
    DataProvider &
      Pick<KoaFastCrudDataProvider, 'softDelete' | 'restore' | 'softDeleteMany' | 'restoreMany' | 'getOptions'>
  >(provider);

const names = (rows: readonly { name?: unknown }[]) => rows.map((row) => row.name);
const books = stableId('category:Books');
const pan = stableId('product:KT-001');
const spade = stableId('product:GD-001');

inDevelopmentMode();

for (const transport of ['fetch', 'fetchUtils.fetchJson'] as const) {
  describe(`koa-fast-crud/react-admin through ra-core, over ${transport}`, () => {
    const demo = serveDemoInSuite();
    const options = (extra: ReactAdminOptions = {}): ReactAdminOptions =>
      transport === 'fetch' ? extra : { ...extra, httpClient: fetchUtils.fetchJson };
    let ra: ReturnType<typeof throughRaCoreAll>;
    before(() => {
      const provider: DataProvider = dataProvider(`${demo().url}/api`, options());
      ra = throughRaCoreAll(provider);
    });

    it('getList: filters (q is the term search, a suffix an operator), sort and pagination, total from meta.pagination', async () => {
      const page = await ra.getList('products', {
        filter: { q: 'o', price_gte: 20 },
        sort: { field: 'price', order: 'DESC' },
        pagination: { page: 1, perPage: 2 },
      });
      assert.deepEqual(names(page.data), ['Cast Iron Pan', 'Designing Data-Intensive Applications']);
      assert.equal(page.total, 5);
      const second = await ra.getList('products', {
        filter: { q: 'o', price_gte: 20 },
        sort: { field: 'price', order: 'DESC' },
        pagination: { page: 3, perPage: 2 },
      });
      assert.deepEqual(names(second.data), ['Folding Spade']);
    });

    it('getList: plain keys are eq, arrays in, nested objects name operators, nn reaches the trash, relation paths pass', async () => {
      const list = (filter: object) =>
        ra.getList('products', { filter, sort: { field: 'name', order: 'ASC' }, pagination: { page: 1, perPage: 50 } });
      assert.deepEqual(names((await list({ sku: 'BK-001' })).data), ['The Pragmatic Programmer']);
      assert.deepEqual(names((await list({ sku: ['GD-001', 'GD-002'] })).data), ['Folding Spade', 'Watering Can']);
      assert.deepEqual(names((await list({ price: { btw: [20, 36] } })).data), ['Folding Spade', 'Wooden Train Set']);
      assert.deepEqual(names((await list({ price_lt: 13, name_like: 'CAN' })).data), ['Watering Can']);
      assert.deepEqual(names((await list({ deletedAt_nn: true })).data), ['Kite']);
      assert.deepEqual(names((await list({ deletedAt_nn: false, 'category.name': 'Garden' })).data), [
        'Folding Spade',
        'Watering Can',
      ]);
      assert.equal(
        (await list({ name: '', price_gte: undefined, sku: [] })).total,
        7,
        'empty filter inputs add nothing',
      );
    });

    it('getList: meta.include loads associations', async () => {
      const page = await ra.getList('products', {
        filter: { sku: 'KT-001' },
        sort: { field: 'id', order: 'ASC' },
        pagination: { page: 1, perPage: 5 },
        meta: { include: ['category'] },
      });
      assert.equal(page.data[0].category.name, 'Kitchen');
    });

    it('getOne, getMany and getManyReference', async () => {
      assert.equal((await ra.getOne('products', { id: pan })).data.name, 'Cast Iron Pan');
      const many = await ra.getMany('products', { ids: [pan, spade] });
      assert.deepEqual(names(many.data).sort(), ['Cast Iron Pan', 'Folding Spade']);
      const reference = await ra.getManyReference('products', {
        target: 'categoryId',
        id: books,
        filter: {},
        sort: { field: 'name', order: 'ASC' },
        pagination: { page: 1, perPage: 1 },
      });
      assert.deepEqual(names(reference.data), ['Designing Data-Intensive Applications']);
      assert.equal(reference.total, 2);
    });

    it('create, update, updateMany, delete and deleteMany', async () => {
      const created = await ra.create('products', {
        data: { sku: `RA-${transport.length}`, name: 'Trowel', price: 9.5, categoryId: stableId('category:Garden') },
      });
      assert.equal(created.data.name, 'Trowel');
      const id = created.data.id;
      const updated = await ra.update('products', {
        id,
        data: { ...created.data, name: 'Hand Trowel' },
        previousData: created.data,
      });
      assert.equal(updated.data.name, 'Hand Trowel');
      const second = await ra.create('products', {
        data: { sku: `RB-${transport.length}`, name: 'Rake', price: 15, categoryId: stableId('category:Garden') },
      });
      const ids = [id, second.data.id];
      assert.deepEqual((await ra.updateMany('products', { ids, data: { price: 11 } })).data, ids);
      const prices = (await ra.getMany('products', { ids })).data.map((row) => Number(row.price));
      assert.deepEqual(prices, [11, 11]);
      const deleted = await ra.delete('products', { id, previousData: updated.data });
      assert.equal(deleted.data.name, 'Hand Trowel');
      const gone = await rejected(ra.getOne('products', { id }));
      assert.equal(gone.status, 404);
      assert.deepEqual((await ra.deleteMany('products', { ids: [second.data.id] })).data, [second.data.id]);
      assert.equal((await ra.getMany('products', { ids })).data.length, 0);
    });

    it('softDelete, softDeleteMany, restore and restoreMany, the extra methods', async () => {
      const trashed = await ra.softDelete('products', { id: spade });
      assert.notEqual(trashed.data['deletedAt'], null);
      const live = async () =>
        names(
          (
            await ra.getList('products', {
              filter: { sku: ['GD-001', 'GD-002'] },
              sort: { field: 'name', order: 'ASC' },
              pagination: { page: 1, perPage: 5 },
            })
          ).data,
        );
      assert.deepEqual(await live(), ['Watering Can']);
      assert.equal((await ra.restore('products', { id: spade })).data['deletedAt'], null);
      assert.deepEqual(await live(), ['Folding Spade', 'Watering Can']);
      const both = [spade, stableId('product:GD-002')];
      assert.deepEqual((await ra.softDeleteMany('products', { ids: both })).data, both);
      assert.deepEqual(await live(), []);
      assert.deepEqual((await ra.restoreMany('products', { ids: both })).data, both);
      assert.deepEqual(await live(), ['Folding Spade', 'Watering Can']);
    });

    it('getList with q on an autocomplete resource: the options route, labels containing q, records { id, label }', async () => {
      const raw = dataProvider(`${demo().url}/api`, options({ autocomplete: { categories: 'name' } }));
      const auto = throughRaCoreAll(raw);
      const list = (filter: object, page = 1, perPage = 25) =>
        auto.getList('categories', { filter, sort: { field: 'id', order: 'DESC' }, pagination: { page, perPage } });
      const found = await list({ q: 'O' });
      assert.deepEqual(found.data, [
        { id: books, name: 'Books' },
        { id: stableId('category:Toys'), name: 'Toys' },
      ]);
      assert.deepEqual(found.pageInfo, { hasNextPage: false, hasPreviousPage: false });
      // An empty q: the first labels, a page at a time (the route reads the first page × perPage).
      const first = await list({ q: '' }, 1, 2);
      assert.deepEqual(names(first.data), ['Books', 'Garden']);
      assert.deepEqual(first.pageInfo, { hasNextPage: true, hasPreviousPage: false });
      assert.deepEqual(names((await list({ q: '' }, 2, 2)).data), ['Kitchen', 'Music']);
      // The other filters go with it, under the resource's filter policy.
      assert.deepEqual(names((await list({ q: 'o', 'products.sku': 'BK-001' })).data), ['Books']);
      // Without q, a search as usual; a resource not named keeps q as the term search.
      assert.equal((await list({})).total, 5);
      assert.deepEqual(
        names((await auto.getList('products', { filter: { q: 'spade' }, pagination: { page: 1, perPage: 5 } })).data),
        ['Folding Spade'],
      );
      // Without the option, q on categories is the term search, which it has not: a 400 naming term.
      const refused = await rejected(
        ra.getList('categories', { filter: { q: 'o' }, pagination: { page: 1, perPage: 5 } }),
      );
      assert.equal(refused.status, 400);
    });

    it('getOptions: label and value pairs from the options route', async () => {
      const { data } = await ra.getOptions('categories', { label: 'name' });
      assert.deepEqual(
        data.map((item) => item.label),
        ['Books', 'Garden', 'Kitchen', 'Music', 'Toys'],
      );
      assert.equal(data[0]!.value, books);
    });

    it('rejects a validation fail with an HttpError whose body.errors maps the field to its message, as react-admin forms read it', async () => {
      const error = await rejected(ra.update('products', { id: pan, data: { price: -1 }, previousData: { id: pan } }));
      assert.equal(error.status, 400);
      assert.deepEqual(error.body?.['errors'], { price: 'A price is never negative' });
      assert.equal(error.message, 'A price is never negative');
      const unique = await rejected(
        ra.create('products', { data: { sku: 'BK-001', name: 'Copy', price: 1, categoryId: books } }),
      );
      assert.equal(unique.status, 409);
      assert.deepEqual(Object.keys(unique.body?.['errors'] as object), ['sku']);
    });

    it('reads the fail items of an httpClient that rejects with the reply body as text, as it reads a parsed one', async () => {
      const textClient = async (url: string, init: RequestInit) => {
        const response = await fetch(url, init);
        const body = await response.text();
        if (!response.ok) throw Object.assign(new Error(response.statusText), { status: response.status, body });
        return { status: response.status, body };
      };
      const viaText = throughRaCoreAll(dataProvider(`${demo().url}/api`, { httpClient: textClient as never }));
      const error = await rejected(
        viaText.update('products', { id: pan, data: { price: -1 }, previousData: { id: pan } }),
      );
      assert.deepEqual([error.status, error.body?.['errors']], [400, { price: 'A price is never negative' }]);
    });

    it('rejects a 403 with an HttpError that has a message and no form errors, with the auth headers of the options', async () => {
      let calls = 0;
      const headers = () => {
        calls += 1;
        return { 'x-demo-abilities': 'shop.access.search' };
      };
      const guarded = throughRaCoreAll(dataProvider(`${demo().url}/api`, options({ headers })));
      assert.equal(
        (
          await guarded.getList('categories', {
            filter: {},
            sort: { field: 'name', order: 'ASC' },
            pagination: { page: 1, perPage: 1 },
          })
        ).total,
        5,
      );
      const denied = await rejected(guarded.create('categories', { data: { name: 'Denied' } }));
      assert.equal(denied.status, 403);
      assert.equal(denied.message, 'This action needs the ability shop.access.create');
      assert.equal(denied.body?.['errors'], undefined);
      assert.equal(calls, 2, 'the headers function is called per request');
    });

    it('turns an unknown operator into an Error in the client, sending nothing', async () => {
      await assert.rejects(
        quietly(() =>
          ra.getList('products', {
            filter: { price: { above: 3 } },
            sort: { field: 'id', order: 'ASC' },
            pagination: { page: 1, perPage: 1 },
          }),
        ),
        /unknown filter operator "above" on "price"/,
      );
    });

    it('getList with the cursor option: pages 1, 2, 3 and back by cursor, pageInfo, the same rows as offset pages', async () => {
      const paged = throughRaCoreAll(dataProvider(`${demo().url}/api`, options({ cursor: ['products'] })));
      const params = (page: number) => ({
        filter: { price_gte: 5 },
        sort: { field: 'price', order: 'DESC' as const },
        pagination: { page, perPage: 2 },
      });
      const offset = await ra.getList('products', { ...params(1), pagination: { page: 1, perPage: 100 } });
      const pages = [];
      for (const page of [1, 2, 3, 2, 1]) pages.push(await paged.getList('products', params(page)));
      const ids = pages.map((page) => page.data.map((row) => row.id));
      const all = offset.data.map((row) => row.id);
      assert.deepEqual(ids, [all.slice(0, 2), all.slice(2, 4), all.slice(4, 6), all.slice(2, 4), all.slice(0, 2)]);
      assert.deepEqual(
        pages.map((page) => page.pageInfo),
        [
          { hasNextPage: all.length > 2, hasPreviousPage: false },
          { hasNextPage: all.length > 4, hasPreviousPage: true },
          { hasNextPage: all.length > 6, hasPreviousPage: true },
          { hasNextPage: all.length > 4, hasPreviousPage: true },
          { hasNextPage: all.length > 2, hasPreviousPage: false },
        ],
      );
      assert.equal(pages[0]!.total, offset.total);
    });

    it('gives an export link for a list filter and sort that downloads the CSV', async () => {
      const provider = dataProvider(`${demo().url}/api`, options());
      const url = provider.exportUrl('products', { filter: { q: 'gd' }, sort: { field: 'price', order: 'DESC' } });
      const csv = await (await fetch(url)).text();
      assert.deepEqual(
        csv
          .trim()
          .split(/\r?\n/)
          .map((line) => line.split(',')[0]),
        ['SKU', 'GD-001', 'GD-002'],
      );
    });
  });
}

describe('koa-fast-crud/react-admin with ra-core helpers', () => {
  const demo = serveDemoInSuite();

  it('works under withLifecycleCallbacks, and passes an abort signal through', async () => {
    const seen: string[] = [];
    const provider = withLifecycleCallbacks(dataProvider(`${demo().url}/api`), [
      { resource: 'categories', afterGetList: async (result) => (seen.push('afterGetList'), result) },
    ]);
    const page = await provider.getList('categories', {
      filter: {},
      sort: { field: 'name', order: 'ASC' },
      pagination: { page: 1, perPage: 2 },
    });
    assert.deepEqual(names(page.data), ['Books', 'Garden']);
    assert.deepEqual(seen, ['afterGetList']);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      provider.getList('categories', {
        filter: {},
        sort: { field: 'name', order: 'ASC' },
        pagination: { page: 1, perPage: 2 },
        signal: controller.signal,
      }),
      { name: 'AbortError' },
    );
  });
});

describe('koa-fast-crud/react-admin: the Export button over more rows than search.max_per_page', () => {
  const demo = serveDemoInSuite();

  it('getList of perPage 1000, as the Export button asks it, returns every row although the server lowers perPage to 500', async () => {
    const api = `${demo().url}/api`;
    const items = Array.from({ length: 510 }, (_, i) => ({
      sku: `BULK-${String(i).padStart(3, '0')}`,
      name: `Bulk ${i}`,
      price: 1,
      categoryId: stableId('category:Garden'),
    }));
    const created = await fetch(`${api}/products`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(items),
    });
    assert.ok(created.status < 300, await created.text());
    const lowered = await fetch(`${api}/products?perPage=1000`);
    assert.equal(lowered.headers.get('fast-crud-per-page-lowered'), '500');
    const count = ((await lowered.json()) as { meta: { pagination: { count: number } } }).meta.pagination.count;
    assert.ok(count > 500 && count < 1000, String(count));
    const seen: string[] = [];
    const ra = throughRaCoreAll(
      dataProvider(api, {
        httpClient: async (url, init) => {
          seen.push(new URL(url).search);
          return fetchUtils.fetchJson(url, init);
        },
      }),
    );
    // What ExportButton (and useListController's getData) sends: page 1 of maxResults = 1000.
    const exported = await ra.getList('products', {
      sort: { field: 'sku', order: 'ASC' },
      filter: {},
      pagination: { page: 1, perPage: 1000 },
    });
    assert.equal(exported.total, count);
    assert.equal(exported.data.length, count);
    assert.equal(new Set(exported.data.map((row) => row.id)).size, count);
    assert.deepEqual(seen, ['?sort=sku&page=1&perPage=1000', '?sort=sku&page=2&perPage=500']);
    // A later page of a lowered size: rows 510 to 1019 of the sort, so the last ones.
    const second = await ra.getList('products', {
      sort: { field: 'sku', order: 'ASC' },
      filter: {},
      pagination: { page: 2, perPage: 510 },
    });
    assert.deepEqual(
      second.data.map((row) => row.id),
      exported.data.slice(510).map((row) => row.id),
    );
  });
});
