/** Arbitrary rows and search requests for the model-based search test, with the model's own reading of them. */
import fc from 'fast-check';

/** A row of the model table. */
export interface ItemRow {
  readonly name: string | null;
  readonly rank: number;
  readonly qty: number | null;
  readonly active: boolean;
  readonly deleted: boolean;
}

export const itemRowArb: fc.Arbitrary<ItemRow> = fc.record({
  name: fc.option(fc.stringMatching(/^[a-d]{1,3}$/), { nil: null, freq: 5 }),
  rank: fc.integer({ min: 0, max: 5 }),
  qty: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null, freq: 4 }),
  active: fc.boolean(),
  deleted: fc.boolean(),
});

type Column = 'name' | 'rank' | 'qty' | 'active';
type Value = string | number | boolean;

/** One filter condition as the client writes it and as the model reads it. */
export interface FilterArb {
  readonly column: Column | 'deleted_at';
  readonly op: string;
  readonly text: string;
  readonly test: (row: ItemRow) => boolean;
}

const num = (column: 'rank' | 'qty') => fc.integer({ min: -3, max: 5 }).map((n) => ({ n, column }));
const cmp = (x: number | null, f: (x: number) => boolean) => x !== null && f(x);

const numberFilter = (column: 'rank' | 'qty'): fc.Arbitrary<FilterArb> =>
  fc.oneof(
    ...(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'gtn', 'ltn'] as const).map((op) =>
      num(column).map(({ n }): FilterArb => ({
        column, op, text: String(n),
        test: (row) => {
          const x = row[column];
          switch (op) {
            case 'eq': return x === n;
            case 'neq': return cmp(x, (v) => v !== n);
            case 'gt': return cmp(x, (v) => v > n);
            case 'gte': return cmp(x, (v) => v >= n);
            case 'lt': return cmp(x, (v) => v < n);
            case 'lte': return cmp(x, (v) => v <= n);
            case 'gtn': return x === null || x > n;
            case 'ltn': return x === null || x < n;
          }
        },
      })),
    ),
    fc.uniqueArray(fc.integer({ min: -3, max: 5 }), { minLength: 1, maxLength: 3 }).chain((values) =>
      fc.constantFrom('in', 'nin').map((op): FilterArb => ({
        column, op, text: values.join(','),
        test: (row) => cmp(row[column], (v) => values.includes(v) === (op === 'in')),
      })),
    ),
    fc.tuple(fc.integer({ min: -3, max: 5 }), fc.integer({ min: -3, max: 5 })).map(([a, b]): FilterArb => ({
      column, op: 'btw', text: `${a},${b}`, test: (row) => cmp(row[column], (v) => a <= v && v <= b),
    })),
    fc.constant<FilterArb>({ column, op: 'nn', text: '1', test: (row) => row[column] !== null }),
  );

const nameFilter: fc.Arbitrary<FilterArb> = fc.oneof(
  fc.stringMatching(/^[a-dA-D]{1,2}$/).map((text): FilterArb => ({
    column: 'name', op: 'like', text, test: (row) => row.name !== null && row.name.includes(text.toLowerCase()),
  })),
  fc.stringMatching(/^[a-d]{1,3}$/).map((text): FilterArb => ({ column: 'name', op: 'eq', text, test: (row) => row.name === text })),
  fc.constant<FilterArb>({ column: 'name', op: 'nn', text: '1', test: (row) => row.name !== null }),
);

const activeFilter = fc.boolean().map((b): FilterArb => ({ column: 'active', op: 'eq', text: String(b), test: (row) => row.active === b }));
const trashFilter = fc.constant<FilterArb>({ column: 'deleted_at', op: 'nn', text: '1', test: (row) => row.deleted });

/** A generated search request. */
export interface SearchValue {
  readonly filters: FilterArb[];
  readonly sort: [Column, boolean][];
  readonly page: { page: number; perPage: number } | null;
}

/** A search request: filters, sort, page, and how the model reads it. */
export const searchArb: fc.Arbitrary<SearchValue> = fc.record({
  filters: fc.uniqueArray(fc.oneof(numberFilter('rank'), numberFilter('qty'), nameFilter, activeFilter, trashFilter), {
    maxLength: 3,
    selector: (f) => `${f.column}.${f.op}`,
  }),
  sort: fc.uniqueArray(fc.tuple(fc.constantFrom<Column>('name', 'rank', 'qty', 'active'), fc.boolean()), { maxLength: 3, selector: ([c]) => c }),
  page: fc.option(fc.record({ page: fc.integer({ min: 1, max: 4 }), perPage: fc.integer({ min: 1, max: 6 }) }), { nil: null }),
});

/** The query string of a generated request. */
export function queryOf({ filters, sort, page }: SearchValue): string {
  const parts = filters.map((f) => `filter[${f.column}][${f.op}]=${encodeURIComponent(f.text)}`);
  if (sort.length > 0) parts.push(`sort=${sort.map(([c, desc]) => (desc ? '-' : '') + c).join(',')}`);
  parts.push(page ? `page=${page.page}&perPage=${page.perPage}` : 'skipPagination=true');
  return parts.join('&');
}

/** The plain in-memory reading of a request: filter, sort with NULL smallest and id last, slice. */
export function modelSearch(rows: readonly (ItemRow & { id: number })[], request: SearchValue) {
  const trashed = request.filters.some((f) => f.column === 'deleted_at');
  const matching = rows.filter((row) => (trashed || !row.deleted) && request.filters.every((f) => f.test(row)));
  const compare = (a: Value | null, b: Value | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
  const sorted = [...matching].sort((a, b) => {
    for (const [column, desc] of request.sort) {
      const c = compare(a[column], b[column]);
      if (c !== 0) return desc ? -c : c;
    }
    return a.id - b.id;
  });
  const page = request.page;
  return { ids: (page ? sorted.slice((page.page - 1) * page.perPage, page.page * page.perPage) : sorted).map((r) => r.id), count: matching.length };
}
