import Router from '@koa/router';
import { CrudController, crud } from 'koa-fast-crud';
import { Category } from './app.js';

// The same resource in the class form: a controller that names its model.
class CategoryController extends CrudController {
  override fillable = ['name'];
  modelClassName() {
    return Category;
  }
}

export const router = new Router({ prefix: '/api' });
crud(router, 'categories', CategoryController);
