/**
 * docs/guide/routes.md agrees with the code: its route table is ROUTE_TABLE, its examples
 * (docs/examples/permissions.ts, docs/examples/route-filters.ts) run, and what it says about route
 * order, uuid matching and `can` holds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { CrudController, crud } from '../../lib/index.js';
import { ROUTE_TABLE, type RouteEntry } from '../../lib/core.js';
import { Category, Product, sequelize } from '../../docs/examples/controllers/shop.js';
import { app as permissionsApp } from '../../docs/examples/permissions.js';
import { seedDemo, stableId } from '../../docs/examples/demo/seed.js';
import { serve, type TestServer } from '../support/http.js';
import { tableUnder } from '../support/markdown.js';

const PAGE = readFileSync('docs/guide/routes.md', 'utf8');

describe('docs/guide/routes.md', () => {
  it('shows the route table as ROUTE_TABLE has it: every route, in order, with its verb, path, action, permission and ability', () => {
    const rows = tableUnder(PAGE, 'The route table').map((row) => row.map((cell) => cell.replaceAll('`', '')));
    const expected = ROUTE_TABLE.map((entry: RouteEntry, index) => [
      String(index + 1),
      entry.verb.toUpperCase(),
      `<uri>${entry.suffix}`,
      entry.method,
      entry.permission ?? 'none',
      entry.permission === null ? 'none' : `shop.access.${entry.permission}`,
    ]);
    assert.deepEqual(rows, expected);
  });

  it('includes its generated examples and its example files', () => {
    for (const include of ['<!--@include: ../generated/routes-matching.md-->', '<!--@include: ../generated/routes-permissions.md-->']) {
      assert.ok(PAGE.includes(include), include);
    }
    for (const snippet of ['<<< @/examples/route-filters.ts#filters', '<<< @/examples/permissions.ts#can', '<<< @/examples/permissions.ts#app']) {
      assert.ok(PAGE.includes(snippet), snippet);
    }
  });

  it('docs/examples/route-filters.ts holds', async () => {
    await import('../../docs/examples/route-filters.js');
  });
});

describe('docs/examples/permissions.ts', () => {
  let server: TestServer;
  const pan = stableId('product:KT-001');
  const books = stableId('category:Books');
  const as = (token: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
  const json = (body: unknown): RequestInit => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  before(async () => {
    await seedDemo({ Category, Product });
    server = await serve(permissionsApp);
  });
  after(async () => {
    await server.close();
  });

  it('asks an anonymous caller to sign in (401), but serves it options', async () => {
    const res = await server.get('/api/products');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body.data, [{ field: null, error: 'unauthorized', message: 'Sign in first' }]);
    assert.equal((await server.get('/api/categories/options?label=name')).status, 200);
  });

  it('lets a viewer search and read, and nothing more', async () => {
    assert.equal((await server.request('GET', '/api/products', as('viewer-token'))).status, 200);
    assert.equal((await server.request('GET', `/api/products/${pan}`, as('viewer-token'))).status, 200);
    const denied = await server.request('PATCH', `/api/products/${pan}`, as('viewer-token', json({ name: 'Pan' })));
    assert.equal(denied.status, 403);
    assert.equal(denied.body.data[0].message, 'This action needs the ability shop.access.update');
  });

  it('lets a clerk create, with the app-wide validation status of 422', async () => {
    const created = await server.request('POST', '/api/products', as('clerk-token', json({ sku: 'PM-001', name: 'Pepper Mill', price: 25, categoryId: books })));
    assert.equal(created.status, 201, created.text);
    const invalid = await server.request('POST', '/api/products', as('clerk-token', json({ price: 'cheap' })));
    assert.equal(invalid.status, 422);
    assert.equal((await server.request('DELETE', `/api/products/${created.body.data.id}/soft`, as('clerk-token'))).status, 403);
  });

  it('lets a manager soft-delete a category, but registers no DELETE for categories', async () => {
    assert.equal((await server.request('DELETE', `/api/categories/${books}`, as('manager-token'))).status, 405);
    assert.equal((await server.request('DELETE', `/api/categories/${books}/soft`, as('manager-token'))).status, 200);
  });
});

describe('what routes.md says about matching and order', () => {
  let server: TestServer;
  const pan = stableId('product:KT-001');

  before(async () => {
    class ProductController extends CrudController {
      override fillable = 'all' as const;
      modelClassName() {
        return Product;
      }
    }
    const loose = { config: { global: { find_field_is_uuid: false } } } as const;
    const router = new Router();
    const summary = (name: string) => (ctx: Koa.Context) => {
      ctx.body = name;
    };
    crud(router, 'strict', ProductController);
    router.get('/strict/summary', summary('strict summary'));
    crud(router, 'loose', ProductController, loose);
    router.get('/loose/summary', summary('loose summary'));
    router.get('/first/summary', summary('first summary'));
    crud(router, 'first', ProductController, loose);
    router.get('/strict/:slug', summary('by slug'));
    crud(router, 'many/segments/', ProductController);
    server = await serve(new Koa().use(router.routes()));
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  it('with UUID matching, a route registered after crud still gets its requests', async () => {
    assert.equal((await server.get('/strict/summary')).text, 'strict summary');
  });

  it('with find_field_is_uuid false, read takes them (404 recordNotFound) unless they were registered first', async () => {
    const taken = await server.get('/loose/summary');
    assert.equal(taken.status, 404);
    assert.equal(taken.body.data[0].error, 'recordNotFound');
    assert.equal((await server.get('/first/summary')).text, 'first summary');
  });

  it('options and export-csv answer before the {id} routes, even when {id} matches anything', async () => {
    const options = await server.get('/loose/options?label=name');
    assert.equal(options.status, 200);
    assert.equal((await server.get('/loose/export-csv')).headers.get('content-type'), 'text/csv; charset=utf-8');
  });

  it('an {id} that is not a UUID passes the request on to the next matching route', async () => {
    assert.equal((await server.get('/strict/not-a-uuid')).text, 'by slug');
    const unmatched = await server.get('/many/segments/not-a-uuid');
    assert.equal(unmatched.status, 404);
    assert.equal(unmatched.text, 'Not Found');
    assert.equal((await server.get(`/strict/${pan.toUpperCase()}`)).status, 200);
  });

  it('takes a uri of several segments, with or without slashes', async () => {
    assert.equal((await server.get(`/many/segments/${pan}`)).status, 200);
  });

  it('throws at registration for a moduleName without can', () => {
    assert.throws(() => crud(new Router(), 'x', CrudController as never, { moduleName: 'shop' }), TypeError);
  });
});
