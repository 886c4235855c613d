/**
 * Full-text term search (docs/guide/filtering.md#full-text-search): a resource that searches its term fields by words,
 * the same as a controller, and the migration that makes the index it reads.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { Sequelize, type QueryInterface } from 'sequelize';
import { CrudController, crud, fullTextIndex, resource } from 'koa-fast-crud';
import { defineDemoModels } from '../demo/models.js';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
export const { Category, Product } = defineDemoModels(sequelize);

// #region resource
// `filter[term]=cast pan` finds the products with a word starting with "cast" and one starting with "pan", in the
// name or the sku, through the index below.
export const products = resource(Product, {
  policy: { fillable: ['sku', 'name', 'price', 'categoryId'] },
  search: { termFields: ['name', 'sku'], fullText: true },
});
// #endregion resource

// #region class
export class ProductController extends CrudController {
  override fillable = ['sku', 'name', 'price', 'categoryId'];
  override termFields = ['name', 'sku'];
  // PostgreSQL's text search configuration: English stems ("pans" finds "pan") and stop words.
  override fullText = { language: 'english' };
  modelClassName() {
    return Product;
  }
}
// #endregion class

// #region migration
// migrations/20260601-products-full-text.ts, as Umzug runs it (`context` is the QueryInterface).
export const up = ({ context }: { context: QueryInterface }) => fullTextIndex(products).up(context);
export const down = ({ context }: { context: QueryInterface }) => fullTextIndex(products).down(context);
// #endregion migration

const router = new Router({ prefix: '/api' });
crud(router, 'products', products);
crud(router, 'catalogue', ProductController, { only: ['search'] });

export const app = new Koa().use(router.routes()).use(router.allowedMethods());
