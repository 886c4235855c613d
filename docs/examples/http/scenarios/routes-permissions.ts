/** Denied and allowed requests for docs/guide/routes.md; the demo's `x-demo-abilities` header narrows what a request may do. */
import type { Step } from '../exchange.js';

const pan = 'fde044a2-3b55-5b39-a8ae-3f1e2cfe1378';

export default [
  {
    title: 'A caller without shop.access.search cannot list products: 403, and the action never runs',
    request: 'GET /api/products',
    headers: { 'x-demo-abilities': 'shop.access.view' },
  },
  {
    title: 'The same caller may read one product: reading needs shop.access.view',
    request: `GET /api/products/${pan}`,
    headers: { 'x-demo-abilities': 'shop.access.view' },
  },
  {
    title: 'Soft delete is guarded by shop.access.delete, as delete is',
    request: `DELETE /api/products/${pan}/soft`,
    headers: { 'x-demo-abilities': 'shop.access.view,shop.access.update' },
  },
  {
    title: 'options has no ability: a caller with none at all gets the list',
    request: 'GET /api/categories/options?label=name',
    headers: { 'x-demo-abilities': 'none' },
  },
] satisfies Step[];
