/** Filtering examples for docs/guide/filtering.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'A range, inclusive at both ends', request: 'GET /api/products?filter[price][btw]=20,40&sort=price&perPage=2' },
  { title: 'A list, and a case-insensitive "contains", ANDed', request: 'GET /api/products?filter[sku][in]=BK-001,GD-002&filter[name][like]=CAN' },
  {
    title: 'A search form as sent: padding is trimmed, an empty field adds no condition, a btw with one side empty is gte, a month is a date bound',
    request: 'GET /api/products?filter[name][like]=%20%20spade%20%20&filter[price][gt]=&filter[price][btw]=20,&filter[createdAt][gte]=2020-01',
  },
  {
    title: 'Every field of a search form left empty: no condition at all, relation paths included',
    request: 'GET /api/products?filter[term]=&filter[name][like]=&filter[price][btw]=,&filter[category.name][like]=%20&sort=name&perPage=2',
  },
  {
    title: 'Months as btw bounds: from the first millisecond of the first month to the last of the second (this brings in the trash, too)',
    request: 'GET /api/categories?filter[deletedAt][btw]=2020-01,2999-12',
  },
  { title: 'A relation path: the products whose category is Books (see Relations)', request: 'GET /api/products?filter[category.name]=Books&sort=name' },
  {
    title: 'Either condition: `$or` lists filters, any of which may match (here a name, or a Toys product under 40)',
    request: 'GET /api/products?filter[$or][0][name][like]=pan&filter[$or][1][category.name]=Toys&filter[$or][1][price][lt]=40&sort=name',
  },
  { title: 'The term search looks in every term field (here name and sku)', request: 'GET /api/products?filter[term]=gd&sort=sku' },
  { title: 'The trash: a filter on the deleted-at column replaces the default that hides it', request: 'GET /api/categories?filter[deletedAt][nn]=1' },
] satisfies Step[];
