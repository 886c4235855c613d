/** Sample data for the demo: a few categories and products, some of them soft-deleted. */
import type { DemoModels } from './models.js';

const CATEGORIES = ['Books', 'Garden', 'Kitchen', 'Music', 'Toys', 'Discontinued'];

const PRODUCTS: readonly [sku: string, name: string, price: string, category: string][] = [
  ['BK-001', 'The Pragmatic Programmer', '39.90', 'Books'],
  ['BK-002', 'Designing Data-Intensive Applications', '44.50', 'Books'],
  ['GD-001', 'Folding Spade', '24.00', 'Garden'],
  ['GD-002', 'Watering Can', '12.75', 'Garden'],
  ['KT-001', 'Cast Iron Pan', '54.00', 'Kitchen'],
  ['MU-001', 'Ukulele', '89.00', 'Music'],
  ['TY-001', 'Wooden Train Set', '35.00', 'Toys'],
  ['TY-002', 'Kite', '18.20', 'Toys'],
];

/** Creates the schema afresh and fills it; soft-deletes one category and one product. */
export async function seedDemo({ Category, Product }: DemoModels): Promise<void> {
  const sequelize = Category.sequelize!;
  await sequelize.sync({ force: true });
  const categories = await Category.bulkCreate(CATEGORIES.map((name) => ({ name })));
  const idOf = (name: string) => categories.find((c) => c.get('name') === name)!.get('id');
  await Product.bulkCreate(PRODUCTS.map(([sku, name, price, category]) => ({ sku, name, price, categoryId: idOf(category) })));
  const now = new Date();
  await Category.update({ deletedAt: now }, { where: { name: 'Discontinued' } });
  await Product.update({ deletedAt: now }, { where: { sku: 'TY-002' } });
}
