/**
 * docs/guide/field-policy.md agrees with the code: its property table names exactly the policy
 * properties of BaseController with their defaults, and its example (docs/examples/field-policy.ts)
 * does what the page says it does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { Sequelize } from 'sequelize';
import { BaseController, DEFAULT_CONFIG, crud, openApiDocument, openApiResource } from '../../lib/index.js';
import { resolvePolicy } from '../../lib/core.js';
import { Customer, CustomerController, app, sequelize } from '../../docs/examples/field-policy.js';
import { defineDemoModels } from '../../docs/examples/demo/models.js';
import { serve, type TestServer } from '../support/http.js';
import { tableUnder } from '../support/markdown.js';

const PAGE = readFileSync('docs/guide/field-policy.md', 'utf8');
const PROPERTIES = ['hidden', 'fillable', 'sortable', 'filterable', 'termFields', 'termKey'] as const;

describe('docs/guide/field-policy.md', () => {
  class Probe extends BaseController {
    modelClassName() {
      return Customer;
    }
  }
  const defaults = new Probe({} as Context) as unknown as Record<string, unknown>;

  it('lists exactly the policy properties, with the defaults BaseController has', () => {
    const rows = tableUnder(PAGE, 'The properties');
    assert.deepEqual(rows.map(([name]) => name), PROPERTIES.map((p) => `\`${p}\``));
    for (const [name, stated] of rows.map(([name, stated]) => [name!.replaceAll('`', ''), stated!] as const)) {
      const actual = defaults[name];
      if (actual === undefined) assert.match(stated, /^`undefined`: /, `${name}: the page should say undefined`);
      else assert.ok(stated.startsWith(`\`${JSON.stringify(actual).replaceAll('"', "'")}\``), `${name}: ${stated} vs ${JSON.stringify(actual)}`);
    }
  });

  it('states the defaults of fillable, sortable and filterable as resolvePolicy computes them', () => {
    const { Product } = defineDemoModels(new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false }));
    const product = resolvePolicy(Product, {}, DEFAULT_CONFIG);
    // Not the primary key, the timestamps, nor the deleted-at column.
    assert.deepEqual([...product.fillable].sort(), ['categoryId', 'name', 'price', 'sku']);
    const customer = resolvePolicy(Customer, { hidden: ['passwordHash'] }, DEFAULT_CONFIG);
    assert.ok(!customer.sortable.has('preferences'), 'JSON is never sortable');
    assert.ok(!customer.sortable.has('passwordHash') && !customer.filterable.has('passwordHash'));
    assert.ok(customer.filterable.has('preferences'));
    // Declared lists: hidden and JSON attributes are still left out; unknown names are dropped; fillable is as declared.
    const declared = resolvePolicy(Customer, { hidden: ['passwordHash'], sortable: ['passwordHash', 'preferences', 'nmae', 'name'], fillable: ['id', 'passwordHash', 'nmae'] }, DEFAULT_CONFIG);
    assert.deepEqual([...declared.sortable], ['name']);
    assert.deepEqual([...declared.fillable], ['id', 'passwordHash']);
  });

  it('includes its example and its generated exchanges', () => {
    assert.ok(PAGE.includes('<<< @/examples/field-policy.ts#controller'));
    assert.ok(PAGE.includes('<<< @/examples/field-policy.ts#resource'));
    assert.ok(PAGE.includes('<!--@include: ../generated/field-policy.md-->'));
  });
});

describe('docs/examples/field-policy.ts', () => {
  let server: TestServer;
  const staff: RequestInit = { headers: { 'x-staff': 'yes' } };
  const post = (body: unknown, init: RequestInit = {}) =>
    server.request('POST', '/customers', { headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) }, body: JSON.stringify(body) });

  before(async () => {
    await sequelize.sync({ force: true });
    await Customer.bulkCreate([
      { email: 'ada@example.com', name: 'Ada Lovelace', tier: 'gold', creditLimit: 500, passwordHash: 'h1', preferences: { newsletter: true } },
      { email: 'grace@example.com', name: 'Grace Hopper', tier: 'standard', passwordHash: 'h2' },
    ]);
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  it('hides passwordHash from everyone and creditLimit from callers who are not staff', async () => {
    const rows = (await server.get('/customers')).body.data as Record<string, unknown>[];
    assert.equal(rows.length, 2);
    for (const row of rows) assert.ok(!('passwordHash' in row) && !('creditLimit' in row) && 'email' in row);
    const staffRows = (await server.request('GET', '/customers', staff)).body.data as Record<string, unknown>[];
    for (const row of staffRows) assert.ok(!('passwordHash' in row) && 'creditLimit' in row);
  });

  it('sorts by created_at or createdAt, not by email', async () => {
    assert.equal((await server.get('/customers?sort=-created_at')).status, 200);
    assert.equal((await server.get('/customers?sort=-createdAt')).status, 200);
    const email = await server.get('/customers?sort=email');
    assert.equal(email.status, 400);
    assert.deepEqual(email.body.data.map((f: { field: string; error: string }) => [f.field, f.error]), [['email', 'columnNotFound']]);
  });

  it('filters by tier and term-searches with filter[q]; creditLimit, passwordHash and term are refused', async () => {
    const gold = await server.get('/customers?filter[tier]=gold&filter[q]=ADA');
    assert.deepEqual(gold.body.data.map((c: { name: string }) => c.name), ['Ada Lovelace']);
    for (const query of ['filter[creditLimit][gt]=0', 'filter[passwordHash][nn]=1', 'filter[term]=ada']) {
      const res = await server.request('GET', `/customers?${query}`, staff);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.data[0].error, 'columnNotFound', query);
    }
  });

  it('never uses passwordHash as an options label; creditLimit only for staff', async () => {
    assert.equal((await server.get('/customers/options?label=passwordHash')).status, 400);
    assert.equal((await server.get('/customers/options?label=creditLimit')).status, 400);
    assert.equal((await server.request('GET', '/customers/options?label=creditLimit', staff)).status, 200);
    assert.equal((await server.get('/customers/options?label=name&value=email')).status, 200);
  });

  it('drops tier and creditLimit from the bodies of callers who are not staff', async () => {
    const body = { email: 'alan@example.com', name: 'Alan Turing', tier: 'gold', creditLimit: 1000, passwordHash: 'x' };
    const created = await post(body);
    assert.equal(created.status, 201, created.text);
    const row = await Customer.findByPk(created.body.data.id as string);
    assert.deepEqual([row!.get('tier'), Number(row!.get('creditLimit')), row!.get('passwordHash')], ['standard', 0, null]);
    const byStaff = await post({ ...body, email: 'alan2@example.com' }, staff);
    const staffRow = await Customer.findByPk(byStaff.body.data.id as string);
    assert.deepEqual([staffRow!.get('tier'), Number(staffRow!.get('creditLimit'))], ['gold', 1000]);
  });

  it('serves the resource form of the policy at public/customers as it serves callers who are not staff', async () => {
    const rows = (await server.get('/public/customers?filter[q]=ada&sort=-createdAt')).body.data as Record<string, unknown>[];
    assert.deepEqual(rows.map((row) => row['name']), ['Ada Lovelace']);
    assert.ok(!('passwordHash' in rows[0]!) && !('creditLimit' in rows[0]!));
    assert.equal((await server.get('/public/customers?sort=email')).status, 400);
    const created = await server.request('POST', '/public/customers', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'edsger@example.com', name: 'Edsger Dijkstra', tier: 'gold' }),
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await Customer.findByPk(created.body.data.id as string))!.get('tier'), 'standard');
  });

  it('exports every visible attribute as CSV', async () => {
    const csv = await server.get('/customers/export-csv?sort=name');
    assert.equal(csv.text.split('\n')[0], 'id,email,name,tier,preferences,deletedAt,createdAt,updatedAt');
  });

  it('leaves a hidden attribute out of the export even when csvColumns names it', async () => {
    class Leaky extends CustomerController {
      override csvColumns = { email: 'Email', passwordHash: 'Hash' };
    }
    const router = new Router();
    crud(router, 'leaky', Leaky);
    const leaky = await serve(new Koa().use(router.routes()));
    try {
      const csv = await leaky.get('/leaky/export-csv?sort=name');
      assert.deepEqual(csv.text.split('\n').slice(0, 2), ['Email', 'ada@example.com']);
    } finally {
      await leaky.close();
    }
  });

  it('describes, in OpenAPI, the policy of a caller with nothing on ctx.state', () => {
    const resource = openApiResource('customers', CustomerController);
    const document = openApiDocument({ info: { title: 't', version: '1' }, resources: [resource] }) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    };
    const { Customer: record, CustomerInput: input } = document.components.schemas;
    assert.ok(!('passwordHash' in record!.properties) && !('creditLimit' in record!.properties));
    assert.deepEqual(Object.keys(input!.properties).sort(), ['email', 'name', 'preferences']);
    assert.deepEqual(input!.required, ['email', 'name']);
  });
});
