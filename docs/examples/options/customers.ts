/**
 * The options action of a resource with private columns and many rows
 * (docs/actions/options.md): hidden attributes, and a parameter of its own (`?startsWith=`) beside the route's `q`.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Op, Sequelize, type FindOptions } from 'sequelize';
import { CrudController, crud, type OptionItem } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export const Customer = sequelize.define(
  'Customer',
  {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    name: { type: DataTypes.STRING, allowNull: false },
    email: { type: DataTypes.STRING, allowNull: false },
    passwordHash: DataTypes.STRING,
    deletedAt: DataTypes.DATE,
  },
  { tableName: 'customers', underscored: true },
);

// #region controller
export class CustomerController extends CrudController {
  override fillable = ['name', 'email'];
  modelClassName() {
    return Customer;
  }

  // The options route has no ability check: hidden columns are what it can never reveal.
  override hidden = ['email', 'passwordHash'];

  // `?q=ann` finds names containing "ann" anywhere (the route's own autocomplete); a parameter of the app's own,
  // `GET /customers/options?label=name&startsWith=Ann`, keeps the names that start with "Ann". At most 20 either way.
  override modifyOptionsQuery(query: FindOptions) {
    const startsWith = this.ctx.query['startsWith'];
    const limit = Math.min(query.limit ?? 20, 20);
    if (typeof startsWith !== 'string' || startsWith === '') return { ...query, limit };
    const where = { [Op.and]: [query.where ?? {}, { name: { [Op.startsWith]: startsWith } }] };
    return { ...query, where, limit };
  }

  // Items are `{ label, value }`: here the label gets the start of the id, to tell apart
  // two customers of the same name.
  override afterOptions(items: OptionItem[]) {
    return items.map(({ label, value }) => ({
      label: `${String(label)} (${String(value).slice(0, 8)})`,
      value,
    }));
  }
}
// #endregion controller

const router = new Router();
crud(router, 'customers', CustomerController);
export const app = new Koa().use(router.routes()).use(router.allowedMethods());
