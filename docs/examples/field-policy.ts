/** A customers resource with a field policy: what clients may see, write, sort and filter. */
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { CrudController, crud } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export const Customer = sequelize.define(
  'Customer',
  {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    email: { type: DataTypes.STRING(120), allowNull: false, unique: true, validate: { isEmail: true } },
    name: { type: DataTypes.STRING(80), allowNull: false },
    tier: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'standard' },
    creditLimit: { type: DataTypes.DECIMAL(10, 2), allowNull: false, defaultValue: 0 },
    passwordHash: DataTypes.STRING,
    preferences: DataTypes.JSON,
    deletedAt: DataTypes.DATE,
  },
  { tableName: 'customers', underscored: true },
);

/** Stands in for your authorization: staff see and write more than other callers. */
const isStaff = (ctx: Context) =>
  (ctx.state as { user?: { staff?: boolean } } | undefined)?.user?.staff === true;

// #region controller
export class CustomerController extends CrudController {
  modelClassName() {
    return Customer;
  }

  // Never in a reply, a filter, a sort or an option; staff alone see credit limits.
  override hidden = isStaff(this.ctx) ? ['passwordHash'] : ['passwordHash', 'creditLimit'];
  // What a body may write; other keys are dropped. Staff may also set tier and credit limit.
  override fillable = isStaff(this.ctx)
    ? ['email', 'name', 'preferences', 'tier', 'creditLimit']
    : ['email', 'name', 'preferences'];
  // What `sort` may name: a column name works as well as an attribute name.
  override sortable = ['name', 'created_at'];
  // What `filter[...]` may name; the term fields must be filterable too.
  override filterable = ['email', 'name', 'tier', 'createdAt'];
  // `filter[q]=ada` searches name and email, case-insensitively.
  override termFields = ['name', 'email'];
  override termKey = 'q';
}
// #endregion controller

export const router = new Router();
crud(router, 'customers', CustomerController);
export const app = new Koa()
  .use(async (ctx, next) => {
    ctx.state['user'] = { staff: ctx.get('x-staff') === 'yes' };
    await next();
  })
  .use(router.routes());
