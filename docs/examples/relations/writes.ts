/**
 * Relational writes (docs/guide/relations.md): an order's labels (belongs-to-many) set, added and removed, and its
 * lines (has-many) created with it, in the resource form and the class form.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type NonAttribute } from 'sequelize';
import { CrudController, crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

// #region models
export class Label extends Model<InferAttributes<Label>, InferCreationAttributes<Label>> {
  declare id: CreationOptional<number>;
  declare name: string;
}
export class Line extends Model<InferAttributes<Line>, InferCreationAttributes<Line>> {
  declare id: CreationOptional<number>;
  declare orderId: ForeignKey<number>;
  declare sku: string;
  declare quantity: number;
  declare price: CreationOptional<number>; // set by the server, never by a client
}
export class Order extends Model<InferAttributes<Order>, InferCreationAttributes<Order>> {
  declare id: CreationOptional<number>;
  declare customer: string;
  declare labels?: NonAttribute<Label[]>;
  declare lines?: NonAttribute<Line[]>;
}
const id = { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true };
const timestamps = false;
Label.init({ id, name: DataTypes.STRING }, { sequelize, tableName: 'labels', timestamps });
Line.init(
  {
    id,
    sku: { type: DataTypes.STRING(8), allowNull: false },
    quantity: { type: DataTypes.INTEGER, allowNull: false, validate: { min: 1 } },
    price: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  },
  { sequelize, tableName: 'lines', timestamps },
);
Order.init({ id, customer: DataTypes.STRING }, { sequelize, tableName: 'orders', timestamps });
Order.belongsToMany(Label, { as: 'labels', through: 'order_labels', foreignKey: 'orderId', otherKey: 'labelId', timestamps });
Order.hasMany(Line, { as: 'lines', foreignKey: 'orderId' });
// #endregion models

// #region resource
// `write: true` opens an association to create and update bodies; a has-many also names what a nested row may set.
export const orders = resource(Order, {
  policy: { fillable: ['customer'] },
  relations: {
    labels: { include: true, write: true },
    lines: { include: true, write: true, fillable: ['sku', 'quantity'] },
  },
});
// #endregion resource

// #region class
// The class form declares the same as a field.
export class OrderController extends CrudController.for(Order) {
  override fillable = ['customer'];
  override relations = {
    labels: { include: true, write: true },
    lines: { include: true, write: true, fillable: ['sku', 'quantity'] },
  };
}
// #endregion class

const router = new Router({ prefix: '/api' });
const config = { global: { find_field_is_uuid: false } };
crud(router, 'orders', orders, { config });
crud(router, 'class-orders', OrderController, { config });
crud(router, 'labels', resource(Label, { policy: { fillable: ['name'] } }), { config });
export const app = new Koa().use(router.routes());

/** Three labels, no orders. */
export async function seed(): Promise<void> {
  await sequelize.sync({ force: true });
  await Label.bulkCreate([{ name: 'gift' }, { name: 'urgent' }, { name: 'fragile' }]);
}
