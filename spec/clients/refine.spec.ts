/**
 * koa-fast-crud/refine against the demo app, typed as @refinedev/core's `DataProvider` and called
 * with parameters of Refine's own types (CrudFilter, CrudSort, Pagination): every supported
 * operator, every method, custom, the extra soft-delete/restore/options methods, and a validation
 * fail as Refine's HttpError with its `errors` map.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getNextPageParam, getPreviousPageParam } from '@refinedev/core';
import type {
  CrudFilter,
  CrudOperators,
  DataProvider,
  GetListResponse,
  HttpError as RefineHttpError,
} from '@refinedev/core';
import { dataProvider, HttpError, REFINE_OPERATORS, type RefineOperator } from 'koa-fast-crud/refine';
import { stableId } from '../../docs/examples/demo/seed.js';
import { serveDemoInSuite } from '../support/demo.js';

const names = (rows: readonly Record<string, unknown>[]) => rows.map((row) => row['name']);
const books = stableId('category:Books');
const pan = stableId('product:KT-001');
const spade = stableId('product:GD-001');

/** Every operator Refine has: the supported ones map, the rest throw. */
const ALL_OPERATORS: Readonly<Record<CrudOperators, true>> = {
  eq: true,
  ne: true,
  eqs: true,
  nes: true,
  lt: true,
  gt: true,
  lte: true,
  gte: true,
  in: true,
  nin: true,
  ina: true,
  nina: true,
  contains: true,
  ncontains: true,
  containss: true,
  ncontainss: true,
  between: true,
  nbetween: true,
  null: true,
  nnull: true,
  startswith: true,
  nstartswith: true,
  startswiths: true,
  nstartswiths: true,
  endswith: true,
  nendswith: true,
  endswiths: true,
  nendswiths: true,
  or: true,
  and: true,
};

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof HttpError, String(error));
  const typed: RefineHttpError = error;
  return typed as HttpError;
}

