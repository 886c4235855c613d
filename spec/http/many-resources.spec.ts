import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router, { type RouterContext } from '@koa/router';
import fc from 'fast-check';
import Koa, { type Context } from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { crud, resource, type CrudOptions } from '../../lib/index.js';
import { planRoutes } from '../../lib/core.js';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { compilePath } from '../../lib/core/route-path.js';
import { success } from '../../lib/core/jsend.js';
import { unsafeRouteHandler, type CrudTarget } from '../../lib/koa/route-handler.js';
import { routeMiddleware } from '../../lib/koa/route-middleware.js';
import type { Reply } from '../../lib/types.js';
import { serve, type TestServer } from '../support/http.js';

class EchoController {
  constructor(readonly ctx: Context) {}
  private echo(method: string): Reply {
    const ctx = this.ctx as RouterContext;
    return success({
      method,
      id: ctx.params['id'] ?? null,
      route: ctx._matchedRoute,
      params: ctx.params,
      routerPath: ctx.routerPath,
    });
  }
  search() {
    return this.echo('search');
  }
  options() {
    return this.echo('options');
  }
  create() {
    return this.echo('create');
  }
  exportCsv() {
    return this.echo('exportCsv');
  }
  read() {
    return this.echo('read');
  }
  update() {
    return this.echo('update');
  }
  delete() {
    return this.echo('delete');
  }
  softDelete() {
    return this.echo('softDelete');
  }
  restore() {
    return this.echo('restore');
  }
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
const Thing = sequelize.define(
  'MrThing',
  { id: { type: DataTypes.UUID, primaryKey: true }, name: DataTypes.STRING },
  { tableName: 'mr_things' },
);
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
      const options: CrudOptions =
        index % 3 === 0 ? { only: ['read', 'options'] } : index % 3 === 1 ? { except: ['update'] } : {};
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
  return new Koa().use(router.routes()).use(router.allowedMethods()).use(probe);
}

/**
 * The innermost middleware: for a request no route answered, what @koa/router left on the context
 * (the layers matched by path, with their methods; whether a route matched), as response headers.
 */
function probe(ctx: Context, next: () => Promise<unknown>) {
  const routed = ctx as RouterContext;
  ctx.set(
    'x-matched',
    JSON.stringify((routed.matched ?? []).map((layer) => `${layer.methods.join(',')} ${String(layer.path)}`)),
  );
  ctx.set('x-route-matched', String(routed.routeMatched));
  return next();
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
    const headers = ['allow', 'x-matched', 'x-route-matched'].map((name) => res.headers.get(name));
    return { status: res.status, allow: headers[0], matched: headers[1], routeMatched: headers[2], text: res.text };
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
    const wrong = await get('PATCH', '/api/admin/products');
    assert.deepEqual([wrong.status, wrong.allow, wrong.text], [405, 'HEAD, GET, POST', 'Method Not Allowed']);
    assert.deepEqual(
      [JSON.parse(wrong.matched!), wrong.routeMatched],
      [['HEAD,GET /api/admin/products', 'POST /api/admin/products'], 'false'],
    );
    assert.deepEqual((await get('OPTIONS', `/api/admin/products/${id}`)).allow, 'HEAD, GET, PUT, PATCH, POST, DELETE');
    assert.equal((await get('PURGE', '/api/admin/products')).status, 501);
    assert.equal((await get('DELETE', `/api/admin/products/${id}`)).status, 403);
    assert.equal((await get('GET', '/api/admin/products/not-a-uuid')).status, 404);
    assert.deepEqual(JSON.parse((await get('GET', '/api/partial/spring-sale')).text), {
      slug: 'spring-sale',
      route: '/api/partial/:slug',
    });
    const read = { method: 'read', id, route: '/api/partial/:id', params: { id }, routerPath: '/api/partial/:id' };
    assert.deepEqual(JSON.parse((await get('GET', `/api/partial/${id}`)).text).data, read);
    assert.deepEqual(
      JSON.parse((await get('GET', '/api/admin/products/options')).text).data.route,
      '/api/admin/products/options',
    );
  });
});

