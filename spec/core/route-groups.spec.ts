import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planRoutes } from '../../lib/core/plan-routes.js';
import { groupRoutes } from '../../lib/core/route-groups.js';
import { CrudController } from '../../lib/index.js';
import type { CrudMethod } from '../../lib/types.js';
import { methodListArb, uriArb } from '../arbitraries/controller-arb.js';

describe('groupRoutes', () => {
  it('returns six paths, each with its verbs in table order, for the full table', () => {
    const groups = groupRoutes(planRoutes(CrudController, { uri: 'products' }));
    assert.deepEqual(
      groups.map((group) => [group.path, group.verbs.join(), group.routes.map((route) => route.method).join()]),
      [
        ['products', 'get,post', 'search,create'],
        ['products/options', 'get', 'options'],
        ['products/export-csv', 'get', 'exportCsv'],
        ['products/{id:uuid}', 'get,put,patch,post,delete', 'read,update,update,update,delete'],
        ['products/{id:uuid}/soft', 'delete', 'softDelete'],
        ['products/{id:uuid}/restore', 'patch,put', 'restore,restore'],
      ],
    );
  });

  it('returns no groups for an empty plan', () => {
    assert.deepEqual(groupRoutes([]), []);
  });

  const planArb = fc
    .tuple(uriArb, methodListArb, methodListArb)
    .map(([uri, only, except]) =>
      planRoutes(CrudController, { uri: uri.given, only: only as CrudMethod[], except: except as CrudMethod[] }),
    );

  it('keeps every route once, each path once, paths in order of first appearance and routes in plan order', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        const groups = groupRoutes(plan);
        assert.deepEqual(
          groups.map((group) => group.path),
          [...new Set(plan.map((def) => def.path))],
        );
        for (const group of groups) {
          assert.deepEqual(
            group.routes,
            plan.filter((def) => def.path === group.path),
          );
          assert.deepEqual(
            group.verbs,
            group.routes.map((def) => def.verb),
          );
          assert.equal(new Set(group.verbs).size, group.verbs.length);
        }
        assert.equal(
          groups.reduce((sum, group) => sum + group.routes.length, 0),
          plan.length,
        );
      }),
    );
  });

  it('keeps options and export-csv before the {id:uuid} path they also match', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        const paths = groupRoutes(plan).map((group) => group.path);
        const id = paths.findIndex((path) => path.endsWith('{id:uuid}'));
        for (const literal of paths.filter((path) => /\/(options|export-csv)$/.test(path))) {
          if (id >= 0) assert.ok(paths.indexOf(literal) < id);
        }
      }),
    );
  });
});
