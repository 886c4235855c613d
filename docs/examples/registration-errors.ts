import assert from 'node:assert/strict';
import Router from '@koa/router';
import { CrudController, crud, resource } from 'koa-fast-crud';
import { Category } from './minimal/app.js';

// The class form's names are strings, which the compiler does not check; crud does, at startup.
class CategoryController extends CrudController {
  override fillable = ['name'];
  override sortable = ['name', 'createAt'];

  modelClassName() {
    return Category;
  }
}

assert.throws(() => crud(new Router(), 'categories', CategoryController), {
  name: 'TypeError',
  message:
    "crud('categories', CategoryController): sortable names 'createAt', " +
    "which is not an attribute or column of Category; did you mean 'createdAt'?",
});

// In the typed form the same mistake does not compile: 'createAt' is not one of Category's attribute names (TS2322).
// @ts-expect-error 'createAt' is not an attribute of Category
resource(Category, { policy: { fillable: ['name'], sortable: ['name', 'createAt'] } });

// Nothing is mass-assignable until declared: create and update need fillable, in both forms.
class OpenCategoryController extends CrudController {
  // No fillable here, so a body could write every attribute: crud refuses the controller.
  modelClassName() {
    return Category;
  }
}

assert.throws(() => crud(new Router(), 'categories', OpenCategoryController), {
  name: 'TypeError',
  message:
    "crud('categories', OpenCategoryController): create and update are registered without fillable, " +
    "so a body could write any attribute: declare fillable: [...] (the attributes a body may write) " +
    "or fillable: 'all', or leave create and update out with except",
});

// Read-only, it needs none.
crud(new Router(), 'categories', OpenCategoryController, { only: ['search', 'read', 'options'] });
