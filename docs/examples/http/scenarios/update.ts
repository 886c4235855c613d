/** Update examples for docs/actions/update.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The ukulele', request: 'GET /api/products?filter[sku]=MU-001', hidden: true, save: { ukulele: 'data.0.id' } },
  { title: 'A partial update: only the fields sent change', request: 'PATCH /api/products/{ukulele}', body: { price: 84.5 } },
  { title: 'The same checks as create', request: 'PUT /api/products/{ukulele}', body: { name: null, price: 'a lot' } },
  { title: 'Fields outside the fillable list are ignored: nothing changes', request: 'PATCH /api/products/{ukulele}', body: { id: 'x', createdAt: '1999-01-01' } },
] satisfies Step[];
