/**
 * docs/guide/filtering.md against the code: its operator table lists exactly the operators of
 * OPERATORS with what each takes, its value table the kind kindOf gives each Sequelize type, and
 * its limits, trash recipes and example controller behave as it says.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DataTypes } from 'sequelize';
import { OPERATORS, kindOf, type AttributeDefinition, type Operator } from 'koa-fast-crud/core';
import { seedDemo, stableId } from '../../docs/examples/demo/seed.js';
import { serveDemoInSuite } from '../support/demo.js';
import { serve } from '../support/http.js';
import { tableRows } from '../support/markdown.js';

const page = readFileSync('docs/guide/filtering.md', 'utf8');

const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map(([, code]) => code!);

describe('docs/guide/filtering.md', () => {
  it('lists in its operator table exactly the operators the parser accepts, with what each takes', () => {
    const takes = { 'one value': 'one', 'a list': 'list', 'two values': 'two', nothing: 'none' } as const;
    const rows = tableRows(page, '| operator | SQL | takes |');
    const listed = rows.map(([operator, , taken]) => [codes(operator!)[0], takes[taken as keyof typeof takes]] as const);
    assert.deepEqual(Object.fromEntries(listed), { ...OPERATORS }, 'the table and OPERATORS differ');
    assert.equal(listed.length, Object.keys(OPERATORS).length, 'an operator is listed twice');
  });

  it('lists in its value table the kind of every Sequelize type that has one, and only those', () => {
    const rows = tableRows(page, '| kind | column types |');
    const pageKind = new Map(rows.flatMap(([kind, types]) => codes(types!).map((type) => [type, codes(kind!)[0]] as const)));
    const dataTypes = Object.entries(DataTypes).filter(([, type]) => typeof type === 'function');
    for (const [name, type] of dataTypes) {
      const kind = kindOf({ type } as AttributeDefinition);
      if (kind !== 'other') assert.equal(pageKind.get(name), kind, `DataTypes.${name} is ${kind}`);
      else if (pageKind.has(name)) assert.equal(pageKind.get(name), 'other', `DataTypes.${name} is other`);
    }
    for (const type of pageKind.keys()) assert.ok(Object.hasOwn(DataTypes, type), `the page lists ${type}, which DataTypes lacks`);
  });

  it('includes only example files and regions that exist', () => {
    for (const [, file, region] of page.matchAll(/^<<< @\/(\S+?)(?:#([\w-]+))?$/gm)) {
      const source = readFileSync(`docs/${file}`, 'utf8');
      if (region) assert.match(source, new RegExp(`// #region ${region}\\n[\\s\\S]*// #endregion ${region}\\n`), `${file}#${region}`);
    }
  });
});

