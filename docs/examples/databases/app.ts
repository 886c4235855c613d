/**
 * docs/guide/databases.md: the demo's models served over any connection (the replicated one in
 * replication.ts, in spec/docs/databases-page.spec.ts), with single-record reads sent to the primary.
 */
import Router from '@koa/router';
import Koa from 'koa';
import type { FindOptions, Sequelize } from 'sequelize';
import { CrudController, crud } from 'koa-fast-crud';
import { defineDemoModels } from '../demo/models.js';

/** The demo's categories and products under /api on the given connection. */
export function createShop(sequelize: Sequelize) {
  const models = defineDemoModels(sequelize);

  class CategoryController extends CrudController {
    override fillable = ['name'];
    modelClassName() {
      return models.Category;
    }
  }

  // #region read-your-writes
  class ProductController extends CrudController {
    override fillable = ['sku', 'name', 'price', 'categoryId'];
    modelClassName() {
      return models.Product;
    }

    // GET products/{id} reads the primary: a client that has just written the record finds it,
    // however far the replicas lag. Searches, options and exports still read the replicas.
    override modifyReadQuery(query: FindOptions): FindOptions {
      return { ...query, useMaster: true };
    }
  }
  // #endregion read-your-writes

  const router = new Router({ prefix: '/api' });
  crud(router, 'categories', CategoryController);
  crud(router, 'products', ProductController);
  return { app: new Koa().use(router.routes()).use(router.allowedMethods()), models };
}
