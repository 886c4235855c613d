import assert from 'node:assert/strict';
import Router from '@koa/router';
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { crud, resource } from 'koa-fast-crud';
import { sequelize } from './minimal/app.js';

export class Order extends Model<InferAttributes<Order>, InferCreationAttributes<Order>> {
  declare id: CreationOptional<number>;
  declare reference: string;
}
Order.init(
  {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    reference: { type: DataTypes.STRING(20), allowNull: false },
  },
  { sequelize, tableName: 'orders' },
);

const orders = resource(Order, { policy: { fillable: ['reference'] } });

// By default {id} matches UUIDs only, which an integer key never is: crud refuses at startup.
assert.throws(() => crud(new Router(), 'orders', orders), {
  message:
    "crud('orders', resource(Order)): read, update, delete, softDelete and restore find {id} in Order.id (INTEGER), " +
    'but the routes take {id:uuid}: set config { global: { find_field_is_uuid: false } } to match such ids, ' +
    'or find_field to a UUID attribute',
});

// With find_field_is_uuid: false, {id} matches any segment and is read as the key's type:
// GET /api/orders/7 finds order 7; GET /api/orders/abc is a 404 that runs no query.
export const router = new Router({ prefix: '/api' });
crud(router, 'orders', orders, { config: { global: { find_field_is_uuid: false } } });
