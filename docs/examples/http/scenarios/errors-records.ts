/** Lookup and constraint errors of the single-record actions, for docs/guide/errors.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'No record has this id: `recordNotFound`', request: 'GET /api/products/99999999-9999-5999-8999-999999999999' },
  { title: 'find the soft-deleted product', request: 'GET /api/products?filter[deleted_at][nn]=1', save: { kite: 'data.0.id' }, hidden: true },
  { title: 'A soft-deleted record is not found either: `recordNotFound`', request: 'PATCH /api/products/{kite}', body: { price: 19 } },
  { title: 'A unique column that already holds the value: `unique`', request: 'POST /api/products', body: { sku: 'BK-001', name: 'Again', price: 1, categoryId: '4531b569-a7fe-5c9e-99f1-b812e711e71c' } },
  {
    title: 'A foreign key that points nowhere: `foreignKey`',
    request: 'POST /api/products',
    body: { sku: 'KT-003', name: 'Wok', price: 20, categoryId: '99999999-9999-5999-8999-999999999999' },
  },
  { title: 'Deleting a category that products still reference: `foreignKey`', request: 'DELETE /api/categories/73ba1e71-b805-55d7-a7af-b2cb40c02296' },
] satisfies Step[];