describe('koa-fast-crud/refine against the demo', () => {
  const demo = serveDemoInSuite();
  const provider = (): DataProvider => dataProvider(`${demo().url}/api`);

  it('getList maps every supported CrudFilter operator to the server operator that finds the same rows', async () => {
    const examples: Record<RefineOperator, [CrudFilter[], string[]]> = {
      eq: [[{ field: 'sku', operator: 'eq', value: 'BK-001' }], ['The Pragmatic Programmer']],
      ne: [
        [
          { field: 'sku', operator: 'ne', value: 'BK-001' },
          { field: 'price', operator: 'lt', value: 30 },
        ],
        ['Folding Spade', 'Watering Can'],
      ],
      lt: [[{ field: 'price', operator: 'lt', value: 24 }], ['Watering Can']],
      gt: [[{ field: 'price', operator: 'gt', value: 54 }], ['Ukulele']],
      lte: [[{ field: 'price', operator: 'lte', value: 24 }], ['Folding Spade', 'Watering Can']],
      gte: [[{ field: 'price', operator: 'gte', value: 54 }], ['Cast Iron Pan', 'Ukulele']],
      in: [
        [{ field: 'sku', operator: 'in', value: ['BK-001', 'GD-002'] }],
        ['The Pragmatic Programmer', 'Watering Can'],
      ],
      nin: [
        [{ field: 'sku', operator: 'nin', value: ['BK-001', 'BK-002', 'GD-001', 'GD-002', 'KT-001'] }],
        ['Ukulele', 'Wooden Train Set'],
      ],
      contains: [[{ field: 'name', operator: 'contains', value: 'pan' }], ['Cast Iron Pan']],
      between: [[{ field: 'price', operator: 'between', value: [24, 35] }], ['Folding Spade', 'Wooden Train Set']],
      null: [
        [
          { field: 'deletedAt', operator: 'null', value: undefined },
          { field: 'price', operator: 'lt', value: 19 },
        ],
        ['Watering Can'],
      ],
      nnull: [[{ field: 'deletedAt', operator: 'nnull', value: true }], ['Kite']],
    };
    assert.deepEqual(Object.keys(examples).sort(), Object.keys(REFINE_OPERATORS).sort());
    for (const [operator, [filters, expected]] of Object.entries(examples)) {
      const { data, total } = await provider().getList({
        resource: 'products',
        filters,
        sorters: [{ field: 'name', order: 'asc' }],
        pagination: { currentPage: 1, pageSize: 20 },
      });
      assert.deepEqual(names(data), expected, operator);
      assert.equal(total, expected.length, operator);
    }
  });

  it("sends Refine's conditional filters (or, and, nested) as $or and $and, and the demo answers them", async () => {
    const list = async (filters: CrudFilter[]) =>
      names(
        (await provider().getList({ resource: 'products', filters, sorters: [{ field: 'name', order: 'asc' }] })).data,
      );
    const either: CrudFilter[] = [
      {
        operator: 'or',
        value: [
          { field: 'name', operator: 'contains', value: 'pan' },
          { field: 'price', operator: 'lt', value: 20 },
        ],
      },
    ];
    const [pan, cheap] = [
      await list([{ field: 'name', operator: 'contains', value: 'pan' }]),
      await list([{ field: 'price', operator: 'lt', value: 20 }]),
    ];
    assert.ok(pan.length > 0 && cheap.length > 0);
    assert.deepEqual(await list(either), [...new Set([...pan, ...cheap])].sort());
    const nested: CrudFilter[] = [
      { field: 'price', operator: 'lt', value: 60 },
      {
        key: 'any',
        operator: 'or',
        value: [
          { field: 'sku', operator: 'eq', value: 'BK-001' },
          {
            operator: 'and',
            value: [
              { field: 'category.name', operator: 'eq', value: 'Toys' },
              { field: 'name', operator: 'contains', value: 'train' },
            ],
          },
        ],
      },
    ];
    assert.deepEqual(await list(nested), ['The Pragmatic Programmer', 'Wooden Train Set']);
    // A cleared input inside a group adds nothing; a group of only cleared inputs neither.
    const cleared: CrudFilter[] = [{ operator: 'or', value: [{ field: 'name', operator: 'contains', value: '' }] }];
    assert.equal((await list(cleared)).length, (await list([])).length);
  });

  it('throws a clear Error for every other Refine operator, before any request', async () => {
    let requests = 0;
    const counting = dataProvider(`${demo().url}/api`, {
      fetch: (url, init) => ((requests += 1), fetch(url, init as RequestInit)),
    });
    const others = (Object.keys(ALL_OPERATORS) as CrudOperators[]).filter(
      (op) => !Object.hasOwn(REFINE_OPERATORS, op) && op !== 'or' && op !== 'and',
    );
    assert.equal(others.length, 30 - 12 - 2);
    for (const operator of others) {
      const filter = { field: 'name', operator, value: 'x' } as CrudFilter;
      await assert.rejects(
        counting.getList({ resource: 'products', filters: [filter] }),
        new RegExp(`the filter operator "${operator}".* has no equivalent in koa-fast-crud`),
        operator,
      );
    }
    assert.equal(requests, 0);
  });

  it('getList: sorters, pages (currentPage, or the older current), the term search on q, pagination off, meta.include', async () => {
    const list = provider().getList;
    const page = await list({
      resource: 'products',
      filters: [
        { field: 'q', operator: 'contains', value: 'o' },
        { field: 'price', operator: 'gte', value: 20 },
      ],
      sorters: [{ field: 'price', order: 'desc' }],
      pagination: { currentPage: 2, pageSize: 2 },
    });
    assert.deepEqual(names(page.data), ['The Pragmatic Programmer', 'Wooden Train Set']);
    assert.equal(page.total, 5);
    const older = await list({
      resource: 'products',
      sorters: [{ field: 'price', order: 'asc' }],
      pagination: { current: 2, pageSize: 3 } as never,
    });
    assert.deepEqual(names(older.data), [
      'The Pragmatic Programmer',
      'Designing Data-Intensive Applications',
      'Cast Iron Pan',
    ]);
    const all = await list({ resource: 'products', pagination: { mode: 'off' } });
    assert.equal(all.data.length, 7);
    const included = await list({
      resource: 'products',
      filters: [{ field: 'sku', operator: 'eq', value: 'KT-001' }],
      meta: { include: ['category'] },
    });
    assert.equal(included.data[0]!['category'].name, 'Kitchen');
    const empty = await list({
      resource: 'products',
      filters: [
        { field: 'name', operator: 'contains', value: '' },
        { field: 'sku', operator: 'in', value: [] },
      ],
    });
    assert.equal(empty.total, 7, 'cleared filter inputs add nothing');
  });

  it("getList with meta.cursor follows Refine's cursor contract: getNextPageParam and getPreviousPageParam walk every page", async () => {
    const list = provider().getList;
    const base = {
      resource: 'products',
      sorters: [{ field: 'price', order: 'desc' as const }],
      meta: { cursor: true },
    };
    const all = await list({ ...base, meta: {}, pagination: { mode: 'off' } });
    const pages: GetListResponse[] = [];
    let param: unknown = 1;
    while (param !== undefined && pages.length < 10) {
      const pagination = { currentPage: param as number, pageSize: 3, mode: 'server' as const };
      // As useInfiniteList does: the page parameter as currentPage, and the pagination kept on the result.
      const page = { ...(await list({ ...base, pagination })), pagination };
      pages.push(page);
      param = getNextPageParam(page);
    }
    assert.deepEqual(names(pages.flatMap((page) => page.data)), names(all.data));
    assert.equal(pages[0]!.total, all.total);
    assert.equal(getPreviousPageParam(pages[0]!), undefined);
    const back = await list({
      ...base,
      pagination: { currentPage: getPreviousPageParam(pages.at(-1)!) as number, pageSize: 3 },
    });
    assert.deepEqual(names(back.data), names(pages.at(-2)!.data));
  });

  it("passes Refine's field selection (meta.fields, or meta.select) through as fields", async () => {
    const { getList, getOne, getMany } = provider();
    const sparse = await getList({
      resource: 'products',
      filters: [{ field: 'sku', operator: 'eq', value: 'KT-001' }],
      meta: { include: ['category'], fields: ['sku', { category: ['name'] }] },
    });
    assert.deepEqual(sparse.data, [{ sku: 'KT-001', category: { name: 'Kitchen' } }]);
    const id = (await getList({ resource: 'products', filters: [{ field: 'sku', operator: 'eq', value: 'KT-001' }] }))
      .data[0]!.id!;
    assert.deepEqual((await getOne({ resource: 'products', id, meta: { select: 'name, price' } })).data, {
      name: 'Cast Iron Pan',
      price: 54,
    });
    assert.deepEqual((await getMany!({ resource: 'products', ids: [id], meta: { fields: ['sku'] } })).data, [
      { sku: 'KT-001' },
    ]);
  });

  it('getOne, getMany, create, update, deleteOne, updateMany, deleteMany', async () => {
    const p = provider();
    assert.equal((await p.getOne({ resource: 'products', id: pan })).data['name'], 'Cast Iron Pan');
    assert.deepEqual(names((await p.getMany!({ resource: 'products', ids: [pan, spade] })).data).sort(), [
      'Cast Iron Pan',
      'Folding Spade',
    ]);
    const created = await p.create({
      resource: 'products',
      variables: { sku: 'RF-001', name: 'Hoe', price: 12, categoryId: stableId('category:Garden') },
    });
    const id = created.data['id'] as string;
    assert.equal(created.data['name'], 'Hoe');
    assert.equal(
      (await p.update({ resource: 'products', id, variables: { name: 'Garden Hoe' } })).data['name'],
      'Garden Hoe',
    );
    const second = await p.create({
      resource: 'products',
      variables: { sku: 'RF-002', name: 'Fork', price: 14, categoryId: stableId('category:Garden') },
    });
    const ids = [id, second.data['id'] as string];
    assert.deepEqual(
      (await p.updateMany!({ resource: 'products', ids, variables: { price: 13 } })).data.map((row) =>
        Number(row['price']),
      ),
      [13, 13],
    );
    assert.deepEqual((await p.deleteOne({ resource: 'products', id })).data, { id });
    assert.equal((await refusal(p.getOne({ resource: 'products', id }))).statusCode, 404);
    assert.deepEqual((await p.deleteMany!({ resource: 'products', ids: [ids[1]!] })).data, [{ id: ids[1] }]);
    assert.equal((await p.getMany!({ resource: 'products', ids })).data.length, 0);
  });

  it('custom: a URL relative to the api URL or absolute, with filters, sorters and query, and a payload', async () => {
    const p = provider();
    const reply = await p.custom!({
      url: 'products',
      method: 'get',
      filters: [{ field: 'price', operator: 'lt', value: 20 }],
      sorters: [{ field: 'price', order: 'desc' }],
      query: { perPage: 1, page: undefined, trashed: null },
    });
    // Query entries without a value are left out (not sent as 'undefined' or 'null').
    assert.deepEqual(names(reply.data as never), ['Watering Can']);
    const options = await p.custom!({
      url: `${demo().url}/api/categories/options`,
      method: 'get',
      query: { label: 'name' },
    });
    assert.equal((options.data as unknown as unknown[]).length, 5);
    const created = await p.custom!({ url: 'categories', method: 'post', payload: { name: 'Custom' } });
    assert.equal(created.data['name'], 'Custom');
  });

  it('getList with the searchField on an autocomplete resource: the options route, labels containing it', async () => {
    const p = dataProvider(`${demo().url}/api`, { autocomplete: { categories: 'name' } });
    const list = (filters: CrudFilter[], currentPage = 1, pageSize = 10) =>
      p.getList({ resource: 'categories', filters, pagination: { currentPage, pageSize } });
    // An earlier test of this suite adds categories: the labels asked for are the seed's alone.
    const found = await list([{ field: 'q', operator: 'contains', value: 'OY' }]);
    assert.deepEqual(found.data, [{ id: stableId('category:Toys'), name: 'Toys' }]);
    assert.equal(found.total, 1);
    const first = await list([{ field: 'q', operator: 'eq', value: '' }], 1, 2);
    assert.deepEqual([names(first.data)[0], first.data.length, first.total, first.hasMore], ['Books', 2, 3, true]);
    const filtered = await list([
      { field: 'q', operator: 'contains', value: 'o' },
      { field: 'products.sku', operator: 'eq', value: 'BK-001' },
    ]);
    assert.deepEqual(names(filtered.data), ['Books']);
    assert.ok((await list([])).total >= 5);
    const products = await p.getList({
      resource: 'products',
      filters: [{ field: 'q', operator: 'contains', value: 'spade' }],
    });
    assert.deepEqual(names(products.data), ['Folding Spade']);
  });

  it('softDelete, restore and getOptions, the extra methods', async () => {
    const p = dataProvider(`${demo().url}/api`);
    const live = async () =>
      names(
        (
          await p.getList({
            resource: 'products',
            filters: [{ field: 'categoryId', operator: 'eq', value: stableId('category:Garden') }],
            sorters: [{ field: 'name', order: 'asc' }],
          })
        ).data,
      );
    assert.notEqual((await p.softDelete({ resource: 'products', id: spade })).data['deletedAt'], null);
    assert.deepEqual(await live(), ['Watering Can']);
    assert.equal((await p.restore({ resource: 'products', id: spade })).data['deletedAt'], null);
    assert.deepEqual(await live(), ['Folding Spade', 'Watering Can']);
    const { data } = await p.getOptions({ resource: 'categories', label: 'name' });
    assert.equal(data.find((item) => item.label === 'Books')?.value, books);
  });

  it('rejects a validation fail with an HttpError whose errors map the field, and a 403 with a message only', async () => {
    const failed = await refusal(provider().update({ resource: 'products', id: pan, variables: { price: -5 } }));
    assert.equal(failed.statusCode, 400);
    assert.deepEqual(failed.errors, { price: 'A price is never negative' });
    assert.equal(failed.message, 'A price is never negative');
    assert.deepEqual(
      failed.items.map((item) => item.error),
      ['schema'],
    );
    const guarded = dataProvider(`${demo().url}/api`, { headers: { 'x-demo-abilities': 'shop.access.search' } });
    const denied = await refusal(guarded.deleteOne({ resource: 'products', id: pan }));
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.errors, undefined);
    assert.match(denied.message, /shop\.access\.delete/);
  });

  it('gives getApiUrl as given', () => {
    assert.equal(dataProvider('/api').getApiUrl(), '/api');
  });
});
