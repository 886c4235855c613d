/**
 * docs/guide/controllers.md agrees with the code: its mixin table, its hook tables (every hook, in
 * each action's order, with its parameters), its diagrams, and its examples
 * (docs/examples/controllers/), which run here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import * as library from '../../lib/index.js';
import type { Model } from 'sequelize';
import { BaseController, CrudController, ExportCsv, crud, type ResourceHooks } from '../../lib/index.js';
import { ROUTE_TABLE, planRoutes } from '../../lib/core.js';
import { plan as catalogPlan, router as catalogRouter } from '../../docs/examples/controllers/catalog.js';
import { AuditEntry, ProductController } from '../../docs/examples/controllers/audited-products.js';
import { Category, Product, sequelize } from '../../docs/examples/controllers/shop.js';
import { seedDemo, stableId } from '../../docs/examples/demo/seed.js';
import { LIFECYCLES, hooksOf, type ActionName } from '../../docs/examples/lifecycle.js';
import { serve, type TestServer } from '../support/http.js';

const PAGE = readFileSync('docs/guide/controllers.md', 'utf8');
const ACTIONS = Object.keys(LIFECYCLES) as ActionName[];
const prototypeOf = CrudController.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;

/** ResourceHooks' keys: the compiler refuses this object when a hook is added to or removed from the interface. */
const RESOURCE_HOOKS: { readonly [K in keyof Required<ResourceHooks<Model>>]: true } = {
  modifyFilters: true, modifySearchQuery: true, afterSearch: true, modifyOptionsQuery: true, afterOptions: true,
  beforeCreateFill: true, beforeCreate: true, afterCreate: true, modifyExportCsvQuery: true, modifyReadQuery: true,
  afterRead: true, beforeUpdateFill: true, modifyUpdateQuery: true, beforeUpdate: true, afterUpdate: true,
  modifyDeleteQuery: true, beforeDelete: true, afterDelete: true, modifySoftDeleteQuery: true, beforeSoftDelete: true,
  softDeleteUserId: true, afterSoftDelete: true, modifyRestoreQuery: true, beforeRestore: true, afterRestore: true,
};

/** The table rows (cells) of a Markdown fragment, header row left out. */
function rows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) => line.slice(1, -1).split('|').map((cell) => cell.trim()));
}

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `no heading ${heading}`);
  const level = heading.split(' ')[0]!;
  const rest = markdown.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return next < 0 ? rest : rest.slice(0, next);
}

/** `name(a: A, b: B)` → ['name', 2]: parameters are the `word:` at the top level of the list. */
function signature(code: string): [string, number] {
  const match = /^(\w+)\((.*)\)$/.exec(code);
  assert.ok(match, `not a call: ${code}`);
  return [match[1]!, [...match[2]!.matchAll(/(?:^|, )(\w+)\??:/g)].length];
}

