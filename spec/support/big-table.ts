/** A large table for the export test and benchmark: `rows` products in batches. */
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

/** Defines and fills `<prefix>_products` (default `big_products`) with `rows` rows; returns the model. */
export async function bigTable(sequelize: Sequelize, rows: number, prefix = 'big'): Promise<ModelStatic<Model>> {
  const Big = bigTable.define(sequelize, prefix);
  await Big.sync({ force: true });
  const batch = 5000;
  for (let start = 0; start < rows; start += batch) {
    const chunk = Array.from({ length: Math.min(batch, rows - start) }, (_, i) => {
      const n = start + i + 1;
      return {
        id: n,
        sku: `SKU-${n}`,
        name: `Product number ${n} with a longer descriptive name`,
        price: (n % 10000) / 100,
      };
    });
    await Big.bulkCreate(chunk, { validate: false, hooks: false });
  }
  return Big;
}

/** Defines `<prefix>_products` (default `big_products`) on a connection without touching the database. */
bigTable.define = (sequelize: Sequelize, prefix = 'big'): ModelStatic<Model> =>
  sequelize.define(
    prefix === 'big' ? 'BigProduct' : `${prefix}Product`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true },
      sku: { type: DataTypes.STRING(20), allowNull: false },
      name: { type: DataTypes.STRING(80), allowNull: false },
      price: { type: DataTypes.DECIMAL(10, 2), allowNull: false },
    },
    { tableName: `${prefix}_products`, timestamps: false },
  );
