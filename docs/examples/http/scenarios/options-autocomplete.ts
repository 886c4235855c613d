/** Options autocomplete examples (q, limit, filter) for docs/actions/options.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The labels containing "AN", case-insensitively, at most 3', request: 'GET /api/products/options?label=name&q=AN&limit=3' },
  { title: 'The first two labels, however long the list', request: 'GET /api/categories/options?label=name&limit=2' },
  { title: 'q with a filter through the category (the filter policy of search)', request: 'GET /api/products/options?label=name&q=a&filter[category.name]=Garden' },
  { title: 'A filter options cannot honour is refused, never ignored', request: 'GET /api/categories/options?label=name&q=o&filter[colour]=red' },
] satisfies Step[];
