import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa, { type Context } from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { crud, resource, type CrudOptions } from '../../lib/index.js';
import { planRoutes } from '../../lib/core.js';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { groupRoutes } from '../../lib/core/route-groups.js';
import { compilePath } from '../../lib/core/route-path.js';
import { success } from '../../lib/core/jsend.js';
import { cannotStartWith, literalHead, withLiteralHead, type Layer } from '../../lib/koa/literal-head.js';
import { indexLayer, indexRouter } from '../../lib/koa/layer-index.js';
import { unsafeRouteHandler, type CrudTarget } from '../../lib/koa/route-handler.js';
import { routeMiddleware } from '../../lib/koa/route-middleware.js';
import type { Reply } from '../../lib/types.js';
import { serve, type TestServer } from '../support/http.js';

class EchoController {
  constructor(readonly ctx: Context) {}
  private echo(method: string): Reply {
    return success({ method, id: (this.ctx as Context & { params: Record<string, string> }).params['id'] ?? null, route: (this.ctx as Context & { _matchedRoute?: string })._matchedRoute });
  }
  search() { return this.echo('search'); }
  options() { return this.echo('options'); }
  create() { return this.echo('create'); }
  exportCsv() { return this.echo('exportCsv'); }
  read() { return this.echo('read'); }
  update() { return this.echo('update'); }
  delete() { return this.echo('delete'); }
  softDelete() { return this.echo('softDelete'); }
  restore() { return this.echo('restore'); }
}

/** `crud` as it registered routes before: one layer per planned route, in plan order. */
function crudOneLayerPerRoute(router: Router, uri: string, target: CrudTarget, options: CrudOptions = {}): void {
  const plan = planRoutes(target, { ...options, uri });
  const handler = unsafeRouteHandler(target, DEFAULT_CONFIG, [], [...new Set(plan.map((def) => def.method))], uri);
  for (const def of plan) {
    const { path, uuidParams } = compilePath(def.path);
    router[def.verb](path, routeMiddleware(def, { handler, config: DEFAULT_CONFIG, can: options.can, uuidParams }));
  }
}

const id = randomUUID();
const can = (_ctx: Context, ability: string) => ability !== 'shop.access.delete';
const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Thing = sequelize.define('MrThing', { id: { type: DataTypes.UUID, primaryKey: true }, name: DataTypes.STRING }, { tableName: 'mr_things' });
const things = resource(Thing, { policy: { fillable: 'all' } });

