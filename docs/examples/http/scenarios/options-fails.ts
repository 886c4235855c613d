/** Options mistakes for docs/actions/options.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'label is required', request: 'GET /api/categories/options' },
  { title: 'label must be an attribute of the model', request: 'GET /api/categories/options?label=colour' },
  { title: 'value must be a column of the table', request: 'GET /api/products/options?label=name&value=legacy_code' },
] satisfies Step[];
