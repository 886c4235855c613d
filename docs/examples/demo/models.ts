/** The demo's models: categories and products with uuid keys and a soft-delete column. */
import {
  DataTypes,
  type CreationOptional,
  type ForeignKey,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';

/** A category row, as `resource()` and the hooks see it. */
export interface CategoryRow extends Model<InferAttributes<CategoryRow>, InferCreationAttributes<CategoryRow>> {
  id: CreationOptional<string>;
  name: string;
  deletedAt: CreationOptional<Date | null>;
  /** The has-many association that category filters reach into (`filter[products.price][gt]=50`). */
  products?: NonAttribute<ProductRow[]>;
}

/** A product row; `category` is the association the CSV export reaches into. */
export interface ProductRow extends Model<InferAttributes<ProductRow>, InferCreationAttributes<ProductRow>> {
  id: CreationOptional<string>;
  sku: string;
  name: string;
  /** DECIMAL: a string when read back on some dialects, a number or a string when written. */
  price: number | string;
  categoryId: ForeignKey<string>;
  deletedAt: CreationOptional<Date | null>;
  category?: NonAttribute<CategoryRow>;
}

/** Defines the demo's models on a connection. */
export function defineDemoModels(sequelize: Sequelize) {
  const id = { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true };
  const Category = sequelize.define<CategoryRow>(
    'Category',
    {
      id,
      name: { type: DataTypes.STRING(80), allowNull: false },
      deletedAt: DataTypes.DATE,
    },
    { tableName: 'categories', underscored: true },
  );
  const Product = sequelize.define<ProductRow>(
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
