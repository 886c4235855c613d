/** The ability check, for docs/guide/errors.md. */
import type { Step } from '../exchange.js';

export default [
  {
    title: 'The ability check says no: `forbidden` (the demo takes the abilities from `x-demo-abilities`)',
    request: 'GET /api/products',
    headers: { 'x-demo-abilities': 'shop.access.view' },
  },
] satisfies Step[];