describe('crud on a router', () => {
  it("adds two layers for consecutive resources, with @koa/router's own match, layer match and data paths", () => {
    const router = new Router({ prefix: '/api' });
    const match = router.match;
    for (let index = 0; index < 500; index += 1)
      crud(router, `r${index}`, EchoController, index % 2 === 0 ? {} : { only: ['search'] });
    router.get('/own', () => {});
    crud(router, 'after', EchoController);
    router.prefix('/v2');
    assert.deepEqual(
      router.stack.map((layer) => layer.path),
      ['/v2', '/v2/*fastCrudPath', '/v2/own', '/v2', '/v2/*fastCrudPath'],
    );
    assert.equal(Object.hasOwn(router, 'match'), false);
    assert.equal(router.match, match);
    for (const layer of router.stack) {
      assert.equal(Object.hasOwn(layer, 'match'), false);
      assert.equal(typeof Object.getOwnPropertyDescriptor(layer, 'path')?.value, 'string');
    }
  });
});

describe('router.use middleware with crud on the router', () => {
  it("runs for every request under the router's prefix, served or not (routes.md), and for no other", async () => {
    const seen: string[] = [];
    const router = new Router({ prefix: '/api' });
    router.use((ctx, next) => (seen.push(`${ctx.method} ${ctx.path}`), next()));
    crud(router, 'products', EchoController, { only: ['search', 'read'] });
    const server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()));
    try {
      assert.equal((await server.get('/api/products')).body.data.method, 'search');
      assert.equal((await server.request('PATCH', '/api/products')).status, 405);
      assert.equal((await server.get('/api/elsewhere')).status, 404);
      assert.equal((await server.get('/outside')).status, 404);
      assert.deepEqual(seen, ['GET /api/products', 'PATCH /api/products', 'GET /api/elsewhere']);
    } finally {
      await server.close();
    }
  });
});

describe('router.param with one layer per resource', () => {
  it('runs param middleware for :id of crud routes, once per request, as with one layer per route', async () => {
    const seen: string[] = [];
    const router = new Router();
    router.param('id', (value, _ctx, next) => (seen.push(value), next()));
    crud(router, 'products', EchoController);
    crud(router, 'later', EchoController, { only: ['read', 'restore'] });
    router.param('slug', (value, _ctx, next) => (seen.push(`slug ${value}`), next()));
    router.get('/later/:slug', (ctx) => (ctx.body = ctx.params['slug']));
    const server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()));
    try {
      assert.equal((await server.request('PATCH', `/products/${id}`)).body.data.method, 'update');
      assert.equal((await server.request('PUT', `/later/${id}/restore`)).body.data.method, 'restore');
      assert.equal((await server.request('GET', '/products/options')).body.data.method, 'options');
      assert.equal((await server.request('GET', '/later/spring')).text, 'spring');
      assert.deepEqual(seen, [id, id, 'spring', 'slug spring']);
    } finally {
      await server.close();
    }
  });
});

