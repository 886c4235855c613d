/** A controller composed of three mixins: crud() registers their routes and no others. */
import Router from '@koa/router';
import { BaseController, Options, Read, Search, crud } from 'koa-fast-crud';
import { Product } from './shop.js';

// #region catalog
// A public, read-only catalog: search, options and read; no writes, no export.
export class CatalogController extends Search(Options(Read(BaseController))) {
  override termFields = ['name', 'sku'];

  modelClassName() {
    return Product;
  }
}

export const router = new Router({ prefix: '/public' });
export const plan = crud(router, 'products', CatalogController);
// plan.map((route) => `${route.verb} ${route.path}`):
// ['get products', 'get products/options', 'get products/{id:uuid}']
// #endregion catalog
