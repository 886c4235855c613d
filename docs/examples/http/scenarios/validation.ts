/** Validation examples for docs/guide/validation.md: the demo's product schema. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The kitchen category', request: 'GET /api/categories/options?label=name', hidden: true, save: { kitchen: 'data.2.value' } },
  {
    title: "A negative price breaks the demo's schema: nothing is written, and the issue names its field",
    request: 'POST /api/products',
    body: { sku: 'KT-020', name: 'Whisk', price: -4, categoryId: '{kitchen}' },
  },
  {
    title: 'A form body is checked the same way, its price as the text it was sent as',
    request: 'POST /api/products',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'sku=KT-020&name=Whisk&price=-4&categoryId={kitchen}',
  },
] satisfies Step[];
