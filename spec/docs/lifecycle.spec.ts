/**
 * The lifecycle diagrams of guide/controllers.md (docs/examples/lifecycle.ts) are true: every hook
 * of every action runs in the order its diagram shows, on the way to the reply and on the way to
 * each exit the diagram draws, and no hook on CrudController's prototype chain is left out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { BaseController, CrudController, crud, type CrudOptions } from '../../lib/index.js';
import { CRUD_METHODS } from '../../lib/core.js';
import { demoCan } from '../../docs/examples/demo/app.js';
import { defineDemoModels } from '../../docs/examples/demo/models.js';
import { seedDemo, stableId } from '../../docs/examples/demo/seed.js';
import { LIFECYCLES, hooksOf, type ActionName, type ExitStep } from '../../docs/examples/lifecycle.js';
import { serve, type TestServer } from '../support/http.js';

const ACTIONS = Object.keys(LIFECYCLES) as ActionName[];

/** Every overridable method an action calls: what CrudController adds to BaseController, minus the actions and the answer helpers. */
function chainHooks(): string[] {
  const names = new Set<string>();
  for (let proto: object = CrudController.prototype; proto !== BaseController.prototype; proto = Object.getPrototypeOf(proto) as object) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (name !== 'constructor' && typeof value === 'function' && !(CRUD_METHODS as readonly string[]).includes(name) && !name.startsWith('answer')) names.add(name);
    }
  }
  return [...names].sort();
}

const HOOKS = chainHooks();

/** The hooks that ran during the request under way, in order. */
const calls: string[] = [];

/** Overrides every hook of a controller class with a spy that records its name and calls the inherited method. */
function spyOnHooks(Controller: { prototype: object }): void {
  const parent = Object.getPrototypeOf(Controller.prototype) as Record<string, (...args: unknown[]) => unknown>;
  for (const name of HOOKS) {
    Object.defineProperty(Controller.prototype, name, {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        calls.push(name);
        return parent[name]!.apply(this, args);
      },
    });
  }
}

/** The hooks a diagram puts before its n-th exit (or before the reply), leaving out conditional ones unless asked. */
function expectedHooks(action: ActionName, until: number | 'reply', withConditional: boolean): string[] {
  const steps = LIFECYCLES[action].steps;
  const exits = steps.flatMap((step, index) => (step.kind === 'exit' ? [index] : []));
  const end = until === 'reply' ? steps.length : exits[until]!;
  return steps.slice(0, end).flatMap((step) => (step.kind === 'hook' && (withConditional || step.when === undefined) ? [step.name] : []));
}

function exitsOf(action: ActionName): ExitStep[] {
  return LIFECYCLES[action].steps.filter((step): step is ExitStep => step.kind === 'exit');
}

const id = (sku: string) => stableId(`product:${sku}`);
const books = stableId('category:Books');
const missing = '00000000-0000-4000-8000-000000000000';
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const denied: RequestInit = { headers: { 'x-demo-abilities': 'shop.access.none' } };
const plainText: RequestInit = { headers: { 'content-type': 'text/plain' }, body: 'name=x' };

/** A request that ends at one exit of an action's diagram. */
interface Probe {
  readonly exit: number;
  readonly method: string;
  readonly path: string;
  readonly init?: RequestInit;
}

