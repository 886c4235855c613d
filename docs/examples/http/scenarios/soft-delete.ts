/** Soft delete and restore examples for docs/actions/soft-delete.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The spade', request: 'GET /api/products?filter[sku]=GD-001', hidden: true, save: { spade: 'data.0.id' } },
  { title: 'Soft-delete a row: the deleted-at column is set', request: 'DELETE /api/products/{spade}/soft' },
  { title: 'Search, read, update and the CSV no longer see it', request: 'GET /api/products/{spade}' },
  { title: 'The trash lists it', request: 'GET /api/products?filter[deleted_at][nn]=1&sort=sku&perPage=5' },
  { title: 'Restore it', request: 'PATCH /api/products/{spade}/restore' },
  { title: 'Restore finds only soft-deleted rows', request: 'PUT /api/products/{spade}/restore' },
] satisfies Step[];
