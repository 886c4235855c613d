/** Create examples for docs/actions/create.md. */
import type { Step } from '../exchange.js';

const kitchen = 'GET /api/categories/options?label=name';

export default [
  { title: 'The kitchen category', request: kitchen, hidden: true, save: { kitchen: 'data.2.value' } },
  {
    title: 'A new product; `id` is not fillable, so it is ignored',
    request: 'POST /api/products',
    body: { sku: 'KT-002', name: "Chef's Knife", price: 79.5, categoryId: '{kitchen}', id: 'ignored' },
  },
  {
    title: 'A form body (`application/x-www-form-urlencoded`): numeric text becomes a number, as in JSON',
    request: 'POST /api/products',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'sku=KT-005&name=Whisk&price=7.5&categoryId={kitchen}',
  },
  { title: 'A value that does not fit its column', request: 'POST /api/products', body: { sku: 'KT-003', price: 'cheap' } },
  { title: 'Missing required fields: one entry each', request: 'POST /api/products', body: { sku: 'KT-003' } },
  {
    title: 'A unique column already taken',
    request: 'POST /api/products',
    body: { sku: 'BK-001', name: 'Again', price: 1, categoryId: '{kitchen}' },
  },
  {
    title: 'A foreign key with no row behind it',
    request: 'POST /api/products',
    body: { sku: 'KT-004', name: 'Orphan', price: 1, categoryId: '00000000-0000-4000-8000-000000000000' },
  },
  { title: 'A body that is not JSON', request: 'POST /api/products', body: '{ "sku": ' },
  { title: 'A body that is not an object', request: 'POST /api/categories', body: [] },
] satisfies Step[];
