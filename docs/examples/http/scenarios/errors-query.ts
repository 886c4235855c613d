/** Query-string errors of search, exportCsv and options, for docs/guide/errors.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'options without its required `label`: `required`', request: 'GET /api/categories/options' },
  {
    title: 'An unknown filter column, an operator that does not apply, an unknown sort column: `columnNotFound`, `invalidOperator`',
    request: 'GET /api/products?filter[colour]=red&filter[price][like]=9&sort=weight',
  },
  { title: 'A value column the table does not have: `columnNotFound`', request: 'GET /api/categories/options?label=name&value=code' },
  { title: 'A term search on a resource without term fields: `columnNotFound`', request: 'GET /api/categories?filter[term]=garden' },
  {
    title: 'Values that do not fit the column or the parameter: `invalidValue`',
    request: 'GET /api/products?filter[price][gt]=cheap&filter[categoryId]=kitchen&perPage=0',
  },
  {
    title: 'A parameter the action does not read, as another client library would send it: `unknownParameter`, with the nearest known name',
    request: 'GET /api/products?perpage=5&_sort=name',
  },
  {
    title: 'A query string nested deeper than nine brackets: `invalidValue`',
    request: 'GET /api/products?filter[$or][0][$and][0][$or][0][name][like][x][y]=1',
  },
] satisfies Step[];
