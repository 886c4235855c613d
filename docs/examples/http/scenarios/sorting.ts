/** Sorting examples for docs/guide/sorting.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'Dearest first, then by name', request: 'GET /api/products?sort=-price,name&perPage=2' },
  {
    title: 'camelCase names work; rows that tie (the two books) are ordered by the primary key',
    request: 'GET /api/products?sort=categoryId&perPage=3',
  },
  {
    title: 'NULL sorts as the smallest value: last when descending (the filter brings in the trash)',
    request: 'GET /api/categories?filter[deletedAt][ltn]=2100-01-01&sort=-deletedAt,name&perPage=3',
  },
  {
    title: 'Through a belongs-to association: by category name, then cheapest first (see Relations)',
    request: 'GET /api/products?sort=category.name,price&include=category&perPage=3',
  },
  { title: 'Every unknown column is named as the client wrote it', request: 'GET /api/products?sort=-colourName,price,weight' },
] satisfies Step[];
