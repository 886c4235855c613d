/** Request-body errors of create and update, for docs/guide/errors.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'Malformed JSON: `invalidJson`', request: 'POST /api/products', body: '{ "sku": "KT-003",' },
  {
    title: 'A body that is neither JSON nor a form: `unsupportedMediaType`',
    request: 'POST /api/products',
    headers: { 'Content-Type': 'text/plain' },
    body: 'sku=KT-003&name=Wok',
  },
  {
    title: 'A form body beyond the query-string limits (here, nested deeper than 3 brackets): `invalidForm`',
    request: 'POST /api/products',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'sku=KT-003&tags[a][b][c][d]=red',
  },
  { title: 'An empty object (or an array, or a scalar): `emptyPayload`', request: 'POST /api/products', body: {} },
  { title: 'Values that do not fit their columns: `type`', request: 'POST /api/products', body: { sku: 'KT-003', name: 'Wok', price: 'cheap', categoryId: 'kitchen' } },
  { title: "The model's own validation: the validator's name (`is_null` for `allowNull: false`)", request: 'POST /api/products', body: { sku: 'KT-003' } },
] satisfies Step[];
