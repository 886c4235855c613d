/** A catalog with associations for the relation suites: belongs-to (Category, plain soft delete), a three-level chain Order → Customer (paranoid) → Country, has-many Tags (plain soft delete) and Reviews (paranoid). */
import { DataTypes, type Sequelize } from 'sequelize';

/** Defines the models with table names that start with `prefix`. */
export function defineRelationCatalog(sequelize: Sequelize, prefix: string) {
  const id = { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true };
  const plain = { underscored: true, timestamps: false };
  const Country = sequelize.define(
    `${prefix}Country`,
    { id, code: DataTypes.STRING(2) },
    { ...plain, tableName: `${prefix}_countries` },
  );
  const Customer = sequelize.define(
    `${prefix}Customer`,
    { id, email: DataTypes.STRING(60), secret: DataTypes.STRING(20), countryId: DataTypes.INTEGER },
    { underscored: true, paranoid: true, tableName: `${prefix}_customers` },
  );
  const Order = sequelize.define(
    `${prefix}Order`,
    { id, placedOn: DataTypes.DATEONLY, customerId: DataTypes.INTEGER },
    { ...plain, tableName: `${prefix}_orders` },
  );
  const Category = sequelize.define(
    `${prefix}Category`,
    {
      id,
      name: DataTypes.STRING(60),
      rank: DataTypes.INTEGER,
      meta: DataTypes.JSON,
      secret: DataTypes.STRING(20),
      deletedAt: DataTypes.DATE,
    },
    { ...plain, tableName: `${prefix}_categories` },
  );
  const Product = sequelize.define(
    `${prefix}Product`,
    {
      id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
      name: { type: DataTypes.STRING(60), allowNull: false },
      price: { type: DataTypes.INTEGER, allowNull: false },
      categoryId: DataTypes.INTEGER,
      orderId: DataTypes.INTEGER,
    },
    { ...plain, tableName: `${prefix}_products` },
  );
  const Tag = sequelize.define(
    `${prefix}Tag`,
    { id, title: DataTypes.STRING(20), productId: DataTypes.UUID, deletedAt: DataTypes.DATE },
    { ...plain, tableName: `${prefix}_tags` },
  );
  const Review = sequelize.define(
    `${prefix}Review`,
    { id, body: DataTypes.STRING(60), productId: DataTypes.UUID },
    { underscored: true, paranoid: true, tableName: `${prefix}_reviews` },
  );
  Product.belongsTo(Category, { as: 'category', foreignKey: 'categoryId', constraints: false });
  Product.belongsTo(Order, { as: 'order', foreignKey: 'orderId', constraints: false });
  Order.belongsTo(Customer, { as: 'customer', foreignKey: 'customerId', constraints: false });
  Customer.belongsTo(Country, { as: 'country', foreignKey: 'countryId', constraints: false });
  Product.hasMany(Tag, { as: 'tags', foreignKey: 'productId', constraints: false });
  Product.hasMany(Review, { as: 'reviews', foreignKey: 'productId', constraints: false });
  return { Country, Customer, Order, Category, Product, Tag, Review };
}

/** The relation catalog's models. */
export type RelationCatalog = ReturnType<typeof defineRelationCatalog>;

/**
 * Drops, creates and fills the tables: six products, one with a soft-deleted category, one with no
 * category, one whose order's customer is soft-deleted; products with several matching tags, and
 * soft-deleted tags and reviews.
 */
export async function seedRelationCatalog(catalog: RelationCatalog): Promise<Record<string, string>> {
  for (const model of Object.values(catalog)) await model.sync({ force: true });
  const { Country, Customer, Order, Category, Product, Tag, Review } = catalog;
  await Country.bulkCreate([
    { id: 1, code: 'NL' },
    { id: 2, code: 'DE' },
  ]);
  await Customer.bulkCreate([
    { id: 1, email: 'a@b.c', secret: 'c1', countryId: 1 },
    { id: 2, email: 'x@y.z', secret: 'c2', countryId: 2 },
    { id: 3, email: 'gone@x.y', secret: 'c3', countryId: 1, deletedAt: new Date() },
  ]);
  await Order.bulkCreate([
    { id: 1, customerId: 1, placedOn: '2024-01-10' },
    { id: 2, customerId: 2, placedOn: '2024-02-20' },
    { id: 3, customerId: 3, placedOn: '2024-03-01' },
  ]);
  await Category.bulkCreate([
    { id: 1, name: 'Electronics', rank: 1, meta: { a: 1 }, secret: 's1' },
    { id: 2, name: 'Books', rank: 2, meta: { a: 2 }, secret: 's2' },
    { id: 3, name: 'Old Electronics', rank: 3, meta: { a: 1 }, secret: 's3', deletedAt: new Date() },
    { id: 4, name: 'Toys', rank: null, meta: null, secret: 's4' },
  ]);
  const rows = [
    { name: 'Phone', price: 300, categoryId: 1, orderId: 1 },
    { name: 'Laptop', price: 900, categoryId: 1, orderId: 2 },
    { name: 'Novel', price: 20, categoryId: 2, orderId: 1 },
    { name: 'Relic', price: 50, categoryId: 3, orderId: 3 },
    { name: 'Ball', price: 10, categoryId: 4, orderId: null },
    { name: 'Loose', price: 5, categoryId: null, orderId: null },
  ];
  const ids: Record<string, string> = {};
  for (const row of rows) ids[row.name] = (await Product.create(row)).get('id') as string;
  await Tag.bulkCreate([
    { title: 'new', productId: ids['Phone'] },
    { title: 'sale', productId: ids['Phone'] },
    { title: 'sale', productId: ids['Laptop'] },
    { title: 'salex', productId: ids['Laptop'] },
    { title: 'sale', productId: ids['Novel'], deletedAt: new Date() },
    { title: 'old', productId: ids['Novel'] },
  ]);
  await Review.bulkCreate([
    { body: 'good', productId: ids['Phone'] },
    { body: 'spam', productId: ids['Phone'], deletedAt: new Date() },
  ]);
  return ids;
}
