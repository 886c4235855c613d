/** docs/guide/configuration.md: app-wide configuration, per-resource overrides, and what a controller sees. */
import Router from '@koa/router';
import Koa from 'koa';
import { CrudController, createFastCrud } from 'koa-fast-crud';
import { Category } from '../minimal/app.js';

// #region layers
// App-wide: merged over DEFAULT_CONFIG and validated here, once.
const { crud } = createFastCrud({
  config: { global: { validation: { http_status: 422 } }, search: { per_page: 20 } },
});

class CategoryController extends CrudController {
  override fillable = ['name'];
  modelClassName() {
    return Category;
  }

  // Every controller gets the configuration of the crud() call that registered it.
  override afterSearch(rows: Record<string, unknown>[]) {
    this.ctx.set('X-Default-Page-Size', String(this.config.search.per_page));
    return rows;
  }
}

export const router = new Router({ prefix: '/api' });

// Per resource: merged over the app-wide configuration, validated when crud() is called.
crud(router, 'categories', CategoryController, {
  config: { search: { per_page: 100 }, options: { default_value: 'name' } },
});

// No config of its own: the app-wide one (422, 20 per page).
crud(router, 'archived-categories', CategoryController, { only: ['search'] });
// #endregion layers

export const app = new Koa().use(router.routes()).use(router.allowedMethods());
