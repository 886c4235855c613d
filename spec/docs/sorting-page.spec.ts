/** docs/guide/sorting.md: its ORDER BY table is the SQL a search runs, and its example file runs. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import { Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from 'koa-fast-crud';
import { compileSearch } from '../../lib/compile/search.js';
import { planSearch, resolvePolicy } from 'koa-fast-crud/core';
import { defineDemoModels } from '../../docs/examples/demo/models.js';
import { seedDemo } from '../../docs/examples/demo/seed.js';
import { serveDemoInSuite } from '../support/demo.js';
import { serve } from '../support/http.js';
import { tableRows } from '../support/markdown.js';

const page = readFileSync('docs/guide/sorting.md', 'utf8');

describe('docs/guide/sorting.md', () => {
  const sqlite = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const models = defineDemoModels(sqlite);
  before(() => seedDemo(models));
  after(() => sqlite.close());

  it('shows in its ORDER BY table the order a search of the demo products runs', async () => {
    const rows = tableRows(page, '| `sort` |');
    assert.ok(rows.length >= 4);
    const settings = { policy: resolvePolicy(models.Product, {}, DEFAULT_CONFIG), termKey: 'term', termFields: [], config: DEFAULT_CONFIG, paginate: true };
    for (const [sortCell, orderCell] of rows) {
      const sort = sortCell === '_(absent)_' ? undefined : sortCell!.replaceAll('`', '');
      const plan = planSearch(models.Product, sort === undefined ? {} : { sort }, settings);
      assert.ok(E.isRight(plan), `sort=${sort} is refused`);
      let sql = '';
      await models.Product.findAll({ ...compileSearch(models.Product, plan.right, 'deletedAt'), logging: (text: string) => (sql = text) });
      const orderBy = /ORDER BY (.*?)(?: LIMIT|;)/.exec(sql)?.[1]?.replace(/`Product`\./g, '').replaceAll('`', '');
      assert.equal(orderBy, orderCell!.replaceAll('`', ''), `sort=${sort}`);
    }
  });

  it('includes only example files and regions that exist', () => {
    for (const [, file, region] of page.matchAll(/^<<< @\/(\S+?)(?:#([\w-]+))?$/gm)) {
      const source = readFileSync(`docs/${file}`, 'utf8');
      if (region) assert.match(source, new RegExp(`// #region ${region}\\n[\\s\\S]*// #endregion ${region}\\n`), `${file}#${region}`);
    }
  });
});

describe('docs/examples/querying/sort.ts', () => {
  it('holds its assertions and serves its own sorted route', async () => {
    const example = await import('../../docs/examples/querying/sort.js');
    await seedDemo(example);
    const server = await serve(new Koa().use(example.reports.routes()));
    try {
      const cheapest = await server.get('/reports/cheapest');
      assert.deepEqual(cheapest.body.map((p: { sku: string }) => p.sku), ['GD-002', 'GD-001', 'TY-001']);
      const byName = await server.get('/reports/cheapest?sort=-name');
      assert.deepEqual(byName.body.map((p: { name: string }) => p.name), ['Wooden Train Set', 'Watering Can', 'Ukulele']);
      const refused = await server.get('/reports/cheapest?sort=createdAt');
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.data.map((f: { field: string }) => f.field), ['created_at']);
    } finally {
      await server.close();
      await example.sequelize.close();
    }
  });
});

describe('the sort parameter of the demo, as the page describes it', () => {
  const demo = serveDemoInSuite();
  const skus = async (query: string) => (await demo().get(`/api/products?${query}`)).body.data?.map((p: { sku: string }) => p.sku);

  it('treats a repeated sort as one list, and camelCase, snake_case and PascalCase names alike', async () => {
    assert.deepEqual(await skus('sort=-price&sort=name'), await skus('sort=-price,name'));
    assert.deepEqual(await skus('sort=categoryId'), await skus('sort=category_id'));
    assert.deepEqual(await skus('sort=CategoryId'), await skus('sort=category_id'));
    assert.deepEqual(await skus('sort= -price , name,'), await skus('sort=-price,name'));
  });

  it('refuses a sort in brackets, and names unknown columns as the client wrote them', async () => {
    const bracketed = await demo().get('/api/products?sort[x]=name');
    assert.equal(bracketed.status, 400);
    assert.equal(bracketed.body.data[0].error, 'invalidValue');
    const unknown = await demo().get('/api/products?sort=name;x');
    assert.deepEqual(unknown.body.data.map((f: { field: string }) => f.field), ['name;x']);
  });
});
