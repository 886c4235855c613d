import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { CrudController, crud } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export const Category = sequelize.define(
  'Category',
  {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    name: { type: DataTypes.STRING, allowNull: false },
    deletedAt: DataTypes.DATE,
  },
  { tableName: 'categories', underscored: true },
);

class CategoryController extends CrudController {
  modelClassName() {
    return Category;
  }
}

const router = new Router({ prefix: '/api' });
crud(router, 'categories', CategoryController);

export const app = new Koa().use(router.routes()).use(router.allowedMethods());
