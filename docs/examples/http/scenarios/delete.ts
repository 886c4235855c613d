/** Delete examples for docs/actions/delete.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The watering can', request: 'GET /api/products?filter[sku]=GD-002', hidden: true, save: { can: 'data.0.id' } },
  { title: 'Delete the row', request: 'DELETE /api/products/{can}' },
  { title: 'It is gone', request: 'DELETE /api/products/{can}' },
] satisfies Step[];
