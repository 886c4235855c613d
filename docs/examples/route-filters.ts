/** `only` and `except`, shown with planRoutes: the routes crud() would register, as plain values. */
import assert from 'node:assert/strict';
import { planRoutes, type PlanOptions } from 'koa-fast-crud/core';
import { CatalogController } from './controllers/catalog.js';
import { ProductController } from './controllers/audited-products.js';

/** The routes crud() would register for products, as 'VERB path'. */
function routes(options: Omit<PlanOptions, 'uri'>, Controller: { prototype: object } = ProductController) {
  const plan = planRoutes(Controller, { uri: 'products', ...options });
  return plan.map((route) => `${route.verb.toUpperCase()} ${route.path}`);
}

// #region filters
// except drops every route of the methods it names: update has three.
const except = routes({ except: ['update', 'softDelete', 'restore', 'exportCsv'] });
assert.deepEqual(except, [
  'GET products',
  'GET products/options',
  'POST products',
  'GET products/{id:uuid}',
  'DELETE products/{id:uuid}',
]);

// only keeps exactly the methods it names: softDelete is not delete.
assert.deepEqual(routes({ only: ['delete'] }), ['DELETE products/{id:uuid}']);

// A non-empty only wins: except is then ignored.
assert.deepEqual(routes({ only: ['read'], except: ['read'] }), ['GET products/{id:uuid}']);
// An empty only filters nothing.
assert.equal(routes({ only: [], except: ['exportCsv'] }).length, 11);

// Names are exact and case-sensitive: TypeScript refuses any other name (a CrudMethod union), and
// at run time (plain JavaScript) one that matches nothing is ignored.
// @ts-expect-error 'Delete' and 'destroy' are not CrudMethod names
assert.deepEqual(routes({ only: ['Delete', 'destroy'] }), []);
// @ts-expect-error 'show' is not a CrudMethod name
assert.equal(routes({ except: ['show'] }).length, 12);

// A method the controller lacks is never registered: CatalogController has no update.
const catalog = routes({ only: ['read', 'update'] }, CatalogController);
assert.deepEqual(catalog, ['GET products/{id:uuid}']);
// #endregion filters

// #region abilities
// With a moduleName, each route carries its ability; options never has one.
const guarded = planRoutes(ProductController, {
  uri: '/admin/products/',
  moduleName: 'shop',
  only: ['options', 'softDelete'],
});
assert.deepEqual(
  guarded.map(({ verb, path, ability }) => [verb, path, ability]),
  [
    ['get', 'admin/products/options', null],
    ['delete', 'admin/products/{id:uuid}/soft', 'shop.access.delete'],
  ],
);
// #endregion abilities
