/**
 * The options action of a resource with private columns and many rows
 * (docs/actions/options.md): hidden attributes, and an autocomplete narrowed with `?q=`.
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

  // `GET /customers/options?label=name&q=Ann`: the first 20 names that start with "Ann".
  override modifyOptionsQuery(query: FindOptions) {
    const q = this.ctx.query['q'];
    if (typeof q !== 'string' || q === '') return { ...query, limit: 20 };
    const where = { ...query.where, name: { [Op.startsWith]: q } };
    return { ...query, where, limit: 20 };
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