describe('crud against one layer per route, for random apps and requests (law)', () => {
  const ACTIONS = [
    'search',
    'options',
    'create',
    'exportCsv',
    'read',
    'update',
    'delete',
    'softDelete',
    'restore',
  ] as const;
  const segment = fc.constantFrom('a', 'b', 'A', 'options', 'soft', 'x%20y');
  const uriArb = fc
    .array(fc.constantFrom('a', 'b', 'shop', 'items'), { minLength: 0, maxLength: 2 })
    .map((parts) => parts.join('/'));
  /** A crud call, or a route of the app's own under the same names. */
  const entryArb = fc.oneof(
    fc.record({ kind: fc.constant('crud' as const), uri: uriArb, only: fc.subarray([...ACTIONS]) }),
    fc.record({
      kind: fc.constant('route' as const),
      uri: uriArb,
      verb: fc.constantFrom('get' as const, 'post' as const, 'patch' as const),
    }),
  );
  type Entry = typeof entryArb extends fc.Arbitrary<infer T> ? T : never;
  const appArb = fc.record({
    entries: fc.array(entryArb, { minLength: 1, maxLength: 5 }),
    prefix: fc.constantFrom(undefined, '/api', '/t/:tenant'),
    later: fc.constantFrom(undefined, '/v2'),
    mount: fc.constantFrom(undefined, '/outer'),
    sensitive: fc.boolean(),
    strict: fc.boolean(),
  });
  type App = typeof appArb extends fc.Arbitrary<infer T> ? T : never;
  const requestArb = fc
    .record({
      method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE'),
      path: fc.array(
        fc.oneof(
          segment,
          fc.constant(id),
          fc.constant(id.toUpperCase()),
          fc.constantFrom('shop', 'items', 'restore', 'export-csv', 'outer', 'api', 'v2', 't', 'acme', ''),
        ),
        { maxLength: 6 },
      ),
    })
    .map(({ method, path }) => ({ method, path: `/${path.join('/')}` }));

  const build = (register: typeof crudOneLayerPerRoute, { entries, prefix, later, mount, sensitive, strict }: App) => {
    const router = new Router({ prefix, sensitive, strict });
    for (const entry of entries) {
      if (entry.kind === 'crud')
        register(router, entry.uri, EchoController, { only: entry.only.length > 0 ? entry.only : ['search'] });
      else
        router[entry.verb](
          `/${entry.uri}/:slug`,
          (ctx) => (ctx.body = { own: entry.uri, params: ctx.params, route: ctx._matchedRoute }),
        );
    }
    if (later !== undefined) router.prefix(later);
    if (mount === undefined) return new Koa().use(router.routes()).use(router.allowedMethods()).use(probe);
    const parent = new Router();
    parent.use(mount, router.routes());
    return new Koa().use(parent.routes()).use(parent.allowedMethods()).use(probe);
  };
  /** The request paths worth asking: each route's own, filled in, in several cases, with and without a trailing slash. */
  const around = ({ entries, prefix, later, mount }: App): string[] => {
    const base = `${mount ?? ''}${later ?? prefix?.replace(':tenant', 'acme') ?? ''}`;
    return entries.flatMap((entry: Entry) => {
      const root = `${base}/${entry.uri}`.replace(/\/+$/, '');
      const paths = [
        root,
        `${root}/options`,
        `${root}/${id}`,
        `${root}/${id}/soft`,
        `${root}/${id}/restore`,
        `${root}/spring`,
        `${root}/spring/soft`,
      ];
      return paths.flatMap((path) => [path, path.toUpperCase(), `${path}/`]);
    });
  };

  it('answers every request with the status, Allow, body, matched layers and routeMatched of one layer per route', async () => {
    await fc.assert(
      fc.asyncProperty(
        appArb,
        fc.array(requestArb, { maxLength: 6 }),
        fc.constantFrom('GET', 'PATCH', 'OPTIONS', 'DELETE', 'HEAD'),
        async (shape, requests, method) => {
          const [reference, ours] = await Promise.all([
            serve(build(crudOneLayerPerRoute, shape)),
            serve(build(crud, shape)),
          ]);
          try {
            for (const request of [...requests, ...around(shape).map((path) => ({ method, path }))]) {
              const [want, got] = await Promise.all(
                [reference, ours].map(async (server) => {
                  const res = await server.request(request.method, request.path);
                  return [
                    res.status,
                    res.text,
                    ...['allow', 'x-matched', 'x-route-matched'].map((name) => res.headers.get(name)),
                  ];
                }),
              );
              assert.deepEqual(got, want, `${request.method} ${request.path}`);
            }
          } finally {
            await Promise.all([reference.close(), ours.close()]);
          }
        },
      ),
      { numRuns: Number(process.env['FAST_CRUD_ROUTING_RUNS'] ?? 60) },
    );
  });
});
