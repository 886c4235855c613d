/** A customers resource with a field policy: what clients may see, write, sort and filter. */
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { DataTypes, Sequelize, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model } from 'sequelize';
import { CrudController, crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

/** A customer row: the attributes a resource's policy may name. */
export interface CustomerRow extends Model<InferAttributes<CustomerRow>, InferCreationAttributes<CustomerRow>> {
  id: CreationOptional<string>;
  email: string;
  name: string;
  tier: CreationOptional<string>;
  creditLimit: CreationOptional<number | string>;
  passwordHash: CreationOptional<string | null>;
  preferences: CreationOptional<Record<string, unknown> | null>;
  deletedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export const Customer = sequelize.define<CustomerRow>(
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
    // Declared so that a resource's policy may name them; Sequelize still sets them.
    createdAt: { type: DataTypes.DATE, allowNull: false },
    updatedAt: { type: DataTypes.DATE, allowNull: false },
  },
  { tableName: 'customers', underscored: true },
);

// #region resource
// The same policy as a resource, for callers who are not staff: every name is checked by the compiler.
export const customers = resource(Customer, {
  policy: {
    hidden: ['passwordHash', 'creditLimit'],
    fillable: ['email', 'name', 'preferences'],
    sortable: ['name', 'createdAt'],
    filterable: ['email', 'name', 'tier', 'createdAt'],
  },
  search: { termFields: ['name', 'email'], termKey: 'q' },
});
// #endregion resource

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
crud(router, 'public/customers', customers);
export const app = new Koa()
  .use(async (ctx, next) => {
    ctx.state['user'] = { staff: ctx.get('x-staff') === 'yes' };
    await next();
  })
  .use(router.routes());
