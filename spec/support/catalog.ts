/** A product catalog for the action suites: every kind of attribute, a hidden one, soft deletes and a paranoid model. */
import { DataTypes, type Sequelize } from 'sequelize';

/** Defines the catalog's models with table names that start with `prefix`. */
export function defineCatalog(sequelize: Sequelize, prefix: string) {
  const id = { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true };
  const Category = sequelize.define(
    `${prefix}Category`,
    { id, name: { type: DataTypes.STRING(60), allowNull: false }, deletedAt: DataTypes.DATE },
    { tableName: `${prefix}_categories`, underscored: true, timestamps: false },
  );
  const Product = sequelize.define(
    `${prefix}Product`,
    {
      id,
      sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(60), allowNull: false, validate: { len: [1, 60] } },
      price: { type: DataTypes.DECIMAL(10, 2), allowNull: false, validate: { min: 0 } },
      stock: { type: DataTypes.INTEGER, allowNull: true },
      active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      releasedOn: { type: DataTypes.DATEONLY, allowNull: true },
      tags: { type: DataTypes.JSON, allowNull: true },
      secret: { type: DataTypes.STRING(40), allowNull: true },
      categoryId: { type: DataTypes.UUID, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
      deletedBy: { type: DataTypes.STRING(40), allowNull: true },
    },
    { tableName: `${prefix}_products`, underscored: true },
  );
  Product.belongsTo(Category, { as: 'category', foreignKey: 'categoryId', constraints: false });
  const Note = sequelize.define(
    `${prefix}Note`,
    { id, title: { type: DataTypes.STRING(60), allowNull: false } },
    { tableName: `${prefix}_notes`, underscored: true, paranoid: true },
  );
  const Tag = sequelize.define(
    `${prefix}Tag`,
    { id, title: DataTypes.STRING(60) },
    { tableName: `${prefix}_tags`, timestamps: false },
  );
  return { Category, Product, Note, Tag };
}

/** The catalog's models. */
export type Catalog = ReturnType<typeof defineCatalog>;

/** Drops and creates the catalog's tables. */
export async function syncCatalog(catalog: Catalog): Promise<void> {
  for (const model of Object.values(catalog)) await model.sync({ force: true });
}
