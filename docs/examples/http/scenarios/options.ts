/** Options examples for docs/actions/options.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'Labels from name, values from the default value column (id); the soft-deleted category is left out', request: 'GET /api/categories/options?label=name' },
  { title: 'Any two columns: the sku as label, the name as value', request: 'GET /api/products/options?label=sku&value=name' },
  {
    title: 'No ability is checked: this client holds only shop.access.view, yet it gets the list',
    request: 'GET /api/categories/options?label=name&value=name',
    headers: { 'x-demo-abilities': 'shop.access.view' },
  },
] satisfies Step[];
