import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa, { type Context } from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { CRUD_METHODS, planRoutes } from '../../lib/core.js';
import { CrudController, createFastCrud, crud, resource } from '../../lib/index.js';
import type { ControllerClass } from '../../lib/koa/route-middleware.js';
import { success } from '../../lib/core/jsend.js';
import type { CrudMethod, FastCrudConfig, Reply } from '../../lib/types.js';
import { methodListArb } from '../arbitraries/controller-arb.js';
import { controllerOf } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

/** Records every controller made and every action run, so a test can say what ran. */
const log: string[] = [];

class EchoController {
  constructor(
    readonly ctx: Context,
    readonly config: FastCrudConfig,
  ) {
    log.push('new');
  }
  private echo(method: string): Reply | undefined {
    log.push(method);
    return success({ method, id: (this.ctx as Context & { params: Record<string, string> }).params['id'] ?? null });
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

class WritesItself extends EchoController {
  override read() {
    this.ctx.status = 202;
    this.ctx.body = 'written by the action';
    return undefined;
  }
  override create(): never {
    this.ctx.throw(409, 'Name already taken');
  }
  override update(): never {
    throw new Error('SQLITE_ERROR: near "DROP": syntax error in SELECT * FROM secrets');
  }
}

const id = randomUUID();

describe('crud routes over a real Koa server', () => {
  let server: TestServer;
  const errors: unknown[] = [];
  const asked: string[] = [];
  const denied = new Set<string>();

  before(async () => {
    const router = new Router({ prefix: '/api' });
    const can = (_ctx: Context, ability: string) => {
      asked.push(ability);
      return Promise.resolve(!denied.has(ability));
    };
    crud(router, 'admin/products', EchoController, { moduleName: 'shop', can });
    crud(router, '/plain/', WritesItself);
    crud(router, 'partial', EchoController, { only: ['read'] });
    router.get('/partial/:slug', (ctx) => {
      ctx.body = { slug: ctx.params['slug'] };
    });
    const app = new Koa().use(router.routes()).use(router.allowedMethods());
    server = await serve(app, errors);
  });
  after(() => server.close());

  const table: [string, string, string, string][] = [
    ['GET', '/api/admin/products', 'search', 'shop.access.search'],
    ['POST', '/api/admin/products', 'create', 'shop.access.create'],
    ['GET', '/api/admin/products/export-csv', 'exportCsv', 'shop.access.exportCsv'],
    ['GET', `/api/admin/products/${id}`, 'read', 'shop.access.view'],
    ['PUT', `/api/admin/products/${id}`, 'update', 'shop.access.update'],
    ['PATCH', `/api/admin/products/${id}`, 'update', 'shop.access.update'],
    ['POST', `/api/admin/products/${id}`, 'update', 'shop.access.update'],
    ['DELETE', `/api/admin/products/${id}`, 'delete', 'shop.access.delete'],
    ['DELETE', `/api/admin/products/${id}/soft`, 'softDelete', 'shop.access.delete'],
    ['PATCH', `/api/admin/products/${id}/restore`, 'restore', 'shop.access.restore'],
    ['PUT', `/api/admin/products/${id}/restore`, 'restore', 'shop.access.restore'],
  ];
  for (const [method, path, action, ability] of table) {
    it(`runs ${action} for ${method} ${path.replace(id, ':id')} after checking ${ability}`, async () => {
      asked.length = 0;
      const res = await server.request(method, path);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.method, action);
      assert.deepEqual(asked, [ability]);
    });
  }

  it('passes the uuid to the action as ctx.params.id', async () => {
    assert.equal((await server.get(`/api/admin/products/${id}`)).body.data.id, id);
  });

  it('runs options without asking can', async () => {
    asked.length = 0;
    const res = await server.get('/api/admin/products/options');
    assert.equal(res.body.data.method, 'options');
    assert.deepEqual(asked, []);
  });

  it('answers 403 JSend fail and runs no controller code when can says no', async () => {
    log.length = 0;
    denied.add('shop.access.delete');
    const res = await server.request('DELETE', `/api/admin/products/${id}`).finally(() => denied.clear());
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      status: 'fail',
      data: [{ field: null, error: 'forbidden', message: 'This action needs the ability shop.access.delete' }],
      meta: {},
    });
    assert.deepEqual(log, []);
  });

  it('answers 404 and runs no controller code for an id that is not a uuid', async () => {
    log.length = 0;
    for (const [method, path] of [
      ['GET', '/api/admin/products/not-a-uuid'],
      ['DELETE', `/api/admin/products/${id}x/soft`],
      ['PATCH', '/api/admin/products/1/restore'],
    ] as const) {
      assert.equal((await server.request(method, path)).status, 404, `${method} ${path}`);
    }
    assert.deepEqual(log, []);
  });

  it('lets a non-uuid id fall through to a later route of the app', async () => {
    assert.deepEqual((await server.get('/api/partial/spring-sale')).body, { slug: 'spring-sale' });
    assert.equal((await server.get(`/api/partial/${id}`)).body.data.method, 'read');
  });

  it('registers only what only names, with no permission checks when moduleName is absent', async () => {
    assert.equal((await server.get('/api/partial')).status, 404);
    assert.equal((await server.request('PUT', `/api/partial/${id}`)).status, 405);
  });

