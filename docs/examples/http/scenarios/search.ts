/** Search examples for docs/actions/search.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The first page, dearest first, two per page', request: 'GET /api/products?sort=-price&perPage=2' },
  { title: 'A filter and a term search together', request: 'GET /api/products?filter[price][lt]=40&filter[term]=o&sort=name&perPage=3' },
  { title: 'A sparse fieldset: the named fields alone, of the included category too', request: 'GET /api/products?fields=sku,name,category.name&include=category&sort=-price&perPage=2' },
  { title: 'The trash: a filter on the deleted-at column replaces the default that hides soft-deleted rows', request: 'GET /api/products?filter[deleted_at][nn]=1' },
  { title: 'Every mistake of a request at once, each naming its parameter', request: 'GET /api/products?filter[colour]=red&filter[price][like]=9&sort=weight' },
] satisfies Step[];
