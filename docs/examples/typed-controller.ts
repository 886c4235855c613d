import { CrudController, type WriteData } from 'koa-fast-crud';
import { Category } from './minimal/app.js';

// `.for(Category)` writes modelClassName() and types every hook by the model.
export class TypedCategoryController extends CrudController.for(Category) {
  override fillable = ['name'];

  override beforeCreate(data: WriteData<Category>) {
    return data.name === undefined ? data : { ...data, name: data.name.trim() };
  }

  override afterRead(record: Category) {
    record.name = record.name.toUpperCase();
  }
}
