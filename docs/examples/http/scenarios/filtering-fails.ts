/** Filtering mistakes for docs/guide/filtering.md. */
import type { Step } from '../exchange.js';

export default [
  {
    title: 'Every mistake at once: a value of the wrong type, an operator the column does not take, an unknown column',
    request: 'GET /api/products?filter[price][gte]=cheap&filter[name][json]=1&filter[colour]=red',
  },
  {
    title: 'Brackets nested deeper than nine levels',
    request: 'GET /api/products?filter[$or][0][$and][0][$or][0][name][like][x][y]=1',
  },
  { title: 'A date that does not exist', request: 'GET /api/products?filter[createdAt][lte]=2026-02-30' },
] satisfies Step[];
