/** The demo app: categories and products served by koa-fast-crud under /api. */
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import { createFastCrud, notFound, openApiDocument, resource } from 'koa-fast-crud';
import { adminRouter } from './admin.js';
import { explorerRouter } from './explorer.js';
import { defineDemoModels } from './models.js';
import { pageRouter } from './page/router.js';

/**
 * The demo's ability check. A real app asks its auth layer (say `ctx.state.user.can(ability)`);
 * here a request may send `x-demo-abilities: shop.access.search,...` to narrow what it can do.
 */
export function demoCan(ctx: Context, ability: string): boolean {
  const header = ctx.get('x-demo-abilities');
  return header === '' || header.split(',').map((a) => a.trim()).includes(ability);
}

// #region schema
/**
 * The demo's body schema (zod; any Standard Schema works): a price is never negative. It passes the
 * body through as it is, and leaves a price that is no number to the column's type check.
 */
const productBody = z.looseObject({}).superRefine((body, issues) => {
  if (Number(body['price']) < 0) issues.addIssue({ code: 'custom', path: ['price'], message: 'A price is never negative' });
});
// #endregion schema

/** Builds the demo app on a connection; returns it with its models. */
export function createDemoApp(sequelize: Sequelize) {
  const models = defineDemoModels(sequelize);

  // #region resources
  const categories = resource(models.Category, {
    policy: { fillable: ['name'] },
    // A has-many association: filters match the categories that have a matching product.
    relations: { products: { filterable: ['sku', 'name', 'price'] } },
  });
  const products = resource(models.Product, {
    policy: { fillable: ['sku', 'name', 'price', 'categoryId'] },
    search: { termFields: ['name', 'sku'] },
    // `include=category` loads it; `filter[category.name]` and `sort=category.name` reach into it.
    relations: { category: { include: true, hidden: ['deletedAt'], filterable: ['name'], sortable: ['name'] } },
    validate: { create: productBody, update: productBody },
    csv: { columns: { sku: 'SKU', name: 'Name', 'category.name': 'Category', price: 'Price' } },
    // Batch routes (`PATCH`/`DELETE /products?filter[...]`, an array `POST`): the admin's bulk delete is one request.
    batch: true,
    // A change feed (`GET /products/changes`, Server-Sent Events): the admin's product list refetches on every write.
    live: true,
  });
  // #endregion resources

  const { crud, openApiResource } = createFastCrud({ can: demoCan });
  const router = new Router({ prefix: '/api' });
  crud(router, 'categories', categories, { moduleName: 'shop' });
  crud(router, 'products', products, { moduleName: 'shop' });

  // #region openapi
  const openApi = openApiDocument({
    info: {
      title: 'koa-fast-crud demo shop',
      version: '1.0.0',
      description: 'Categories and products, served by koa-fast-crud.',
      contact: { name: 'koa-fast-crud', url: 'https://www.npmjs.com/package/koa-fast-crud' },
    },
    servers: [{ url: '/api', description: 'The demo server' }],
    // What demoCan reads: a caller narrows its abilities with this header (none: every ability).
    securitySchemes: { demoAbilities: { type: 'apiKey', in: 'header', name: 'x-demo-abilities' } },
    resources: [
      openApiResource('categories', categories, { moduleName: 'shop' }),
      openApiResource('products', products, { moduleName: 'shop' }),
    ],
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });
  // #endregion openapi

  const explorer = explorerRouter('/api/openapi.json');
  const page = pageRouter();
  const admin = adminRouter();
  // notFound() last: a JSend 404 for what no router answers (a non-UUID id included), and a JSend 405; 501 stays allowedMethods'.
  const app = new Koa()
    .use(router.routes())
    .use(router.allowedMethods())
    .use(explorer.routes())
    .use(admin.routes())
    .use(page.routes())
    .use(notFound());
  return { app, models, router, openApi, admin };
}
