/** Filtering examples for docs/guide/filtering.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'A range, inclusive at both ends', request: 'GET /api/products?filter[price][btw]=20,40&sort=price&perPage=2' },
  { title: 'A list, and a case-insensitive "contains", ANDed', request: 'GET /api/products?filter[sku][in]=BK-001,GD-002&filter[name][like]=CAN' },
  {
    title: 'A search form as sent: padding is trimmed, an empty field adds no condition, a btw with one side empty is gte, a month is a date bound',
    request: 'GET /api/products?filter[name][like]=%20%20spade%20%20&filter[price][gt]=&filter[price][btw]=20,&filter[createdAt][gte]=2020-01',
  },
  { title: 'The term search looks in every term field (here name and sku)', request: 'GET /api/products?filter[term]=gd&sort=sku' },
  { title: 'The trash: a filter on the deleted-at column replaces the default that hides it', request: 'GET /api/categories?filter[deletedAt][nn]=1' },
] satisfies Step[];