/**
 * The app of routes.spec.ts: a guarded resource, a resource with a route of the app after it on the
 * same path, and `filler` other resources around them (both forms, some with `only`/`except`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the app of a router, whatever its context type
function app(register: typeof crudOneLayerPerRoute, filler: number): Koa<any, any> {
  const router = new Router({ prefix: '/api' });
  const fill = (from: number, to: number) => {
    for (let index = from; index < to; index += 1) {
      const options: CrudOptions = index % 3 === 0 ? { only: ['read', 'options'] } : index % 3 === 1 ? { except: ['update'] } : {};
      register(router, `module${index % 7}/thing${index}`, index % 2 === 0 ? things : EchoController, options);
    }
  };
  router.get('/reports/:name', (ctx) => {
    ctx.body = { report: ctx.params['name'] };
  });
  fill(0, filler / 2);
  register(router, 'admin/products', EchoController, { moduleName: 'shop', can });
  register(router, 'partial', EchoController, { only: ['read'] });
  router.get('/partial/:slug', (ctx) => {
    ctx.body = { slug: ctx.params['slug'], route: ctx._matchedRoute };
  });
  fill(filler / 2, filler);
  register(router, 'module3/thing3/summary', EchoController, { only: ['search'] });
  return new Koa().use(router.routes()).use(router.allowedMethods());
}

const SAMPLE: [string, string][] = [
  ['GET', '/api/admin/products'],
  ['HEAD', '/api/admin/products'],
  ['POST', '/api/admin/products'],
  ['GET', '/api/admin/products/options'],
  ['GET', '/api/admin/products/export-csv'],
  ['GET', `/api/admin/products/${id}`],
  ['PUT', `/api/admin/products/${id}`],
  ['PATCH', `/api/admin/products/${id}`],
  ['POST', `/api/admin/products/${id}`],
  ['DELETE', `/api/admin/products/${id}`],
  ['DELETE', `/api/admin/products/${id}/soft`],
  ['PATCH', `/api/admin/products/${id}/restore`],
  ['PUT', `/api/admin/products/${id}/restore`],
  ['GET', `/API/Admin/PRODUCTS/${id.toUpperCase()}`],
  ['GET', '/api/admin/products/'],
  ['PATCH', '/api/admin/products'],
  ['DELETE', '/api/admin/products/options'],
  ['PUT', `/api/admin/products/${id}/soft`],
  ['OPTIONS', '/api/admin/products'],
  ['OPTIONS', `/api/admin/products/${id}`],
  ['PURGE', '/api/admin/products'],
  ['GET', '/api/admin/products/not-a-uuid'],
  ['PATCH', '/api/admin/products/1/restore'],
  ['GET', '/api/admin/products/x/y/z'],
  ['GET', '/api/partial/spring-sale'],
  ['GET', `/api/partial/${id}`],
  ['PUT', `/api/partial/${id}`],
  ['GET', '/api/partial'],
  ['GET', '/api/module3/thing3/summary'],
  ['GET', '/api/module3/thing3/options'],
  ['POST', '/api/module3/thing3/summary'],
  ['GET', `/api/module4/thing4/${id}`],
  ['PUT', `/api/module4/thing4/${id}`],
  ['GET', '/api/module1/thing8/options'],
  ['GET', '/api/reports/monthly'],
  ['GET', '/api/nothing/here'],
  ['GET', '/elsewhere'],
];

describe('crud with 500 resources on one router', () => {
  let reference: TestServer;
  let referenceMany: TestServer;
  let one: TestServer;
  let many: TestServer;
  before(async () => {
    await Thing.sync();
    reference = await serve(app(crudOneLayerPerRoute, 0));
    referenceMany = await serve(app(crudOneLayerPerRoute, 500));
    one = await serve(app(crud, 0));
    many = await serve(app(crud, 500));
  });
  after(async () => {
    await Promise.all([reference.close(), referenceMany.close(), one.close(), many.close()]);
    await sequelize.close();
  });

  const seen = async (server: TestServer, method: string, path: string) => {
    const res = await server.request(method, path);
    return { status: res.status, allow: res.headers.get('allow'), text: res.text };
  };

  for (const [method, path] of SAMPLE) {
    it(`answers ${method} ${path.replace(id, ':id').replace(id.toUpperCase(), ':ID')} with 500 resources as with 1, and as one layer per route did`, async () => {
      const expected = await seen(referenceMany, method, path);
      assert.deepEqual(await seen(many, method, path), expected);
      // The filler resources exist only in the apps with 500; every other path answers alike in all four.
      if (!/module\d/.test(path)) {
        assert.deepEqual(await seen(reference, method, path), expected);
        assert.deepEqual(await seen(one, method, path), expected);
      }
    });
  }

  it('returns the statuses, Allow headers and matched routes the reference gives', async () => {
    const get = (method: string, path: string) => seen(many, method, path);
    assert.deepEqual(await get('PATCH', '/api/admin/products'), { status: 405, allow: 'HEAD, GET, POST', text: 'Method Not Allowed' });
    assert.deepEqual((await get('OPTIONS', `/api/admin/products/${id}`)).allow, 'HEAD, GET, PUT, PATCH, POST, DELETE');
    assert.equal((await get('PURGE', '/api/admin/products')).status, 501);
    assert.equal((await get('DELETE', `/api/admin/products/${id}`)).status, 403);
    assert.equal((await get('GET', '/api/admin/products/not-a-uuid')).status, 404);
    assert.deepEqual(JSON.parse((await get('GET', '/api/partial/spring-sale')).text), { slug: 'spring-sale', route: '/api/partial/:slug' });
    assert.deepEqual(JSON.parse((await get('GET', `/api/partial/${id}`)).text).data, { method: 'read', id, route: '/api/partial/:id' });
    assert.deepEqual(JSON.parse((await get('GET', '/api/admin/products/options')).text).data.route, '/api/admin/products/options');
  });
});

describe('router layers per resource', () => {
  const layers = (router: Router) => router.stack.map((layer) => `${layer.methods.join(',')} ${layer.path}`);

  it('registers one layer per distinct path: 6 for a full resource, with each path\'s verbs', () => {
    const router = new Router({ prefix: '/api' });
    crud(router, 'products', EchoController);
    assert.equal(router.stack.length, 6);
    assert.deepEqual(layers(router), [
      'HEAD,GET,POST /api/products',
      'HEAD,GET /api/products/options',
      'HEAD,GET /api/products/export-csv',
      'HEAD,GET,PUT,PATCH,POST,DELETE /api/products/:id',
      'DELETE /api/products/:id/soft',
      'PATCH,PUT /api/products/:id/restore',
    ]);
  });

  it('registers 6 layers per resource for 500 resources, and fewer when only and except leave fewer paths', () => {
    const router = new Router();
    for (let index = 0; index < 500; index += 1) crud(router, `r${index}`, EchoController);
    assert.equal(router.stack.length, 3000);
    const partial = new Router();
    crud(partial, 'a', EchoController, { only: ['update', 'read'] });
    crud(partial, 'b', EchoController, { except: ['restore', 'softDelete', 'exportCsv'] });
    assert.deepEqual(layers(partial), ['HEAD,GET,PUT,PATCH,POST,DELETE /a/:id'.replace(',DELETE', ''), 'HEAD,GET,POST /b', 'HEAD,GET /b/options', 'HEAD,GET,PUT,PATCH,POST,DELETE /b/:id']);
  });

  it('registers layers whose verbs together are the plan\'s, path by path, in plan order', () => {
    fc.assert(
      fc.property(fc.subarray(['search', 'options', 'create', 'exportCsv', 'read', 'update', 'delete', 'softDelete', 'restore'] as const), (only) => {
        const router = new Router();
        const plan = crud(router, 'p', EchoController, { only: only.length > 0 ? [...only] : ['search'] });
        const groups = groupRoutes(plan);
        assert.equal(router.stack.length, groups.length);
        assert.deepEqual(
          router.stack.map((layer) => [layer.path, layer.methods.filter((m) => m !== 'HEAD')]),
          groups.map((group) => [compilePath(group.path).path, group.verbs.map((verb) => verb.toUpperCase())]),
        );
      }),
    );
  });
});

describe('router.param with grouped layers', () => {
  it('runs param middleware for :id of crud routes, once per request, as with one layer per route', async () => {
    const seen: string[] = [];
    const router = new Router();
    router.param('id', (value, _ctx, next) => (seen.push(value), next()));
    crud(router, 'products', EchoController);
    crud(router, 'later', EchoController, { only: ['read', 'restore'] });
    const server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()));
    try {
      assert.equal((await server.request('PATCH', `/products/${id}`)).body.data.method, 'update');
      assert.equal((await server.request('PUT', `/later/${id}/restore`)).body.data.method, 'restore');
      assert.deepEqual(seen, [id, id]);
    } finally {
      await server.close();
    }
  });
});

describe('literalHead and withLiteralHead', () => {
  it('returns the lower-cased literal start of a path for a path with parameters', () => {
    assert.equal(literalHead('/api/Admin/Products/:id/restore'), '/api/admin/products/');
    assert.equal(literalHead('/files{/*rest}'), '/files');
    assert.equal(literalHead('/caf%C3%A9/:id'), '/caf');
  });

  it('returns true from cannotStartWith only for paths that differ from the head beyond ASCII case', () => {
    assert.equal(cannotStartWith('/API/Products/1', '/api/products'), false);
    assert.equal(cannotStartWith('/api/product', '/api/products'), true);
    assert.equal(cannotStartWith('/api/orders/1', '/api/products'), true);
  });

  const segment = fc.stringMatching(/^[a-cA-C0-9._~-]{1,4}$/);
  const pathArb = fc.array(fc.oneof(segment, segment, fc.constant(':id'), fc.constant('x%20y'), fc.constant('É')), { minLength: 0, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
  const requestArb = fc.array(fc.oneof(segment, fc.constant('x%20y'), fc.constant('É'), fc.constant('é'), fc.constant('')), { minLength: 0, maxLength: 5 }).map((parts) => `/${parts.join('/')}`);

  it('matches exactly the request paths the layer regexp matches, under any prefix, case sensitivity and trailing slash rule', () => {
    fc.assert(
      fc.property(pathArb, fc.option(pathArb, { nil: undefined }), fc.boolean(), fc.boolean(), fc.array(requestArb, { maxLength: 8 }), (path, prefix, sensitive, strict, requests) => {
        const router = new Router({ prefix: prefix === '/' ? undefined : prefix, sensitive, strict });
        const layer = router.register(path, ['get'], () => {}) as Layer;
        const regexp = layer.regexp;
        withLiteralHead(layer);
        for (const request of [...requests, layer.path as string, (layer.path as string).toUpperCase(), `${layer.path as string}/`]) {
          assert.equal(layer.match(request), regexp.test(request), `${layer.path as string} against ${request}`);
        }
      }),
    );
  });

  it('follows a prefix set after registration and a router nested under a path', () => {
    const inner = new Router();
    const layer = withLiteralHead(inner.register('/products/:id', ['get'], () => {}) as Layer);
    assert.equal(layer.match('/products/1'), true);
    inner.prefix('/v2');
    assert.equal(layer.match('/products/1'), false);
    assert.equal(layer.match('/V2/products/1'), true);
    const outer = new Router();
    outer.use('/api', inner.routes());
    const nested = outer.stack[0]!;
    assert.equal(nested.match('/api/v2/products/1'), true);
    assert.equal(nested.match('/v2/products/1'), false);
    assert.equal(layer.match('/v2/products/1'), true);
  });
});

describe('indexRouter', () => {
  const segment = fc.stringMatching(/^[a-cA-C0-9._~^-]{1,3}$/);
  const pathArb = fc.array(fc.oneof(segment, segment, fc.constant(':id'), fc.constant('É')), { minLength: 0, maxLength: 3 }).map((parts) => `/${parts.join('/')}`);
  const requestArb = fc.array(fc.oneof(segment, fc.constant('É'), fc.constant('é'), fc.constant('')), { minLength: 0, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
  /** A layer as crud adds it (indexed), a route of the app's own, or path-less middleware. */
  const layerArb = fc.record({ kind: fc.constantFrom('crud', 'crud', 'route', 'middleware'), path: pathArb, verbs: fc.subarray(['get', 'post', 'patch'], { minLength: 1 }) });
  type Spec = { kind: string; path: string; verbs: string[] };
  const add = (router: Router, { kind, path, verbs }: Spec) => {
    if (kind === 'middleware') router.use(async (_ctx, next) => next());
    else if (kind === 'route') router.register(path, verbs, () => {});
    else indexLayer(withLiteralHead(router.register(path, verbs, () => {}) as Layer));
  };
  const same = (router: Router, request: string, method: string) => {
    const indexed = router.match(request, method);
    const plain = Router.prototype.match.call(router, request, method);
    assert.deepEqual(indexed.path.map((layer) => router.stack.indexOf(layer)), plain.path.map((layer) => router.stack.indexOf(layer)), `${method} ${request}`);
    assert.deepEqual(indexed.pathAndMethod.map((layer) => router.stack.indexOf(layer)), plain.pathAndMethod.map((layer) => router.stack.indexOf(layer)), `${method} ${request}`);
    assert.equal(indexed.route, plain.route, `${method} ${request}`);
  };

  it("gives @koa/router's own match result for every path, before and after routes are added and a prefix is set (law)", () => {
    fc.assert(
      fc.property(
        fc.array(layerArb, { maxLength: 12 }), fc.array(layerArb, { maxLength: 3 }), fc.option(pathArb, { nil: undefined }), fc.boolean(), fc.boolean(),
        fc.array(fc.tuple(requestArb, fc.constantFrom('GET', 'POST', 'HEAD', 'DELETE')), { maxLength: 8 }),
        (layers, later, prefix, sensitive, strict, requests) => {
          const router = new Router({ sensitive, strict });
          for (const layer of layers) add(router, layer);
          indexRouter(router);
          const paths = (extra: string[]) => [...requests, ...extra.flatMap((path) => [[path, 'GET'], [path.toUpperCase(), 'POST'], [`${path}/`, 'GET']] as [string, string][])];
          for (const [request, method] of paths(router.stack.map((layer) => String(layer.path)))) same(router, request, method);
          for (const layer of later) add(router, layer);
          if (prefix !== undefined && prefix !== '/') router.prefix(prefix);
          for (const [request, method] of paths(router.stack.map((layer) => String(layer.path)))) same(router, request, method);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves a router nested under another matching as before', () => {
    const inner = new Router();
    indexLayer(withLiteralHead(inner.register('/products/:id', ['get'], () => {}) as Layer));
    indexRouter(inner);
    const outer = new Router();
    outer.use('/api', inner.routes());
    assert.equal(outer.match('/api/products/1', 'GET').route, true);
    assert.equal(inner.match('/products/1', 'GET').route, true);
    assert.equal(inner.match('/api/products/1', 'GET').route, false);
  });
});
