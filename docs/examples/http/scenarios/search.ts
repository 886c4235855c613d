/** Search examples for docs/actions/search.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The first page, dearest first, two per page', request: 'GET /api/products?sort=-price&perPage=2' },
  { title: 'A filter and a term search together', request: 'GET /api/products?filter[price][lt]=40&filter[term]=o&sort=name&perPage=3' },
  { title: 'A column the policy does not allow is a fail naming the parameter', request: 'GET /api/products?sort=colour' },
] satisfies Step[];
