/**
 * docs/guide/refine.md: the demo's API as a Refine data provider, and the calls a Refine app makes
 * through it. `npm run docs:examples` runs `tour` against the demo and writes the exchanges to
 * docs/generated/refine.md; spec/docs/clients-pages.spec.ts runs it too.
 */
// #region provider
import { dataProvider, HttpError, type KoaFastCrudRefineProvider } from 'koa-fast-crud/refine';

/**
 * The demo shop for `<Refine dataProvider={shopProvider('/api')}>`. Every request carries the
 * headers the function returns: here the demo's `x-demo-abilities`, in an app a bearer token.
 */
export function shopProvider(apiUrl: string, abilities?: string, fetch?: typeof globalThis.fetch): KoaFastCrudRefineProvider {
  return dataProvider(apiUrl, {
    headers: (): Record<string, string> => (abilities === undefined ? {} : { 'x-demo-abilities': abilities }),
    ...(fetch && { fetch }),
  });
}
// #endregion provider

/** What the tour found, for the test. */
export interface TourResult {
  readonly total: number;
  readonly names: readonly string[];
  readonly fieldErrors: unknown;
  readonly unsupported: string;
  readonly options: readonly unknown[];
}

/** The calls a Refine app makes: a table with filters, a form the server refuses, an unsupported operator, options. */
export async function tour(provider: KoaFastCrudRefineProvider): Promise<TourResult> {
  // #region list
  // useTable: the search box (q), a price range (between) and a category, sorted by price, 3 per page.
  const page = await provider.getList({
    resource: 'products',
    filters: [
      { field: 'q', operator: 'contains', value: 'o' },
      { field: 'price', operator: 'between', value: [20, 60] },
      { field: 'category.name', operator: 'ne', value: 'Toys' },
    ],
    sorters: [{ field: 'price', order: 'desc' }],
    pagination: { currentPage: 1, pageSize: 3 },
  });
  // #endregion list

  // #region edit
  // useForm saving a negative price: the fail becomes HttpError.errors, shown under the field.
  let fieldErrors: unknown;
  try {
    await provider.update({ resource: 'products', id: page.data[0]!['id'] as string, variables: { price: -1 } });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    fieldErrors = error.errors;
  }
  // #endregion edit

  // #region unsupported
  // An operator the server has no equivalent for throws before any request is sent.
  let unsupported = '';
  try {
    await provider.getList({ resource: 'products', filters: [{ field: 'name', operator: 'startswith', value: 'W' }] });
  } catch (error) {
    unsupported = (error as Error).message;
  }
  // #endregion unsupported

  // #region options
  // The options route, for a select box of categories.
  const options = await provider.getOptions({ resource: 'categories', label: 'name' });
  // #endregion options

  return { total: page.total, names: page.data.map((p) => p['name'] as string), fieldErrors, unsupported, options: options.data.map((o) => o.label) };
}
