/** Aggregates at work: order counts and totals by status and by the customer's country. */
import Router from '@koa/router';
import Koa from 'koa';
import {
  DataTypes,
  Model,
  Sequelize,
  type CreationOptional,
  type ForeignKey,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
} from 'sequelize';
import { CrudController, crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export class Customer extends Model<InferAttributes<Customer>, InferCreationAttributes<Customer>> {
  declare id: CreationOptional<number>;
  declare name: string;
  declare country: string;
}
Customer.init(
  {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    name: { type: DataTypes.STRING(40), allowNull: false },
    country: { type: DataTypes.STRING(2), allowNull: false },
  },
  { sequelize, tableName: 'customers', timestamps: false },
);

export class Order extends Model<InferAttributes<Order>, InferCreationAttributes<Order>> {
  declare id: CreationOptional<number>;
  declare status: string;
  declare total: number;
  declare items: number;
  declare customerId: ForeignKey<number>;
  declare deletedAt: CreationOptional<Date | null>;
  declare customer?: NonAttribute<Customer>;
}
Order.init(
  {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    status: { type: DataTypes.STRING(10), allowNull: false },
    total: { type: DataTypes.DECIMAL(10, 2), allowNull: false },
    items: { type: DataTypes.INTEGER, allowNull: false },
    deletedAt: DataTypes.DATE,
  },
  { sequelize, tableName: 'orders', timestamps: false, underscored: true },
);
Order.belongsTo(Customer, { as: 'customer', foreignKey: 'customerId' });

// #region resource
export const orders = resource(Order, {
  policy: { fillable: ['status', 'total', 'items'] },
  // Filters, sorts and groupBy may go through the customer (filter[customer.country]=FR, groupBy=customer.country).
  relations: { customer: {} },
  // Opens GET /orders/aggregate: group by any filterable column or path, measure any filterable numeric column.
  aggregate: true,
});
// #endregion resource

// #region narrow
/** The class form declares it with a field; an object narrows what may be grouped and measured. */
export class OrderController extends CrudController.for(Order) {
  override fillable = ['status', 'total', 'items'] as const;
  override relations = { customer: {} };
  // Group by status or the customer's country only; sum and average the total only (min and max keep the default).
  override aggregate = { groupBy: ['status', 'customer.country'], sum: ['total'], avg: ['total'] };
}
// #endregion narrow

// #region app
const router = new Router({ prefix: '/api' });
const config = { global: { find_field_is_uuid: false }, aggregate: { max_groups: 500 } };
crud(router, 'orders', orders, { config });
crud(router, 'class-orders', OrderController, { config });
export const app = new Koa().use(router.routes()).use(router.allowedMethods());
// #endregion app
