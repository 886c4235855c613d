/**
 * docs/actions/options.md against the code: its parameter and hook tables name exactly the route's
 * parameters and the mixin's hooks, its examples run, and the route behaves as its lists say.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import { BaseController, Options } from 'koa-fast-crud';
import { Customer, app, sequelize } from '../../docs/examples/options/customers.js';
import { listOptions } from '../../docs/examples/options/options-query.js';
import { serveDemoInSuite } from '../support/demo.js';
import { serve, type TestServer } from '../support/http.js';
import { tableRows } from '../support/markdown.js';

const page = readFileSync('docs/actions/options.md', 'utf8');

const firstCode = (cell: string) => /`([^`(]+)/.exec(cell)?.[1];

describe('docs/actions/options.md', () => {
  const demo = serveDemoInSuite();

  it('lists exactly the query parameters of the options route', async () => {
    const document = (await demo().get('/api/openapi.json')).body as { paths: Record<string, { get: { parameters: { name: string; required?: boolean }[] } }> };
    const parameters = document.paths['/categories/options']!.get.parameters;
    const rows = tableRows(page, '| parameter | required |');
    // One row stands for every filter[column][operator] parameter, which are search's.
    const filters = parameters.filter((p) => p.name.startsWith('filter['));
    assert.ok(filters.length > 0);
    assert.deepEqual(
      rows.map(([name, required]) => [firstCode(name!), required === 'yes']).sort(),
      [...parameters.filter((p) => !p.name.startsWith('filter[')).map((p) => [p.name, p.required === true]), ['filter[<column>][<operator>]', false]].sort(),
    );
  });

  it('lists exactly the hooks of the Options mixin', () => {
    abstract class Probe extends Options(BaseController) {}
    const hooks = Object.getOwnPropertyNames(Object.getPrototypeOf(Probe.prototype)).filter((name) => /^(modify|after)/.test(name));
    assert.deepEqual(tableRows(page, '| hook |').map(([hook]) => firstCode(hook!)).sort(), hooks.sort());
  });

  it('includes only example files and regions that exist', () => {
    const includes = [...page.matchAll(/^<<< @\/(\S+?)(?:#([\w-]+))?$/gm)];
    assert.ok(includes.length >= 8);
    for (const [, file, region] of includes) {
      const source = readFileSync(`docs/${file}`, 'utf8');
      if (region) assert.match(source, new RegExp(`// #region ${region}\\n[\\s\\S]*// #endregion ${region}\\n`), `${file}#${region}`);
    }
  });

  it('answers the errors of its table', async () => {
    const failure = async (query: string) => {
      const res = await demo().get(`/api/products/options?${query}`);
      assert.equal(res.status, 400, query);
      return res.body.data.map((f: { field: string; error: string }) => `${f.field} ${f.error}`);
    };
    assert.deepEqual(await failure(''), ['label required']);
    assert.deepEqual(await failure('label='), ['label required']);
    assert.deepEqual(await failure('label=colour'), ['colour columnNotFound']);
    assert.deepEqual(await failure('label=name;x'), ['name;x columnNotFound']);
    assert.deepEqual(await failure('label=name&value=*'), ['* columnNotFound']);
    assert.deepEqual(await failure('label=name&value=legacy_code'), ['legacy_code columnNotFound']);
    assert.deepEqual(await failure('label=name&label=sku'), ['name,sku columnNotFound']);
    const byColumn = await demo().get('/api/products/options?label=name&value=category_id');
    assert.equal(byColumn.status, 200);
    const defaults = await demo().get('/api/categories/options?label=name&value=');
    assert.deepEqual(defaults.body, (await demo().get('/api/categories/options?label=name&value=id')).body);
  });
});

describe('docs/examples/options/', () => {
  let server: TestServer;
  before(async () => {
    await sequelize.sync({ force: true });
    await Customer.bulkCreate([
      { name: 'Bob Stone', email: 'bob@example.com', passwordHash: 'x' },
      { name: 'Ann Lee', email: 'ann@example.com', passwordHash: 'x' },
      { name: 'Anna Bell', email: 'anna@example.com', passwordHash: 'x' },
      { name: 'Ann Gone', email: 'gone@example.com', passwordHash: 'x', deletedAt: new Date() },
      ...Array.from({ length: 25 }, (_, i) => ({ name: `Zed ${String(i).padStart(2, '0')}`, email: `z${i}@example.com` })),
    ]);
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  it('customers.ts: narrows by q or its own startsWith, limits to 20, labels with the id, and never reveals hidden columns', async () => {
    const labelOf = async (name: string) => `${name} (${String((await Customer.findOne({ where: { name } }))!.get('id')).slice(0, 8)})`;
    for (const query of ['q=ann', 'startsWith=Ann']) {
      const ann = await server.get(`/customers/options?label=name&${query}`);
      assert.deepEqual(ann.body.data.map((i: { label: string }) => i.label), [await labelOf('Ann Lee'), await labelOf('Anna Bell')], query);
    }
    assert.equal((await server.get('/customers/options?label=name&q=e&limit=100')).body.data.length, 20);
    assert.equal((await server.get('/customers/options?label=name&q=e&limit=3')).body.data.length, 3);
    assert.equal((await server.get('/customers/options?label=name')).body.data.length, 20);
    for (const query of ['label=email', 'label=name&value=email', 'label=name&value=password_hash', 'label=passwordHash']) {
      const res = await server.get(`/customers/options?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.data[0].error, 'columnNotFound', query);
    }
  });

  it('lets value name a column the table has and the model does not declare, which hidden cannot cover', async () => {
    await sequelize.query("ALTER TABLE customers ADD COLUMN legacy_code TEXT DEFAULT 'L-1'");
    const res = await server.get('/customers/options?label=name&value=legacy_code&q=Bob');
    assert.deepEqual(res.body.data.map((i: { value: string }) => i.value), ['L-1']);
  });

  it('options-query.ts: runs its plan, and refuses what it does not know', async () => {
    const listed = await listOptions('name', 'id');
    assert.ok(E.isRight(listed));
    assert.equal(listed.right.length, 28, 'the soft-deleted customer is left out');
    assert.deepEqual(listed.right.slice(0, 2).map((i) => i.label), ['Ann Lee', 'Anna Bell']);
    assert.deepEqual(await listOptions('name', 'legacy_code'), E.left({ _tag: 'columnNotFound', field: 'legacy_code' }));
    assert.deepEqual(await listOptions('colour'), E.left({ _tag: 'columnNotFound', field: 'colour' }));
  });
});
