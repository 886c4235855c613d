import { Op, type FindOptions } from 'sequelize';
import { CrudController, type OptionItem } from 'koa-fast-crud';
import { Category } from './minimal/app.js';

export class CategoryController extends CrudController {
  override fillable = ['name'];
  modelClassName() {
    return Category;
  }

  // `?startsWith=G` narrows the list; the hook may change the query in place or return a new one.
  override modifyOptionsQuery(query: FindOptions) {
    const prefix = this.ctx.query['startsWith'];
    if (typeof prefix !== 'string') return query;
    return { ...query, where: { ...query.where, name: { [Op.startsWith]: prefix } } };
  }

  override afterOptions(items: OptionItem[]) {
    return items.map((item) => ({ ...item, label: String(item.label).toUpperCase() }));
  }
}
