/** The ability check, for docs/guide/errors.md. */
import type { Step } from '../exchange.js';

export default [
  {
    title: 'The ability check says no: `forbidden` (the demo takes the abilities from `x-demo-abilities`)',
    request: 'GET /api/products',
    headers: { 'x-demo-abilities': 'shop.access.view' },
  },
  {
    title: 'A form on another site posts to the API in the user\'s browser: `crossOrigin`, before anything else',
    request: 'POST /api/categories',
    headers: { Origin: 'https://elsewhere.example', 'Sec-Fetch-Site': 'cross-site' },
    body: { name: 'Forged' },
  },
] satisfies Step[];
