/** Read examples for docs/actions/read.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The ukulele', request: 'GET /api/products?filter[sku]=MU-001', hidden: true, save: { ukulele: 'data.0.id' } },
  { title: 'One record by id', request: 'GET /api/products/{ukulele}' },
  { title: 'Only the named fields', request: 'GET /api/products/{ukulele}?fields=name,price' },
  { title: 'A uuid that matches no record', request: 'GET /api/products/00000000-0000-4000-8000-000000000000' },
  { title: 'A soft-deleted record is not found either', request: 'GET /api/products?filter[sku]=TY-002&filter[deleted_at][nn]=1', hidden: true, save: { kite: 'data.0.id' } },
  { title: 'The soft-deleted kite', request: 'GET /api/products/{kite}' },
  { title: 'A path segment that is not a uuid does not match the route at all', request: 'GET /api/products/42' },
] satisfies Step[];
