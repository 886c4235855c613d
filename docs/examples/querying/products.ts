/**
 * A product resource that shapes its queries (docs/guide/filtering.md, sorting.md and
 * pagination.md): the field policy, the term search, a filter the server adds, its page sizes.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { Sequelize } from 'sequelize';
import { CrudController, crud } from 'koa-fast-crud';
import { defineDemoModels } from '../demo/models.js';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
export const { Category, Product } = defineDemoModels(sequelize);

// #region controller
export class ProductController extends CrudController {
  override fillable = ['sku', 'name', 'price', 'categoryId'];
  modelClassName() {
    return Product;
  }

  // #region sortable
  // `sort` may name these only; anything else is a 400 columnNotFound.
  override sortable = ['name', 'price', 'createdAt'];
  // #endregion sortable
  // `filter[…]` may name these only: the trash (deletedAt) stays out of reach.
  override filterable = ['sku', 'name', 'price', 'categoryId'];
  // `filter[q]=pan` finds "pan" in the name or the sku, case-insensitively.
  override termKey = 'q';
  override termFields = ['name', 'sku'];

  // A request an auth middleware tied to one category searches that one, whatever it sends.
  override modifyFilters(filters: unknown) {
    const categoryId = this.ctx.state['categoryId'];
    if (typeof categoryId !== 'string') return filters;
    const given = typeof filters === 'object' && filters !== null ? filters : {};
    // A string, as qs would give it: checked like the client's. It replaces a client's
    // `filter[categoryId]` and is ANDed with everything else.
    return { ...given, categoryId };
  }
}
// #endregion controller

// #region config
const router = new Router({ prefix: '/api' });
crud(router, 'products', ProductController, {
  config: { search: { per_page: 10, max_per_page: 50 } },
});
// #endregion config

// #region count-none
// The same products as a feed without a COUNT: meta.pagination is { current, perPage, hasMore }.
crud(router, 'products-feed', ProductController, {
  only: ['search'],
  config: { search: { count: 'none' } },
});
// #endregion count-none

export const app = new Koa()
  .use(async (ctx, next) => {
    // Stands in for an auth middleware.
    const scope = ctx.get('x-category');
    if (scope !== '') ctx.state['categoryId'] = scope;
    await next();
  })
  .use(router.routes())
  .use(router.allowedMethods());
