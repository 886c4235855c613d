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
  const id = created.data!.data.id!;
  const read = await api.GET('/products/{id}', { params: { path: { id } } });
  const page = await api.GET('/products', { params: { query: { sort: '-price', perPage: 2 } } });
  return { created: created.response.status, name: read.data?.data.name, pageSize: page.data?.data.length };
}
