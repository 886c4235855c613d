/**
 * docs/guide/react-admin.md: the demo's API as a react-admin data provider, and the calls a
 * react-admin app makes through it. `npm run docs:examples` runs `tour` against the demo and writes
 * the exchanges to docs/generated/react-admin.md; spec/docs/clients-pages.spec.ts runs it too.
 */
// #region provider
import { dataProvider, HttpError, type KoaFastCrudDataProvider } from 'koa-fast-crud/react-admin';

/**
 * The demo shop for `<Admin dataProvider={shopProvider('/api')}>`. Every request carries the
 * headers the function returns: here the demo's `x-demo-abilities`, in an app a bearer token.
 */
export function shopProvider(apiUrl: string, abilities?: string, fetch?: typeof globalThis.fetch): KoaFastCrudDataProvider {
  return dataProvider(apiUrl, {
    headers: (): Record<string, string> => (abilities === undefined ? {} : { 'x-demo-abilities': abilities }),
    ...(fetch && { fetch }),
  });
}
// #endregion provider

/** What the tour found, for the test. */
export interface TourResult {
  readonly total: number | undefined;
  readonly names: readonly string[];
  readonly categories: readonly string[];
  readonly books: number | undefined;
  readonly formErrors: unknown;
  readonly restored: unknown;
}

/** The calls a react-admin app makes: a list page, a reference field, an edit form the server refuses, trash and restore. */
export async function tour(provider: KoaFastCrudDataProvider): Promise<TourResult> {
  // #region list
  // A <List> with a search box (q), a price filter (price_gte), sorted by price, 3 per page.
  const page = await provider.getList('products', {
    filter: { q: 'o', price_gte: 20 },
    sort: { field: 'price', order: 'DESC' },
    pagination: { page: 1, perPage: 3 },
  });
  // A <ReferenceField source="categoryId" reference="categories">: one request for the page.
  const categoryIds = [...new Set(page.data.map((product) => product.categoryId as string))];
  const categories = await provider.getMany('categories', { ids: categoryIds });
  // A <ReferenceManyField reference="products" target="categoryId"> on a category's page.
  const books = await provider.getManyReference('products', {
    target: 'categoryId',
    id: categories.data.find((c) => c.name === 'Books')!.id,
    filter: {},
    sort: { field: 'name', order: 'ASC' },
    pagination: { page: 1, perPage: 10 },
  });
  // #endregion list

  // #region edit
  // An <Edit> form saving a negative price: the server's fail becomes body.errors, which
  // react-admin shows under the price input.
  const product = page.data[0]!;
  let formErrors: unknown;
  try {
    await provider.update('products', { id: product.id, data: { ...product, price: -1 }, previousData: product });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    formErrors = error.body?.['errors'];
  }
  // #endregion edit

  // #region trash
  // The extra methods: soft delete to the trash, list the trash, restore.
  await provider.softDelete('products', { id: product.id });
  await provider.getList('products', { filter: { deletedAt_nn: true }, sort: { field: 'name', order: 'ASC' }, pagination: { page: 1, perPage: 10 } });
  const restored = await provider.restore('products', { id: product.id });
  // #endregion trash

  return {
    total: page.total,
    names: page.data.map((p) => p.name as string),
    categories: categories.data.map((c) => c.name as string).sort(),
    books: books.total,
    formErrors,
    restored: restored.data['deletedAt'],
  };
}
