/**
 * Relations (docs/guide/relations.md): products filtered, sorted and included through their
 * category, their tags and their order's customer, in the resource form and the class form.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type NonAttribute } from 'sequelize';
import { CrudController, crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

// #region models
export class Category extends Model<InferAttributes<Category>, InferCreationAttributes<Category>> {
  declare id: CreationOptional<number>;
  declare name: string;
  declare buyer: string | null; // internal: never shown, filtered or sorted
  declare deletedAt: Date | null;
}
export class Customer extends Model<InferAttributes<Customer>, InferCreationAttributes<Customer>> {
  declare id: CreationOptional<number>;
  declare email: string;
}
export class Order extends Model<InferAttributes<Order>, InferCreationAttributes<Order>> {
  declare id: CreationOptional<number>;
  declare customerId: ForeignKey<number>;
  declare customer?: NonAttribute<Customer>;
}
export class Tag extends Model<InferAttributes<Tag>, InferCreationAttributes<Tag>> {
  declare id: CreationOptional<number>;
  declare title: string;
  declare productId: ForeignKey<number>;
}
export class Product extends Model<InferAttributes<Product>, InferCreationAttributes<Product>> {
  declare id: CreationOptional<number>;
  declare name: string;
  declare price: number;
  declare categoryId: ForeignKey<number | null>;
  declare orderId: ForeignKey<number | null>;
  declare category?: NonAttribute<Category>;
  declare order?: NonAttribute<Order>;
  declare tags?: NonAttribute<Tag[]>;
}
const id = { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true };
Category.init({ id, name: DataTypes.STRING, buyer: DataTypes.STRING, deletedAt: DataTypes.DATE }, { sequelize, tableName: 'categories', underscored: true, timestamps: false });
Customer.init({ id, email: DataTypes.STRING }, { sequelize, tableName: 'customers', paranoid: true });
Order.init({ id }, { sequelize, tableName: 'orders', timestamps: false });
Tag.init({ id, title: DataTypes.STRING }, { sequelize, tableName: 'tags', timestamps: false });
Product.init({ id, name: DataTypes.STRING, price: DataTypes.INTEGER }, { sequelize, tableName: 'products', timestamps: false });
Product.belongsTo(Category, { as: 'category', foreignKey: 'categoryId' });
Product.belongsTo(Order, { as: 'order', foreignKey: 'orderId' });
Order.belongsTo(Customer, { as: 'customer', foreignKey: 'customerId' });
Product.hasMany(Tag, { as: 'tags', foreignKey: 'productId' });
// #endregion models

// #region resource
// Each key opens one association path; a path not listed is a 400. Names are typed by the associated model.
export const products = resource(Product, {
  policy: { fillable: ['name', 'price'] },
  relations: {
    category: { hidden: ['buyer'], include: true },
    tags: { include: true },
    order: { filterable: [] },
    'order.customer': { filterable: ['email'], sortable: ['email'] },
  },
});
// #endregion resource

// #region class
// The class form declares the same as a field.
export class ProductController extends CrudController.for(Product) {
  override fillable = ['name', 'price'];
  override relations = {
    category: { hidden: ['buyer'], include: true },
    tags: { include: true },
    order: { filterable: [] },
    'order.customer': { filterable: ['email'], sortable: ['email'] },
  };
}
// #endregion class

const router = new Router({ prefix: '/api' });
// Integer ids: `{id}` is not a UUID here.
const config = { global: { find_field_is_uuid: false } };
crud(router, 'products', products, { config });
crud(router, 'class-products', ProductController, { config });
export const app = new Koa().use(router.routes());

/** Two categories (one soft-deleted), two customers, four products, some tags. */
export async function seed(): Promise<void> {
  await sequelize.sync({ force: true });
  await Category.bulkCreate([{ id: 1, name: 'Electronics', buyer: 'kim' }, { id: 2, name: 'Books', buyer: 'lee' }, { id: 3, name: 'Old', buyer: 'x', deletedAt: new Date() }]);
  await Customer.bulkCreate([{ id: 1, email: 'ada@example.com' }, { id: 2, email: 'bob@example.com' }]);
  await Order.bulkCreate([{ id: 1, customerId: 1 }, { id: 2, customerId: 2 }]);
  await Product.bulkCreate([
    { id: 1, name: 'Phone', price: 300, categoryId: 1, orderId: 1 },
    { id: 2, name: 'Laptop', price: 900, categoryId: 1, orderId: 2 },
    { id: 3, name: 'Novel', price: 20, categoryId: 2, orderId: 1 },
    { id: 4, name: 'Relic', price: 50, categoryId: 3, orderId: null },
  ]);
  await Tag.bulkCreate([{ title: 'sale', productId: 1 }, { title: 'sale', productId: 2 }, { title: 'salex', productId: 2 }, { title: 'new', productId: 3 }]);
}
