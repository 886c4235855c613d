import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planRoutes } from '../../lib/core/plan-routes.js';
import { BATCH_ROUTE_TABLE, ROUTE_TABLE } from '../../lib/core/route-table.js';
import type { CrudMethod } from '../../lib/types.js';
import { controllerArb, methodListArb, uriArb } from '../arbitraries/controller-arb.js';

class FullController {
  search() {}
  options() {}
  create() {}
  exportCsv() {}
  read() {}
  update() {}
  delete() {}
  softDelete() {}
  restore() {}
}

const summary = (routes: ReturnType<typeof planRoutes>) =>
  routes.map((r) => `${r.verb} ${r.path} ${r.method} ${r.ability}`);

describe('planRoutes', () => {
  it('returns the twelve routes in table order with abilities for a full controller', () => {
    assert.deepEqual(summary(planRoutes(FullController, { uri: 'products', moduleName: 'shop' })), [
      'get products search shop.access.search',
      'get products/options options null',
      'post products create shop.access.create',
      'get products/export-csv exportCsv shop.access.exportCsv',
      'get products/{id:uuid} read shop.access.view',
      'put products/{id:uuid} update shop.access.update',
      'patch products/{id:uuid} update shop.access.update',
      'post products/{id:uuid} update shop.access.update',
      'delete products/{id:uuid} delete shop.access.delete',
      'delete products/{id:uuid}/soft softDelete shop.access.delete',
      'patch products/{id:uuid}/restore restore shop.access.restore',
      'put products/{id:uuid}/restore restore shop.access.restore',
    ]);
  });

  it('returns the permission but no ability when moduleName is null or absent', () => {
    for (const moduleName of [null, undefined]) {
      const plan = planRoutes(FullController, { uri: 'products', moduleName });
      assert.ok(plan.every((r) => r.ability === null));
      assert.equal(plan.find((r) => r.method === 'read')?.permission, 'view');
    }
  });

  it('returns no permission and no ability for options', () => {
    const [options] = planRoutes(FullController, { uri: 'p', moduleName: 'm', only: ['options'] });
    assert.deepEqual(options, { verb: 'get', path: 'p/options', method: 'options', permission: null, ability: null });
  });

  it('returns the options permission and its ability for optionsPermission (options.permission)', () => {
    const [options] = planRoutes(FullController, {
      uri: 'p',
      moduleName: 'm',
      only: ['options'],
      optionsPermission: 'search',
    });
    assert.deepEqual(options, {
      verb: 'get',
      path: 'p/options',
      method: 'options',
      permission: 'search',
      ability: 'm.access.search',
    });
    const [unguarded] = planRoutes(FullController, {
      uri: 'p',
      moduleName: null,
      only: ['options'],
      optionsPermission: 'search',
    });
    assert.equal(unguarded?.ability, null);
    const [spec] = planRoutes(FullController, {
      uri: 'p',
      moduleName: 'm',
      only: ['options'],
      optionsPermission: null,
    });
    assert.equal(spec?.ability, null);
    const others = planRoutes(FullController, {
      uri: 'p',
      moduleName: 'm',
      except: ['options'],
      optionsPermission: 'search',
    });
    assert.deepEqual(others, planRoutes(FullController, { uri: 'p', moduleName: 'm', except: ['options'] }));
  });

  it('returns the batch routes under their single actions, before the {id} routes, for batch', () => {
    const Full = class {
      search() {}
      create() {}
      update() {}
      delete() {}
      softDelete() {}
      restore() {}
      read() {}
    };
    const plan = planRoutes(Full, { uri: 'books', moduleName: 'shop', batch: true });
    assert.deepEqual(
      plan.map((r) => [r.verb, r.path, r.method, r.ability, r.batch ?? false]),
      [
        ['get', 'books', 'search', 'shop.access.search', false],
        ['post', 'books', 'create', 'shop.access.create', false],
        ['patch', 'books', 'update', 'shop.access.update', true],
        ['delete', 'books', 'delete', 'shop.access.delete', true],
        ['delete', 'books/soft', 'softDelete', 'shop.access.delete', true],
        ['patch', 'books/restore', 'restore', 'shop.access.restore', true],
        ['get', 'books/{id:uuid}', 'read', 'shop.access.view', false],
        ['put', 'books/{id:uuid}', 'update', 'shop.access.update', false],
        ['patch', 'books/{id:uuid}', 'update', 'shop.access.update', false],
        ['post', 'books/{id:uuid}', 'update', 'shop.access.update', false],
        ['delete', 'books/{id:uuid}', 'delete', 'shop.access.delete', false],
        ['delete', 'books/{id:uuid}/soft', 'softDelete', 'shop.access.delete', false],
        ['patch', 'books/{id:uuid}/restore', 'restore', 'shop.access.restore', false],
        ['put', 'books/{id:uuid}/restore', 'restore', 'shop.access.restore', false],
      ],
    );
    assert.deepEqual(
      planRoutes(Full, { uri: 'books', batch: true, except: ['update'] })
        .filter((r) => r.batch)
        .map((r) => r.method),
      ['delete', 'softDelete', 'restore'],
    );
  });

  it('skips entries whose method the controller lacks', () => {
    class ReadOnly {
      read() {}
    }
    assert.deepEqual(summary(planRoutes(ReadOnly, { uri: 'p' })), ['get p/{id:uuid} read null']);
  });

  it('counts inherited methods', () => {
    class Base {
      search() {}
    }
    class Child extends Base {}
    assert.deepEqual(summary(planRoutes(Child, { uri: 'p' })), ['get p search null']);
  });

  it('ignores properties that are not functions', () => {
    class Odd {}
    Object.defineProperty(Odd.prototype, 'search', { value: 'not a function' });
    assert.deepEqual(planRoutes(Odd, { uri: 'p' }), []);
  });

  it('filters update out of all three of its routes, and restore out of both of its', () => {
    const methods = planRoutes(FullController, { uri: 'p', except: ['update', 'restore'] }).map((r) => r.method);
    assert.deepEqual(methods, ['search', 'options', 'create', 'exportCsv', 'read', 'delete', 'softDelete']);
  });

  it('keeps softDelete when delete is excluded, and the reverse', () => {
    assert.deepEqual(
      planRoutes(FullController, { uri: 'p', only: ['delete'] }).map((r) => r.path),
      ['p/{id:uuid}'],
    );
    assert.deepEqual(
      planRoutes(FullController, { uri: 'p', only: ['softDelete'] }).map((r) => r.path),
      ['p/{id:uuid}/soft'],
    );
  });

  it('ignores except when only is non-empty, and matches names case-sensitively', () => {
    const plan = planRoutes(FullController, { uri: 'p', only: ['read', 'Search'] as CrudMethod[], except: ['read'] });
    assert.deepEqual(
      plan.map((r) => r.method),
      ['read'],
    );
  });

  it('returns the same plan for a uri with or without slashes, and keeps its segments', () => {
    const bare = planRoutes(FullController, { uri: 'admin/catalog/products' });
    assert.deepEqual(planRoutes(FullController, { uri: '/admin/catalog/products/' }), bare);
    assert.equal(bare[4]?.path, 'admin/catalog/products/{id:uuid}');
  });

  it('returns no route for a controller with no table method', () => {
    assert.deepEqual(planRoutes(class {}, { uri: 'p', moduleName: 'm' }), []);
  });

  describe('laws', () => {
    it('equals the table filtered by the controller, only and except, in table order', () => {
      fc.assert(
        fc.property(
          controllerArb,
          methodListArb,
          methodListArb,
          uriArb,
          ({ Controller, implemented }, only, except, uri) => {
            const expected = ROUTE_TABLE.filter(
              (e) =>
                implemented.has(e.method) && (only.length > 0 ? only.includes(e.method) : !except.includes(e.method)),
            );
            const plan = planRoutes(Controller, {
              uri: uri.given,
              moduleName: 'mod',
              only: only as CrudMethod[],
              except: except as CrudMethod[],
            });
            assert.deepEqual(
              plan.map((r) => [r.verb, r.path, r.method, r.permission]),
              expected.map((e) => [e.verb, uri.bare + e.suffix, e.method, e.permission]),
            );
          },
        ),
      );
    });

    it('is the same plan with batch off as without the option (the twelve-route table stays exact)', () => {
      fc.assert(
        fc.property(controllerArb, methodListArb, methodListArb, uriArb, ({ Controller }, only, except, uri) => {
          const options = {
            uri: uri.given,
            moduleName: 'mod',
            only: only as CrudMethod[],
            except: except as CrudMethod[],
          };
          const plain = planRoutes(Controller, options);
          assert.deepEqual(planRoutes(Controller, { ...options, batch: false }), plain);
          assert.ok(plain.every((route) => !('batch' in route)));
        }),
      );
    });

    it('adds, with aggregate on, exactly GET <uri>/aggregate unless only/except leave it out, before every {id} route', () => {
      fc.assert(
        fc.property(controllerArb, methodListArb, methodListArb, uriArb, ({ Controller }, only, except, uri) => {
          const options = {
            uri: uri.given,
            moduleName: 'mod',
            only: only as CrudMethod[],
            except: except as CrudMethod[],
          };
          const plain = planRoutes(Controller, options);
          assert.deepEqual(planRoutes(Controller, { ...options, aggregate: false }), plain);
          const withAggregate = planRoutes(Controller, { ...options, aggregate: true });
          const added = withAggregate.filter((route) => route.method === 'aggregate');
          assert.deepEqual(
            withAggregate.filter((route) => route.method !== 'aggregate'),
            plain,
          );
          const kept = only.length > 0 ? only.includes('aggregate') : !except.includes('aggregate');
          assert.deepEqual(
            added.map((r) => [r.verb, r.path, r.permission, r.ability]),
            kept ? [['get', `${uri.bare}/aggregate`, 'search', 'mod.access.search']] : [],
          );
          const firstId = withAggregate.findIndex((route) => route.path.includes('{id'));
          const at = withAggregate.findIndex((route) => route.method === 'aggregate');
          assert.ok(firstId < 0 || at < firstId, 'aggregate is planned before the {id} routes');
        }),
      );
    });

    it('adds, with batch on, exactly the batch routes of the kept methods, before every {id} route', () => {
      fc.assert(
        fc.property(controllerArb, methodListArb, methodListArb, uriArb, ({ Controller }, only, except, uri) => {
          const options = {
            uri: uri.given,
            moduleName: 'mod',
            only: only as CrudMethod[],
            except: except as CrudMethod[],
          };
          const plain = planRoutes(Controller, options);
          const batched = planRoutes(Controller, { ...options, batch: true });
          assert.deepEqual(
            batched.filter((route) => route.batch !== true),
            plain,
          );
          const kept = new Set(plain.map((route) => route.method));
          assert.deepEqual(
            batched.filter((route) => route.batch === true).map((r) => [r.verb, r.path, r.method, r.ability]),
            BATCH_ROUTE_TABLE.filter((e) => kept.has(e.method)).map((e) => [
              e.verb,
              uri.bare + e.suffix,
              e.method,
              `mod.access.${e.permission}`,
            ]),
          );
          const firstId = batched.findIndex((route) => route.path.includes('{id'));
          const lastBatch = batched.findLastIndex((route) => route.batch === true);
          assert.ok(firstId < 0 || lastBatch < firstId);
        }),
      );
    });

    it('gives every route an ability exactly when moduleName is set and it has a permission', () => {
      fc.assert(
        fc.property(
          controllerArb,
          fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }),
          ({ Controller }, moduleName) => {
            for (const r of planRoutes(Controller, { uri: 'x', moduleName })) {
              assert.equal(r.ability, moduleName && r.permission ? `${moduleName}.access.${r.permission}` : null);
            }
          },
        ),
      );
    });
  });
});
