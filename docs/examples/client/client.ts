import createClient from 'openapi-fetch';
import type { paths } from './demo-api.js';

/** A typed client for the demo API: paths, query parameters, bodies and replies come from its OpenAPI document. */
export function demoClient(baseUrl: string) {
  return createClient<paths>({ baseUrl: `${baseUrl}/api` });
}

/** Lists the categories, then creates a product in the first one and reads it back. */
export async function tour(baseUrl: string) {
  const api = demoClient(baseUrl);
  const options = await api.GET('/categories/options', { params: { query: { label: 'name' } } });
  const categoryId = String(options.data!.data[0]!.value);
  const created = await api.POST('/products', { body: { sku: 'TS-001', name: 'Typed Teapot', price: 25, categoryId } });
  // products has batch routes, so POST /products also takes an array: one object posted answers one record.
  const product = created.data!.data;
  if (Array.isArray(product)) throw new Error('one object posted, one record expected');
  const id = product.id;
  const read = await api.GET('/products/{id}', { params: { path: { id } } });
  const page = await api.GET('/products', { params: { query: { sort: ['-price'], perPage: 2 } } });
  return { created: created.response.status, name: read.data?.data.name, pageSize: page.data?.data.length };
}

// #region filtered
/** The products priced 30 or more, dearest first, with their category: every parameter is typed. */
export async function dearProducts(baseUrl: string) {
  const { data, error } = await demoClient(baseUrl).GET('/products', {
    params: { query: { 'filter[price][gte]': 30, sort: ['-price'], include: ['category'] } },
  });
  if (error) throw new Error('data' in error ? error.data.map((item) => item.message).join('; ') : error.message);
  return data.data.map((product) => ({ sku: product.sku, price: product.price, category: product.category?.name }));
}
// #endregion filtered

// #region conditional
/**
 * Two edits of one product from the same read: the first sends the read's ETag in If-Match and is written, the
 * second sends the same, now stale, ETag and is refused with 412. A read with the new ETag in If-None-Match is a 304.
 */
export async function conditionalEdits(baseUrl: string) {
  const api = demoClient(baseUrl);
  const page = await api.GET('/products', { params: { query: { sort: ['sku'], perPage: 1 } } });
  const id = page.data!.data[0]!.id;
  const read = await api.GET('/products/{id}', { params: { path: { id } } });
  const etag = read.response.headers.get('ETag')!;
  const first = await api.PATCH('/products/{id}', {
    params: { path: { id }, header: { 'If-Match': etag } },
    body: { price: 12.5 },
  });
  const second = await api.PATCH('/products/{id}', {
    params: { path: { id }, header: { 'If-Match': etag } },
    body: { price: 99 },
  });
  const fresh = first.response.headers.get('ETag')!;
  const cached = await api.GET('/products/{id}', { params: { path: { id }, header: { 'If-None-Match': fresh } } });
  return {
    statuses: [first.response.status, second.response.status, cached.response.status],
    refusal: second.error && 'data' in second.error ? second.error.data[0]!.error : undefined,
    changed: etag !== fresh,
  };
}
// #endregion conditional