const PROBES: Readonly<Record<ActionName, readonly Probe[]>> = {
  search: [
    { exit: 0, method: 'GET', path: '/api/products', init: denied },
    { exit: 1, method: 'GET', path: '/api/products?filter[a][b][c][d][e][f][g][h][i][j]=1' },
    { exit: 2, method: 'GET', path: '/api/products?sort=colour' },
  ],
  options: [
    { exit: 0, method: 'GET', path: '/api/products/options' },
    { exit: 1, method: 'GET', path: '/api/products/options?label=name&value=no_such_column' },
  ],
  create: [
    { exit: 0, method: 'POST', path: '/api/products', init: { ...json({ name: 'x' }), ...denied } },
    { exit: 1, method: 'POST', path: '/api/products', init: plainText },
    { exit: 2, method: 'POST', path: '/api/products', init: json({ price: 'cheap' }) },
    { exit: 3, method: 'POST', path: '/api/products', init: json({ sku: 'BK-001', name: 'Twin', price: 1, categoryId: books }) },
    { exit: 3, method: 'POST', path: '/api/products', init: json({ sku: 'XX-001' }) },
  ],
  read: [
    { exit: 0, method: 'GET', path: '/api/products/not-a-uuid' },
    { exit: 1, method: 'GET', path: `/api/products/${id('KT-001')}`, init: denied },
    { exit: 2, method: 'GET', path: '/loose/products/not-a-uuid' },
    { exit: 3, method: 'GET', path: `/api/products/${missing}` },
  ],
  update: [
    { exit: 0, method: 'PATCH', path: '/api/products/not-a-uuid', init: json({ name: 'x' }) },
    { exit: 1, method: 'PATCH', path: `/api/products/${id('KT-001')}`, init: { ...json({ name: 'x' }), ...denied } },
    { exit: 2, method: 'PATCH', path: `/api/products/${id('KT-001')}`, init: plainText },
    { exit: 3, method: 'PATCH', path: `/api/products/${id('KT-001')}`, init: json({ price: 'cheap' }) },
    { exit: 4, method: 'PATCH', path: '/loose/products/not-a-uuid', init: json({ name: 'x' }) },
    { exit: 5, method: 'PATCH', path: `/api/products/${missing}`, init: json({ name: 'x' }) },
    { exit: 6, method: 'PATCH', path: `/api/products/${id('KT-001')}`, init: json({ sku: 'BK-001' }) },
  ],
  delete: [
    { exit: 0, method: 'DELETE', path: '/api/products/not-a-uuid' },
    { exit: 1, method: 'DELETE', path: `/api/products/${id('KT-001')}`, init: denied },
    { exit: 2, method: 'DELETE', path: '/loose/products/not-a-uuid' },
    { exit: 3, method: 'DELETE', path: `/api/products/${missing}` },
    { exit: 4, method: 'DELETE', path: `/api/categories/${books}` },
  ],
  softDelete: [
    { exit: 0, method: 'DELETE', path: '/api/products/not-a-uuid/soft' },
    { exit: 1, method: 'DELETE', path: `/api/products/${id('KT-001')}/soft`, init: denied },
    { exit: 2, method: 'DELETE', path: `/nosoft/products/${id('KT-001')}/soft` },
    { exit: 3, method: 'DELETE', path: '/loose/products/not-a-uuid/soft' },
    { exit: 4, method: 'DELETE', path: `/api/products/${id('TY-002')}/soft` },
  ],
  restore: [
    { exit: 0, method: 'PATCH', path: '/api/products/not-a-uuid/restore' },
    { exit: 1, method: 'PUT', path: `/api/products/${id('TY-002')}/restore`, init: denied },
    { exit: 2, method: 'PATCH', path: `/nosoft/products/${id('TY-002')}/restore` },
    { exit: 3, method: 'PATCH', path: '/loose/products/not-a-uuid/restore' },
    { exit: 4, method: 'PATCH', path: `/api/products/${id('KT-001')}/restore` },
  ],
  exportCsv: [
    { exit: 0, method: 'GET', path: '/api/products/export-csv', init: denied },
    { exit: 1, method: 'GET', path: '/api/products/export-csv?filter[a][b][c][d][e][f][g][h][i][j]=1' },
    { exit: 2, method: 'GET', path: '/api/products/export-csv?filter[colour]=red' },
  ],
};

