/** Sample data for the demo: a few categories and products, some of them soft-deleted. */
import { createHash } from 'node:crypto';
import type { DemoModels } from './models.js';

/**
 * A name-based (version 5 style) uuid, so the seeded rows keep their ids across restarts: links
 * into the demo stay valid, and the doc site's generated examples show the same ids every run.
 */
export function stableId(name: string): string {
  const hex = createHash('sha1').update(`koa-fast-crud demo:${name}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

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
  await Category.bulkCreate(CATEGORIES.map((name) => ({ id: stableId(`category:${name}`), name })));
  await Product.bulkCreate(
    PRODUCTS.map(([sku, name, price, category]) => ({ id: stableId(`product:${sku}`), sku, name, price, categoryId: stableId(`category:${category}`) })),
  );
  const now = new Date();
  await Category.update({ deletedAt: now }, { where: { name: 'Discontinued' } });
  await Product.update({ deletedAt: now }, { where: { sku: 'TY-002' } });
}
