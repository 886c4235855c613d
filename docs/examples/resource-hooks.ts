import { Op } from 'sequelize';
import { resource } from 'koa-fast-crud';
import { Category } from './minimal/app.js';

export const categories = resource(Category, {
  policy: { fillable: ['name'] },
  hooks: {
    // `?startsWith=G` narrows the list. `query` is FindOptions<Attributes<Category>>; the last
    // argument is the request: ctx, config, model and, during a write, transaction.
    modifyOptionsQuery(query, { ctx }) {
      const prefix = ctx.query['startsWith'];
      if (typeof prefix !== 'string') return query;
      return { ...query, where: { ...query.where, name: { [Op.startsWith]: prefix } } };
    },
    afterOptions: (items) => items.map((item) => ({ ...item, label: String(item.label).toUpperCase() })),
    // `data` is WriteData<Category>: `data.nmae` would not compile.
    beforeCreate: (data) => (data.name === undefined ? data : { ...data, name: data.name.trim() }),
  },
});
