/** Relation examples for docs/guide/relations.md: filters, sorts and includes through the demo's associations. */
import type { Step } from '../exchange.js';

export default [
  { title: 'The cast iron pan', request: 'GET /api/products?filter[sku]=KT-001', hidden: true, save: { pan: 'data.0.id' } },
  {
    title: 'Products whose category name contains "ar" (Garden), each with its category included',
    request: 'GET /api/products?filter[category.name][like]=ar&include=category&sort=name',
  },
  { title: 'Sorted by the category name, dearest first within a category', request: 'GET /api/products?sort=category.name,-price&include=category&perPage=4' },
  { title: 'A read includes the same way', request: 'GET /api/products/{pan}?include=category' },
  {
    title: 'Through a has-many association: the categories that have a product dearer than 50, each listed once',
    request: 'GET /api/categories?filter[products.price][gt]=50&sort=name',
  },
  { title: 'A soft-deleted product never matches (the kite, TY-002, is in the trash)', request: 'GET /api/categories?filter[products.sku]=TY-002' },
  { title: 'A has-many path has no single value per row, so it does not sort', request: 'GET /api/categories?sort=products.name' },
  { title: 'Only associations declared with include: true may be included', request: 'GET /api/categories?include=products' },
  { title: 'A misspelt association is named as the client wrote it', request: 'GET /api/products?filter[categry.name]=Toys' },
] satisfies Step[];
