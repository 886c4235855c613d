/** The query strings the explorer and generated clients send, for docs/guide/openapi.md. */
import type { Step } from '../exchange.js';

export default [
  {
    title: 'What "Try it out" sends for filter[price][gte] = 30 with the prefilled sort and include (brackets percent-encoded, as browsers and openapi-fetch send them)',
    request: 'GET /api/products?filter%5Bprice%5D%5Bgte%5D=30&sort=-sku,name&include=category&perPage=2',
  },
  {
    title: 'An array parameter as openapi-fetch sends it by default, one repetition per item: filter[sku][in] and sort',
    request: 'GET /api/products?filter%5Bsku%5D%5Bin%5D=BK-001&filter%5Bsku%5D%5Bin%5D=KT-001&sort=-price&sort=sku',
  },
  {
    title: 'The same list comma-separated, as the explorer sends an array with explode: false, and a btw',
    request: 'GET /api/products?filter%5Bsku%5D%5Bin%5D=BK-001,KT-001,MU-001&filter%5Bprice%5D%5Bbtw%5D=40&filter%5Bprice%5D%5Bbtw%5D=60',
  },
] satisfies Step[];
