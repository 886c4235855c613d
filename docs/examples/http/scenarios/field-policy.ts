/** What a client gets when it names a field outside the field policy, for docs/guide/field-policy.md. */
import type { Step } from '../exchange.js';

const garden = '78b43663-7b76-5b60-9593-4b5af228a695';

export default [
  {
    title: 'A filter or sort on a column outside the policy is a fail naming each one, and no query runs',
    request: 'GET /api/products?filter[colour]=red&sort=-weight',
  },
  {
    title: 'Products search their termFields (name and sku), case-insensitively',
    request: 'GET /api/products?filter[term]=bk&sort=sku',
  },
  {
    title: 'Categories declare no termFields, so a term search is refused',
    request: 'GET /api/categories?filter[term]=garden',
  },
  {
    title: 'Keys outside fillable are dropped before any check: the id and the deleted-at column are the server’s',
    request: 'POST /api/products',
    body: { id: 'my-own-id', sku: 'GD-003', name: 'Rake', price: 19.5, categoryId: garden, deletedAt: 'yesterday' },
    save: { rake: 'data.id' },
  },
  {
    title: 'An update whose keys are all outside fillable changes nothing',
    request: 'PATCH /api/products/{rake}',
    body: { id: 'my-own-id', deletedAt: 'yesterday' },
  },
  {
    title: 'An options label must be a visible attribute of the model',
    request: 'GET /api/products/options?label=colour',
  },
] satisfies Step[];
