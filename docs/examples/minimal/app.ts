import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export class Category extends Model<InferAttributes<Category>, InferCreationAttributes<Category>> {
  declare id: CreationOptional<string>;
  declare name: string;
  declare deletedAt: CreationOptional<Date | null>;
}
Category.init(
  {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    name: { type: DataTypes.STRING, allowNull: false },
    deletedAt: DataTypes.DATE,
  },
  { sequelize, tableName: 'categories', underscored: true },
);

// What clients may do with categories. Names are checked by the compiler: 'nmae' does not compile.
export const categories = resource(Category, { policy: { fillable: ['name'] } });

const router = new Router({ prefix: '/api' });
crud(router, 'categories', categories);

export const app = new Koa().use(router.routes()).use(router.allowedMethods());