  it('makes a new controller for every request', async () => {
    log.length = 0;
    await server.get('/api/plain');
    await server.get('/api/plain');
    assert.deepEqual(log, ['new', 'search', 'new', 'search']);
  });

  it('leaves the response to an action that returns nothing', async () => {
    const res = await server.get(`/api/plain/${id}`);
    assert.equal(res.status, 202);
    assert.equal(res.text, 'written by the action');
  });

  it('answers a thrown HTTP error as a JSend fail with its status and message', async () => {
    const res = await server.request('POST', '/api/plain');
    assert.equal(res.status, 409);
    assert.deepEqual(res.body.data, [{ field: null, error: 'conflict', message: 'Name already taken' }]);
  });

  it('answers any other fault with a bare 500 JSend error, and reports it to the app', async () => {
    errors.length = 0;
    const res = await server.request('PATCH', `/api/plain/${id}`);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { status: 'error', message: 'Internal Server Error' });
    assert.doesNotMatch(res.text, /SQLITE|SELECT|secrets|at /);
    assert.equal(errors.length, 1);
  });
});

describe('crud registration', () => {
  it('returns the plan it registered', () => {
    const plan = crud(new Router(), 'p', EchoController, { only: ['search', 'options'] });
    assert.deepEqual(
      plan.map((r) => r.method),
      ['search', 'options'],
    );
  });

  it('throws for a moduleName without can, saying what to pass', () => {
    assert.throws(
      () => crud(new Router(), 'p', EchoController, { moduleName: 'shop' }),
      /pass can: \(ctx, ability\) => boolean/,
    );
  });

  it('throws for invalid configuration, naming the key and the value', () => {
    assert.throws(
      () => crud(new Router(), 'p', EchoController, { config: { options: { http_status: 999 } } }),
      /options\.http_status must be an HTTP status code, got 999/,
    );
    assert.throws(
      () => createFastCrud({ config: { global: { validation: { http_status: 42 } } } }),
      /global\.validation\.http_status .* got 42/,
    );
  });
});

describe('createFastCrud', () => {
  it('binds can and configuration, and lets a call override them', async () => {
    const seen: string[] = [];
    class ConfigEcho extends EchoController {
      override search() {
        return success({ status: this.config.options.http_status, value: this.config.options.default_value });
      }
    }
    const fastCrud = createFastCrud({
      can: (_ctx, ability) => (seen.push(`app:${ability}`), true),
      config: { options: { http_status: 203, default_value: 'code' } },
    });
    const router = new Router();
    fastCrud.crud(router, 'a', ConfigEcho, { moduleName: 'm', only: ['search'] });
    fastCrud.crud(router, 'b', ConfigEcho, {
      moduleName: 'm',
      only: ['search'],
      can: (_ctx, ability) => (seen.push(`own:${ability}`), true),
      config: { options: { http_status: 202 } },
    });
    const server = await serve(new Koa().use(router.routes()));
    try {
      assert.deepEqual((await server.get('/a')).body.data, { status: 203, value: 'code' });
      assert.deepEqual((await server.get('/b')).body.data, { status: 202, value: 'code' });
      assert.deepEqual(seen, ['app:m.access.search', 'own:m.access.search']);
    } finally {
      await server.close();
    }
  });

  it('accepts a controller class as crud takes it', () => {
    const Controller: ControllerClass = EchoController;
    assert.equal(createFastCrud().crud(new Router(), 'x', Controller).length, 12);
  });
});

describe('crud routes of a resource (resource form)', () => {
  // Registration reads the model's attributes only: no connection is opened.
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  after(() => sequelize.close());
  const Product = sequelize.define(
    'RtProduct',
    { id: { type: DataTypes.UUID, primaryKey: true }, name: DataTypes.STRING },
    { tableName: 'rt_products' },
  );
  const products = resource(Product, { policy: { fillable: 'all' } });
  const can = () => true;
  const layers = (router: Router) => router.stack.map((layer) => [layer.methods.join(), layer.path]);

  it('registers the same 12 verbs, paths and abilities, in order, as a controller class', () => {
    const byResource = new Router({ prefix: '/api' });
    const byClass = new Router({ prefix: '/api' });
    const plan = crud(byResource, 'admin/products', products, { moduleName: 'shop', can });
    assert.equal(plan.length, 12);
    assert.deepEqual(plan, crud(byClass, 'admin/products', EchoController, { moduleName: 'shop', can }));
    assert.deepEqual(layers(byResource), layers(byClass));
  });

  it('plans what planRoutes plans for CrudController, under any only and except', () => {
    fc.assert(
      fc.property(
        methodListArb,
        methodListArb,
        fc.option(fc.constantFrom('shop', 'admin'), { nil: undefined }),
        (only, except, moduleName) => {
          const options = { uri: 'products', only: only as CrudMethod[], except: except as CrudMethod[], moduleName };
          assert.deepEqual(planRoutes(products, options), planRoutes(CrudController, options));
        },
      ),
    );
  });

  it('plans the same routes for a resource and its class-form controller, whatever actions it offers', () => {
    fc.assert(
      fc.property(fc.subarray([...CRUD_METHODS]), (actions) => {
        const spec = { policy: { fillable: 'all' as const }, actions };
        assert.deepEqual(
          planRoutes(resource(Product, spec), { uri: 'p' }),
          planRoutes(controllerOf(Product, spec), { uri: 'p' }),
        );
      }),
    );
  });
});
