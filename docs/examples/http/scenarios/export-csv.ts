/** CSV export examples for docs/actions/export-csv.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The kitchen category', request: 'GET /api/categories/options?label=name', hidden: true, save: { kitchen: 'data.2.value' } },
  {
    title: 'A product whose name a spreadsheet would run as a formula',
    request: 'POST /api/products',
    body: { sku: 'KT-009', name: '=HYPERLINK("http://example.com")', price: 9, categoryId: '{kitchen}' },
    hidden: true,
  },
  { title: "The search's filters and sort, every matching row, with the controller's columns", request: 'GET /api/products/export-csv?filter[price][lt]=30&sort=name' },
  {
    title: 'Relation filters and sorts work here too; the reply is never cached (`Cache-Control: no-store`)',
    request: 'GET /api/products/export-csv?filter[category.name][in]=Garden,Music&sort=-category.name,name',
  },
  { title: 'The columns fields names, in its order', request: 'GET /api/products/export-csv?fields=price,sku&filter[price][lt]=30&sort=sku' },
  { title: 'Text that starts like a formula is prefixed with a quote', request: 'GET /api/products/export-csv?filter[sku]=KT-009' },
  { title: 'The same checks as search', request: 'GET /api/products/export-csv?sort=colour' },
] satisfies Step[];
