/** The demo's models: categories and products with uuid keys and a soft-delete column. */
import { DataTypes, type Sequelize } from 'sequelize';

/** Defines the demo's models on a connection. */
export function defineDemoModels(sequelize: Sequelize) {
  const id = { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true };
  const Category = sequelize.define(
    'Category',
    {
      id,
      name: { type: DataTypes.STRING(80), allowNull: false },
      deletedAt: DataTypes.DATE,
    },
    { tableName: 'categories', underscored: true },
  );
  const Product = sequelize.define(
    'Product',
    {
      id,
      sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(120), allowNull: false },
      price: { type: DataTypes.DECIMAL(10, 2), allowNull: false },
      categoryId: { type: DataTypes.UUID, allowNull: false },
      deletedAt: DataTypes.DATE,
    },
    { tableName: 'products', underscored: true },
  );
  Product.belongsTo(Category, { as: 'category', foreignKey: 'categoryId' });
  Category.hasMany(Product, { as: 'products', foreignKey: 'categoryId' });
  return { Category, Product };
}

/** The demo's models, as `defineDemoModels` returns them. */
export type DemoModels = ReturnType<typeof defineDemoModels>;
