/** Pagination examples for docs/guide/pagination.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The second page of two', request: 'GET /api/categories?sort=name&perPage=2&page=2' },
  { title: 'A page past the end is empty, and says how many pages there are', request: 'GET /api/categories?sort=name&perPage=2&page=4' },
  { title: 'perPage above search.max_per_page (500) is lowered, not refused, and the reply says so', request: 'GET /api/categories?perPage=1000&filter[name][like]=oo' },
  { title: 'skipPagination=true returns every matching row as one page', request: 'GET /api/categories?skipPagination=true&filter[name][like]=o&sort=name' },
  { title: 'Values that are not positive integers are refused, each named', request: 'GET /api/categories?page=0&perPage=ten' },
] satisfies Step[];