describe('the lifecycle diagrams', () => {
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  let server: TestServer;
  const memoId = '11111111-1111-4111-8111-111111111111';

  before(async () => {
    const models = defineDemoModels(sequelize);
    // A model with a deleted-by column, for the hook that only runs then.
    const Memo = sequelize.define(
      'Memo',
      { id: { type: DataTypes.UUID, primaryKey: true }, title: DataTypes.STRING, deletedAt: DataTypes.DATE, deletedBy: DataTypes.STRING },
      { tableName: 'lc_memos', underscored: true },
    );
    await seedDemo(models);
    await Memo.create({ id: memoId, title: 'Order more spades' });

    class ProductController extends CrudController {
      override fillable = 'all' as const;
      modelClassName() {
        return models.Product;
      }
    }
    class CategoryController extends CrudController {
      override fillable = 'all' as const;
      modelClassName() {
        return models.Category;
      }
    }
    class MemoController extends CrudController {
      override fillable = 'all' as const;
      modelClassName() {
        return Memo;
      }
    }
    for (const Controller of [ProductController, CategoryController, MemoController]) spyOnHooks(Controller);

    const guarded: CrudOptions = { moduleName: 'shop', can: demoCan };
    const router = new Router();
    crud(router, 'api/products', ProductController, guarded);
    crud(router, 'api/categories', CategoryController, guarded);
    crud(router, 'api/memos', MemoController, guarded);
    crud(router, 'loose/products', ProductController, { ...guarded, config: { global: { find_field_is_uuid: false } } });
    crud(router, 'nosoft/products', ProductController, { ...guarded, config: { soft_delete: { deleted_at_field: 'removed_at' } } });
    server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()));
  });

  after(async () => {
    await server.close();
    await sequelize.close();
  });

  /** Sends a request and returns its status with the hooks it ran. */
  async function run(method: string, path: string, init?: RequestInit): Promise<{ status: number; hooks: string[]; body: unknown }> {
    calls.length = 0;
    const response = await server.request(method, path, init);
    return { status: response.status, hooks: [...calls], body: response.body };
  }

  it('every hook on CrudController’s prototype chain is in a diagram, and every diagram hook is on the chain', () => {
    const drawn = new Set(ACTIONS.flatMap(hooksOf));
    assert.deepEqual([...drawn].sort(), HOOKS);
    assert.ok(HOOKS.filter((name) => /^(before|after|modify)[A-Z]/.test(name)).length >= 24, 'the hook names were found');
  });

  it('each hook is called the way its diagram shows: its name, and as many parameters as the method takes', () => {
    for (const action of ACTIONS) {
      for (const step of LIFECYCLES[action].steps) {
        if (step.kind !== 'hook') continue;
        const method = (CrudController.prototype as unknown as Record<string, (...args: unknown[]) => unknown>)[step.name]!;
        const match = /^(\w+)\(([^)]*)\)$/.exec(step.call);
        assert.equal(match?.[1], step.name, step.call);
        assert.equal(match[2]!.split(',').filter((p) => p.trim() !== '').length, method.length, `${step.call}: parameters`);
      }
    }
  });

  it('every action has a diagram, and every diagram is of an action', () => {
    assert.deepEqual([...ACTIONS].sort(), [...CRUD_METHODS].sort());
  });

  // The actions run in this order, on one database: create makes the row delete removes.
  const created: { id?: string } = {};
  const SUCCESS: readonly { action: ActionName; method: string; path: () => string; init?: RequestInit; status: number }[] = [
    { action: 'search', method: 'GET', path: () => '/api/products?sort=name&filter[price][lt]=50', status: 200 },
    { action: 'options', method: 'GET', path: () => '/api/products/options?label=name', status: 200 },
    { action: 'create', method: 'POST', path: () => '/api/products', init: json({ sku: 'LC-001', name: 'Desk Lamp', price: 31, categoryId: books }), status: 201 },
    { action: 'exportCsv', method: 'GET', path: () => '/api/products/export-csv?sort=-price', status: 200 },
    { action: 'read', method: 'GET', path: () => `/api/products/${id('KT-001')}`, status: 200 },
    { action: 'update', method: 'PATCH', path: () => `/api/products/${id('KT-001')}`, init: json({ name: 'Cast Iron Skillet' }), status: 200 },
    { action: 'delete', method: 'DELETE', path: () => `/api/products/${created.id}`, status: 200 },
    { action: 'softDelete', method: 'DELETE', path: () => `/api/products/${id('GD-001')}/soft`, status: 200 },
    { action: 'restore', method: 'PATCH', path: () => `/api/products/${id('GD-001')}/restore`, status: 200 },
  ];

  for (const { action, method, path, init, status } of SUCCESS) {
    it(`${action}: a request that succeeds runs the diagram’s hooks in the diagram’s order`, async () => {
      const result = await run(method, path(), init);
      assert.equal(result.status, status, JSON.stringify(result.body));
      if (action === 'create') created.id = (result.body as { data: { id: string } }).data.id;
      assert.deepEqual(result.hooks, expectedHooks(action, 'reply', false));
    });
  }

  it('softDelete: with a deleted-by column, softDeleteUserId runs where the diagram puts it', async () => {
    const result = await run('DELETE', `/api/memos/${memoId}/soft`);
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.deepEqual(result.hooks, expectedHooks('softDelete', 'reply', true));
    assert.ok(result.hooks.includes('softDeleteUserId'));
  });

  for (const action of ACTIONS) {
    it(`${action}: each exit of the diagram ends the request with its status, after the hooks drawn before it`, async () => {
      const exits = exitsOf(action);
      const probes = PROBES[action];
      assert.deepEqual([...new Set(probes.map((p) => p.exit))].sort(), exits.map((_, index) => index), 'one probe at least per exit');
      for (const probe of probes) {
        const result = await run(probe.method, probe.path, probe.init);
        const exit = exits[probe.exit]!;
        const where = `${probe.method} ${probe.path} (exit ${probe.exit}: ${exit.label})`;
        assert.ok(exit.status.includes(result.status), `${where}: status ${result.status} ${JSON.stringify(result.body)}`);
        assert.deepEqual(result.hooks, expectedHooks(action, probe.exit, false), where);
      }
    });
  }
});