describe('docs/guide/controllers.md', () => {
  it('has a diagram and a hook table for every action, listing its hooks in the diagram’s order with their parameters', () => {
    const lifecycle = section(PAGE, '## The lifecycle of each action');
    for (const action of ACTIONS) {
      const part = section(lifecycle, `### ${action}`);
      assert.ok(part.includes(`<Lifecycle action="${action}" />`), `${action}: no diagram`);
      const listed = rows(part).map(([hook]) => signature(hook!.replaceAll('`', '')));
      assert.deepEqual(listed.map(([name]) => name), hooksOf(action), `${action}: hooks`);
      for (const [name, count] of listed) assert.equal(count, prototypeOf[name]!.length, `${name}: parameters`);
    }
  });

  it('lists, across its hook tables, exactly the hooks of ResourceHooks, each a method of the class form', () => {
    const lifecycle = section(PAGE, '## The lifecycle of each action');
    const listed = new Set(ACTIONS.flatMap((action) => rows(section(lifecycle, `### ${action}`)).map(([hook]) => signature(hook!.replaceAll('`', ''))[0])));
    assert.deepEqual([...listed].sort(), Object.keys(RESOURCE_HOOKS).sort());
    for (const name of Object.keys(RESOURCE_HOOKS)) assert.equal(typeof prototypeOf[name], 'function', `${name} is not a method of CrudController`);
  });

  it('names no hook the code lacks', () => {
    for (const [, name] of PAGE.matchAll(/`((?:before|after|modify)\w*)\(/g)) {
      assert.equal(typeof prototypeOf[name!], 'function', `${name} is not a method of CrudController`);
    }
  });

  it('lists every mixin with the method it adds and the routes that method serves', () => {
    const table = rows(section(PAGE, '## `CrudController` or `BaseController`'));
    assert.equal(table.length, 9);
    for (const [mixinCell, methodCell, routesCell] of table) {
      const mixin = /\[`(\w+)`\]/.exec(mixinCell!)![1]!;
      const method = methodCell!.replaceAll('`', '');
      const Mixin = (library as unknown as Record<string, (base: typeof BaseController) => { prototype: object }>)[mixin]!;
      assert.equal(typeof Mixin, 'function', `${mixin} is exported`);
      assert.equal(typeof (Mixin(BaseController).prototype as Record<string, unknown>)[method], 'function', `${mixin} adds ${method}`);
      for (const entry of ROUTE_TABLE.filter((e) => e.method === method)) {
        assert.ok(routesCell!.includes(entry.verb.toUpperCase()), `${method}: ${entry.verb}`);
        assert.ok(routesCell!.includes(`<uri>${entry.suffix.replace(':uuid', '')}`), `${method}: ${entry.suffix}`);
      }
    }
  });

  it('composes CrudController as it says: Restore outermost, Search innermost', () => {
    const composed = /`(Restore\(.*\))`/.exec(PAGE)![1]!;
    const order = [...composed.matchAll(/(\w+)\(/g)].map(([, name]) => name);
    const chain: string[] = [];
    for (let proto: object = CrudController.prototype; proto !== BaseController.prototype; proto = Object.getPrototypeOf(proto) as object) {
      const action = Object.getOwnPropertyNames(proto).find((name) => ROUTE_TABLE.some((e) => e.method === name));
      if (action !== undefined) chain.push(action);
    }
    assert.deepEqual(order, ['Restore', 'SoftDelete', 'Delete', 'Update', 'Read', 'ExportCsv', 'Create', 'Options', 'Search']);
    assert.deepEqual(chain, ['restore', 'softDelete', 'delete', 'update', 'read', 'exportCsv', 'create', 'options', 'search']);
  });

  it('is right that crud finds a hand-written action by its name', () => {
    class Hand extends BaseController {
      modelClassName() {
        return Product;
      }
      async search() {
        return this.answerSuccess([]);
      }
    }
    assert.deepEqual(planRoutes(Hand, { uri: 'hand' }).map((r) => r.method), ['search']);
  });

  it('includes its examples', () => {
    assert.ok(PAGE.includes('<<< @/examples/controllers/catalog.ts#catalog'));
    assert.ok(PAGE.includes('<<< @/examples/controllers/audited-products.ts#controller'));
    assert.ok(PAGE.includes('<<< @/examples/resource-hooks.ts'));
    assert.ok(PAGE.includes('<<< @/examples/typed-controller.ts'));
  });
});

describe('docs/examples/controllers/', () => {
  let server: TestServer;
  const books = stableId('category:Books');

  before(async () => {
    await seedDemo({ Category, Product });
    const router = new Router();
    crud(router, 'products', ProductController);

    // What the page says about modifyFilters: exportCsv calls it without Search, and what it returns is checked.
    class ExportOnly extends ExportCsv(BaseController) {
      modelClassName() {
        return Product;
      }
      modifyFilters(filters: unknown) {
        return { ...(filters as object), sku: 'BK-001' };
      }
    }
    class AddsUnknown extends ProductController {
      override filterable = ['name'];
      override modifyFilters(filters: unknown) {
        return { ...(filters as object), sku: 'BK-001' };
      }
    }
    crud(router, 'export-only', ExportOnly);
    crud(router, 'adds-unknown', AddsUnknown);
    server = await serve(new Koa().use(catalogRouter.routes()).use(router.routes()));
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  it('catalog.ts registers search, options and read only', async () => {
    assert.deepEqual(catalogPlan.map((route) => `${route.verb} ${route.path}`), ['get products', 'get products/options', 'get products/{id:uuid}']);
    const found = await server.get('/public/products?filter[term]=bk&sort=sku');
    assert.deepEqual(found.body.data.map((p: { sku: string }) => p.sku), ['BK-001', 'BK-002']);
    assert.equal((await server.request('POST', '/public/products', { headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' })).status, 404);
  });

  it('audited-products.ts joins categories, upper-cases SKUs, refuses SKU changes and audits writes in their transaction', async () => {
    const json = (body: unknown): RequestInit => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const listed = await server.get('/products?filter[sku]=BK-001');
    assert.deepEqual(listed.body.data[0].category, { id: books, name: 'Books' });

    const created = await server.request('POST', '/products', json({ sku: 'bk-003', name: 'Refactoring', price: 47, categoryId: books }));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.sku, 'BK-003');
    const id = created.body.data.id as string;

    const refused = await server.request('PATCH', `/products/${id}`, json({ sku: 'BK-004', name: 'Refactoring, 2nd ed.' }));
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body.data, [{ field: null, error: 'conflict', message: 'A SKU cannot change' }]);
    assert.equal((await Product.findByPk(id))!.get('name'), 'Refactoring');

    assert.equal((await server.request('PATCH', `/products/${id}`, json({ name: 'Refactoring, 2nd ed.' }))).status, 200);
    assert.equal((await server.request('DELETE', `/products/${id}`)).status, 200);
    const audit = await AuditEntry.findAll({ where: { recordId: id }, order: [['id', 'ASC']] });
    assert.deepEqual(audit.map((entry) => entry.get('action')), ['create', 'update', 'delete']);
  });

  it('exportCsv calls modifyFilters on a controller without Search, and checks what it returns', async () => {
    const csv = await server.get('/export-only/export-csv');
    assert.equal(csv.text.trim().split('\n').length, 2, csv.text);
    const refused = await server.get('/adds-unknown?filter[name][like]=a');
    assert.equal(refused.status, 400);
    assert.equal(refused.body.data[0].field, 'sku');
  });
});