describe('filters on the demo, as docs/guide/filtering.md describes them', () => {
  const demo = serveDemoInSuite();
  const names = async (path: string) => {
    const res = await demo().get(path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body.data.map((row: { name: string }) => row.name).sort();
  };
  const failure = async (path: string) => {
    const res = await demo().get(path);
    assert.equal(res.status, 400, `${path}: ${res.text}`);
    return res.body.data.map((f: { field: string; error: string }) => `${f.field} ${f.error}`);
  };

  it('runs every operator of the table on the demo products', async () => {
    const examples: Record<Operator, [string, string[]]> = {
      eq: ['filter[sku]=BK-001', ['The Pragmatic Programmer']],
      neq: ['filter[sku][neq]=BK-001&filter[price][lt]=30', ['Folding Spade', 'Watering Can']],
      gt: ['filter[price][gt]=54', ['Ukulele']],
      gte: ['filter[price][gte]=54', ['Cast Iron Pan', 'Ukulele']],
      lt: ['filter[price][lt]=24', ['Watering Can']],
      lte: ['filter[price][lte]=24', ['Folding Spade', 'Watering Can']],
      gtn: ['filter[price][gtn]=54', ['Ukulele']],
      ltn: ['filter[price][ltn]=24', ['Watering Can']],
      in: ['filter[sku][in]=BK-001,GD-002', ['The Pragmatic Programmer', 'Watering Can']],
      nin: ['filter[sku][nin]=BK-001,BK-002,GD-001,GD-002,KT-001', ['Ukulele', 'Wooden Train Set']],
      btw: ['filter[price][btw]=24,35', ['Folding Spade', 'Wooden Train Set']],
      nn: ['filter[deletedAt][nn]', ['Kite']],
      null: ['filter[deletedAt][null]&filter[price][lt]=25', ['Folding Spade', 'Watering Can']],
      like: ['filter[name][like]=PAN', ['Cast Iron Pan']],
      json: ['filter[name][json]=1', []],
    };
    for (const [op, [query, expected]] of Object.entries(examples)) {
      if (op === 'json') assert.deepEqual(await failure(`/api/products?${query}`), ['name invalidOperator']);
      else assert.deepEqual(await names(`/api/products?${query}`), expected, query);
    }
  });

  it('sends a value with a comma in the bracket form, and treats % and _ as themselves', async () => {
    assert.deepEqual(await names('/api/products?filter[sku][in][]=BK-001&filter[sku][in][]=GD-002'), ['The Pragmatic Programmer', 'Watering Can']);
    assert.deepEqual(await names('/api/products?filter[name][like]=%25'), []);
    assert.deepEqual(await names('/api/products?filter[name][like]=_'), []);
  });

  it('lists the trash, or everything, as the soft-deleted rows table says', async () => {
    assert.deepEqual(await names('/api/categories'), ['Books', 'Garden', 'Kitchen', 'Music', 'Toys']);
    assert.deepEqual(await names('/api/categories?filter[deletedAt][nn]=1'), ['Discontinued']);
    assert.deepEqual(await names('/api/categories?filter[deletedAt][ltn]=9999-12-31'), ['Books', 'Discontinued', 'Garden', 'Kitchen', 'Music', 'Toys']);
  });

  it('refuses what the page says it refuses', async () => {
    assert.deepEqual(await failure('/api/products?filter[price][gte]=1e3'), ['price invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[price]=1&filter[price]=2'), ['price invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[price][btw]=1,2,3'), ['price invalidValue']);
    assert.deepEqual(await failure(`/api/products?filter[sku][in]=${Array.from({ length: 1001 }, (_, i) => i).join(',')}`), ['sku invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[sku]=x%00'), ['sku invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[sku]=123456789012345678901'), ['sku invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[price][like]=9'), ['price invalidOperator']);
    assert.deepEqual(await failure('/api/products?filter[price][foo]=9'), ['price invalidOperator']);
    assert.deepEqual(await failure('/api/products?filter=price'), ['filter invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[term][]=a&filter[term][]=b'), ['term invalidValue']);
    assert.deepEqual(await failure('/api/categories?filter[term]=oo'), ['term columnNotFound']);
    assert.deepEqual(await failure('/api/products?filter[createdAt][gte]=yesterday'), ['createdAt invalidValue']);
    assert.deepEqual(await names('/api/products?filter[createdAt][gte]=2020-01-31T09:30'), await names('/api/products'));
  });

  it('trims values, ignores empty fields and reads date bounds, as the Values and Dates sections say', async () => {
    const all = await names('/api/products');
    assert.deepEqual(await names('/api/products?filter[name][like]=%20%20PAN%20%20'), ['Cast Iron Pan']);
    assert.deepEqual(await names('/api/products?filter[sku]=%20BK-001%20&filter[term]=%20%20'), ['The Pragmatic Programmer']);
    assert.deepEqual(await names('/api/products?filter[name][like]=&filter[price][gt]=%20&filter[sku][in]=,,&filter[price][btw]=,'), all);
    assert.deepEqual(await names('/api/products?filter[price][btw]=54,'), await names('/api/products?filter[price][gte]=54'));
    assert.deepEqual(await names('/api/products?filter[price][btw]=,24'), await names('/api/products?filter[price][lte]=24'));
    assert.deepEqual(await names('/api/products?filter[createdAt][btw]=2000,2999-12'), all);
    assert.deepEqual(await names('/api/products?filter[createdAt][gt]=2999'), []);
    assert.deepEqual(await failure('/api/products?filter[createdAt][lte]=2026-02-30'), ['createdAt invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[price][btw]=20'), ['price invalidValue']);
  });

  it('runs the examples of its $or and $and section as the union and intersection they read as', async () => {
    const section = page.slice(page.indexOf('## `$or` and `$and`'), page.indexOf('## Operators'));
    const [either, nested] = [...section.matchAll(/^GET (\/api\/products\?\S+)$/gm)].map(([, path]) => path!);
    const union = [...new Set([...(await names('/api/products?filter[name][like]=pan')), ...(await names('/api/products?filter[price][lt]=20'))])].sort();
    assert.deepEqual(await names(either!), union);
    const toys = await names('/api/products?filter[price][lt]=60&filter[category.name]=Toys&filter[name][like]=train');
    const book = await names('/api/products?filter[price][lt]=60&filter[sku]=BK-001');
    assert.ok(union.length >= 2 && toys.length === 1 && book.length === 1);
    assert.deepEqual(await names(nested!), [...new Set([...book, ...toys])].sort());
    assert.deepEqual(await failure('/api/products?filter[$or][0][name][like]=x&filter[$or][1][price][lt]=cheap'), ['filter.$or.1.price invalidValue']);
    assert.deepEqual(await failure('/api/products?filter[$or][0][$and][1][$or][0][$and][0][price]=5'), ['filter.$or.0.$and.0.$or.0.$and invalidValue']);
  });

  it('holds the limits of its limits table', async () => {
    assert.deepEqual(await names('/api/products?filter[sku][in][]=BK-001'), ['The Pragmatic Programmer']);
    assert.deepEqual(await names('/api/products?filter[$or][0][$and][0][$or][0][sku][in][]=BK-001'), ['The Pragmatic Programmer']);
    assert.deepEqual(await failure('/api/products?filter[$or][0][$and][0][$or][0][sku][in][x][]=BK-001'), ['filter invalidValue']);
    const list = (n: number) => Array.from({ length: n }, (_, i) => `filter[sku][in][]=${i === 0 ? 'BK-001' : `X${i}`}`).join('&');
    assert.deepEqual(await names(`/api/products?${list(100)}`), ['The Pragmatic Programmer']);
    assert.deepEqual(await failure(`/api/products?${list(101)}`), ['filter invalidValue']);
    // Padding the parameters search reads (search.strict_params refuses any other): list items, each one parameter.
    const padding = (n: number) => Array.from({ length: n }, (_, i) => (i < 100 ? `filter[name][nin][]=X${i}` : `filter[id][nin][]=00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)).join('&');
    assert.deepEqual(await names(`/api/products?${padding(199)}&filter[sku]=BK-001`), ['The Pragmatic Programmer']);
    assert.deepEqual(await failure(`/api/products?${padding(200)}&filter[sku]=BK-001`), ['filter invalidValue'], 'the 201st parameter is refused, not dropped');
    assert.deepEqual(await failure(`/api/products?filter[${'a'.repeat(64)}]=1`), [`${'a'.repeat(64)} columnNotFound`]);
  });
});

describe('docs/examples/querying/products.ts', () => {
  it('searches by its term key, keeps the trash out of reach, scopes by category and pages by 10 up to 50', async () => {
    const example = await import('../../docs/examples/querying/products.js');
    await seedDemo(example);
    const server = await serve(example.app);
    try {
      const skus = async (path: string) => (await server.get(path)).body.data.map((p: { sku: string }) => p.sku).sort();
      assert.deepEqual(await skus('/api/products?filter[q]=gd'), ['GD-001', 'GD-002']);
      assert.equal((await server.get('/api/products?filter[deletedAt][nn]=1')).body.data[0].error, 'columnNotFound');
      assert.equal((await server.get('/api/products?sort=sku')).body.data[0].error, 'columnNotFound');
      assert.equal((await server.get('/api/products?sort=-createdAt')).status, 200);
      const garden = stableId('category:Garden');
      const scoped = { headers: { 'x-category': garden } };
      const books = stableId('category:Books');
      const scopedSkus = async (query: string) =>
        (await server.request('GET', `/api/products${query}`, scoped)).body.data.map((p: { sku: string }) => p.sku).sort();
      assert.deepEqual(await scopedSkus(''), ['GD-001', 'GD-002']);
      assert.deepEqual(await scopedSkus(`?filter[categoryId]=${books}`), ['GD-001', 'GD-002'], 'the scope replaces the same key');
      assert.deepEqual(await scopedSkus(`?filter[category_id]=${books}`), [], 'the scope is ANDed with other keys');
      assert.deepEqual((await server.get('/api/products')).body.meta.pagination, { current: 1, perPage: 10, pagesCount: 1, count: 7 });
      assert.equal((await server.get('/api/products?perPage=99')).body.meta.pagination.perPage, 50);
    } finally {
      await server.close();
      await example.sequelize.close();
    }
  });
});

describe('docs/examples/querying/full-text.ts', () => {
  it('runs its migration, then searches by words in both forms; its down migration drops what up made', async () => {
    const example = await import('../../docs/examples/querying/full-text.js');
    await seedDemo(example);
    const queryInterface = example.sequelize.getQueryInterface();
    await example.up({ context: queryInterface });
    const server = await serve(example.app);
    const names = async (path: string) => {
      const res = await server.get(path);
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((p: { name: string }) => p.name).sort();
    };
    const made = () =>
      example.sequelize.query("SELECT name FROM sqlite_master WHERE name LIKE 'products_fts%' ORDER BY name", {
        type: 'SELECT',
      });
    try {
      assert.deepEqual(await names('/api/products?filter[term]=cast%20pan'), ['Cast Iron Pan']);
      assert.deepEqual(await names('/api/products?filter[term]=pragmatic%20prog'), ['The Pragmatic Programmer']);
      assert.deepEqual(await names('/api/products?filter[term]=pan%20OR%20train'), []);
      assert.deepEqual(await names('/api/catalogue?filter[term]=IRON'), ['Cast Iron Pan']);
      assert.ok((await made()).length > 0);
      await example.down({ context: queryInterface });
      assert.deepEqual(await made(), []);
    } finally {
      await server.close();
      await example.sequelize.close();
    }
  });
});
