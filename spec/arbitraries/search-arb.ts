/** Arbitrary rows and search requests for the model-based search test, with the model's own reading of them. */
import fc from 'fast-check';

/** How many groups every generated world has; an item's `group` indexes them. */
export const GROUPS = 3;

/** A group (what items belong to): a name, maybe none, and maybe soft-deleted. */
export interface GroupRow {
  readonly name: string | null;
  readonly deleted: boolean;
}

/** A note (items have many): the index of its item, a text, maybe soft-deleted. */
export interface NoteRow {
  readonly item: number;
  readonly text: string;
  readonly deleted: boolean;
}

/** A row of the model table. */
export interface ItemRow {
  /** The index of its group, or null for an item without one. */
  readonly group: number | null;
  readonly name: string | null;
  readonly rank: number;
  readonly qty: number | null;
  readonly active: boolean;
  readonly deleted: boolean;
  /** An instant (ISO, UTC) at the edges of days and months, or null. */
  readonly seenAt: string | null;
}

/** Instants at the edges of days, months and a year. */
const EDGE_INSTANTS = [
  '2024-03-31T00:00:00.000Z',
  '2024-03-31T12:00:00.000Z',
  '2024-03-31T23:59:59.999Z',
  '2024-04-01T00:00:00.000Z',
  '2024-12-31T18:00:00.000Z',
  '2024-12-31T23:59:59.999Z',
  '2025-01-01T00:00:00.000Z',
] as const;

export const itemRowArb: fc.Arbitrary<ItemRow> = fc.record({
  group: fc.option(fc.integer({ min: 0, max: GROUPS - 1 }), { nil: null, freq: 4 }),
  name: fc.option(fc.stringMatching(/^[a-d]{1,3}$/), { nil: null, freq: 5 }),
  rank: fc.integer({ min: 0, max: 5 }),
  qty: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null, freq: 4 }),
  active: fc.boolean(),
  deleted: fc.boolean(),
  seenAt: fc.option(fc.constantFrom(...EDGE_INSTANTS), { nil: null, freq: 5 }),
});

/** A group row. */
export const groupRowArb: fc.Arbitrary<GroupRow> = fc.record({
  name: fc.option(fc.stringMatching(/^[a-d]{1,3}$/), { nil: null, freq: 6 }),
  deleted: fc.boolean(),
});

/** A note row; worldArb folds its item index onto the items there are. */
export const noteRowArb: fc.Arbitrary<NoteRow> = fc.record({
  item: fc.integer({ min: 0, max: 19 }),
  text: fc.stringMatching(/^[a-c]{1,3}$/),
  deleted: fc.boolean(),
});

/** Rows of the three tables: GROUPS groups, items, and notes of items that exist. */
export interface World {
  readonly groups: readonly GroupRow[];
  readonly items: readonly ItemRow[];
  readonly notes: readonly NoteRow[];
}

/** A world of groups, items and notes. */
export const worldArb: fc.Arbitrary<World> = fc
  .record({
    groups: fc.array(groupRowArb, { minLength: GROUPS, maxLength: GROUPS }),
    items: fc.array(itemRowArb, { maxLength: 20 }),
    notes: fc.array(noteRowArb, { maxLength: 16 }),
  })
  .map((world) => ({
    ...world,
    notes:
      world.items.length === 0 ? [] : world.notes.map((note) => ({ ...note, item: note.item % world.items.length })),
  }));

/**
 * An item as the model reads it: its id (index + 1), the name of its group when that group is
 * there and not soft-deleted (else null, as a SQL subquery finds none), and the texts of its live notes.
 */
export interface ModelRow extends ItemRow {
  readonly id: number;
  readonly groupName: string | null;
  readonly notes: readonly string[];
}

/** The items of a world as the model reads them. */
export function modelRows(world: World): ModelRow[] {
  return world.items.map((item, index) => {
    const group = item.group === null ? undefined : world.groups[item.group];
    return {
      ...item,
      id: index + 1,
      groupName: group === undefined || group.deleted ? null : group.name,
      notes: world.notes.filter((note) => note.item === index && !note.deleted).map((note) => note.text),
    };
  });
}

type Column = 'name' | 'rank' | 'qty' | 'active' | 'group.name';
type Value = string | number | boolean;

/** One filter condition as the client writes it and as the model reads it. */
export interface FilterArb {
  readonly column: Column | 'deleted_at' | 'seenAt' | 'seen_at' | 'notes.text';
  readonly op: string;
  readonly text: string;
  readonly test: (row: ModelRow) => boolean;
  /** True for a filter that adds no condition (a blank field): an `$or` item of only such filters drops out. */
  readonly none?: boolean;
}

const num = (column: 'rank' | 'qty') => fc.integer({ min: -3, max: 5 }).map((n) => ({ n, column }));
const cmp = (x: number | null, f: (x: number) => boolean) => x !== null && f(x);

const numberFilter = (column: 'rank' | 'qty'): fc.Arbitrary<FilterArb> =>
  fc.oneof(
    ...(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'gtn', 'ltn'] as const).map((op) =>
      num(column).map(({ n }): FilterArb => ({
        column,
        op,
        text: String(n),
        test: (row) => {
          const x = row[column];
          switch (op) {
            case 'eq':
              return x === n;
            case 'neq':
              return cmp(x, (v) => v !== n);
            case 'gt':
              return cmp(x, (v) => v > n);
            case 'gte':
              return cmp(x, (v) => v >= n);
            case 'lt':
              return cmp(x, (v) => v < n);
            case 'lte':
              return cmp(x, (v) => v <= n);
            case 'gtn':
              return x === null || x > n;
            case 'ltn':
              return x === null || x < n;
          }
        },
      })),
    ),
    fc.uniqueArray(fc.integer({ min: -3, max: 5 }), { minLength: 1, maxLength: 3 }).chain((values) =>
      fc.constantFrom('in', 'nin').map((op): FilterArb => ({
        column,
        op,
        text: values.join(','),
        test: (row) => cmp(row[column], (v) => values.includes(v) === (op === 'in')),
      })),
    ),
    fc.tuple(fc.integer({ min: -3, max: 5 }), fc.integer({ min: -3, max: 5 })).map(([a, b]): FilterArb => ({
      column,
      op: 'btw',
      text: `${a},${b}`,
      test: (row) => cmp(row[column], (v) => a <= v && v <= b),
    })),
    fc.constant<FilterArb>({ column, op: 'nn', text: '1', test: (row) => row[column] !== null }),
    fc.constant<FilterArb>({ column, op: 'null', text: '1', test: (row) => row[column] === null }),
  );

const nameFilter: fc.Arbitrary<FilterArb> = fc.oneof(
  fc.stringMatching(/^[a-dA-D]{1,2}$/).map((text): FilterArb => ({
    column: 'name',
    op: 'like',
    text,
    test: (row) => row.name !== null && row.name.includes(text.toLowerCase()),
  })),
  fc
    .stringMatching(/^[a-d]{1,3}$/)
    .map((text): FilterArb => ({ column: 'name', op: 'eq', text, test: (row) => row.name === text })),
  fc.constant<FilterArb>({ column: 'name', op: 'nn', text: '1', test: (row) => row.name !== null }),
  fc.constant<FilterArb>({ column: 'name', op: 'null', text: '', test: (row) => row.name === null }),
);

/** Through the belongs-to `group`: has a live group whose name matches (a missing or soft-deleted group never does). */
const groupFilter: fc.Arbitrary<FilterArb> = fc.oneof(
  fc.stringMatching(/^[a-dA-D]{1,2}$/).map((text): FilterArb => ({
    column: 'group.name',
    op: 'like',
    text,
    test: (row) => row.groupName !== null && row.groupName.includes(text.toLowerCase()),
  })),
  fc
    .stringMatching(/^[a-d]{1,3}$/)
    .map((text): FilterArb => ({ column: 'group.name', op: 'eq', text, test: (row) => row.groupName === text })),
  fc.uniqueArray(fc.stringMatching(/^[a-d]{1,2}$/), { minLength: 1, maxLength: 3 }).map((values): FilterArb => ({
    column: 'group.name',
    op: 'in',
    text: values.join(','),
    test: (row) => row.groupName !== null && values.includes(row.groupName),
  })),
  fc.constant<FilterArb>({ column: 'group.name', op: 'nn', text: '1', test: (row) => row.groupName !== null }),
);

/** Through the has-many `notes`: has a live note whose text matches, however many do. */
const notesFilter: fc.Arbitrary<FilterArb> = fc.oneof(
  fc.stringMatching(/^[a-cA-C]{1,2}$/).map((text): FilterArb => ({
    column: 'notes.text',
    op: 'like',
    text,
    test: (row) => row.notes.some((note) => note.includes(text.toLowerCase())),
  })),
  fc
    .stringMatching(/^[a-c]{1,2}$/)
    .map((text): FilterArb => ({ column: 'notes.text', op: 'eq', text, test: (row) => row.notes.includes(text) })),
);

const activeFilter = fc
  .boolean()
  .map((b): FilterArb => ({ column: 'active', op: 'eq', text: String(b), test: (row) => row.active === b }));
const trashFilter = fc.constant<FilterArb>({ column: 'deleted_at', op: 'nn', text: '1', test: (row) => row.deleted });

/**
 * The model's reading of a date-only, month or year value: its first and last millisecond in UTC
 * (the test database's time zone), counted from the calendar, not by the library's planner.
 */
function spanOf(text: string): [number, number] {
  const [year, month, day] = text.split('-').map(Number) as [number, number | undefined, number | undefined];
  const start = Date.UTC(year, (month ?? 1) - 1, day ?? 1);
  const next =
    day !== undefined
      ? Date.UTC(year, month! - 1, day + 1)
      : month !== undefined
        ? Date.UTC(year, month, 1)
        : Date.UTC(year + 1, 0, 1);
  return [start, next - 1];
}

const DATE_VALUES = [
  '2024-03-31',
  '2024-04-01',
  '2024-12-31',
  '2025-01-01',
  '2024-03',
  '2024-04',
  '2024-12',
  '2024',
  '2025',
] as const;
const seenColumn = fc.constantFrom<'seenAt' | 'seen_at'>('seenAt', 'seen_at');
const at = (row: ItemRow) => (row.seenAt === null ? null : Date.parse(row.seenAt));

const dateFilter: fc.Arbitrary<FilterArb> = fc.oneof(
  fc
    .tuple(
      seenColumn,
      fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'gtn', 'ltn'),
      fc.constantFrom(...DATE_VALUES),
    )
    .map(([column, op, text]): FilterArb => {
      const [from, to] = spanOf(text);
      return {
        column,
        op,
        text,
        test: (row) => {
          const x = at(row);
          switch (op) {
            case 'eq':
              return x !== null && from <= x && x <= to;
            case 'neq':
              return x !== null && (x < from || x > to);
            case 'gt':
              return x !== null && x > to;
            case 'gte':
              return x !== null && x >= from;
            case 'lt':
              return x !== null && x < from;
            case 'lte':
              return x !== null && x <= to;
            case 'gtn':
              return x === null || x > to;
            default:
              return x === null || x < from;
          }
        },
      };
    }),
  // btw, either side possibly empty (then gte or lte of the other; both empty: no condition).
  fc
    .tuple(seenColumn, fc.constantFrom('', ...DATE_VALUES), fc.constantFrom('', ...DATE_VALUES))
    .map(([column, low, high]): FilterArb => ({
      column,
      op: 'btw',
      text: `${low},${high}`,
      ...(low === '' && high === '' && { none: true }),
      test: (row) => {
        if (low === '' && high === '') return true;
        const x = at(row);
        return x !== null && (low === '' || spanOf(low)[0] <= x) && (high === '' || x <= spanOf(high)[1]);
      },
    })),
);

/** An empty or blank field of a search form: it adds no condition, whatever the operator (nn aside). */
const emptyFilter: fc.Arbitrary<FilterArb> = fc
  .tuple(
    fc.constantFrom<FilterArb['column']>(
      'name',
      'rank',
      'qty',
      'active',
      'seenAt',
      'seen_at',
      'group.name',
      'notes.text',
    ),
    fc.constantFrom('eq', 'neq', 'gt', 'lte', 'ltn', 'in', 'nin', 'btw'),
    fc.constantFrom('', ' ', '  ', ',', ' , '),
  )
  .map(([column, op, text]): FilterArb => {
    const blank = text.replaceAll(',', '');
    return {
      column,
      op,
      text: op === 'btw' ? `${blank},${blank}` : op === 'in' || op === 'nin' ? text : blank,
      test: () => true,
      none: true,
    };
  });

/** Padding that a value is trimmed of. */
const padded = (filter: fc.Arbitrary<FilterArb>) =>
  fc
    .tuple(filter, fc.constantFrom('', ' ', '  '), fc.constantFrom('', ' ', '\t'))
    .map(([f, left, right]): FilterArb =>
      f.op === 'nn' || f.op === 'null' ? f : { ...f, text: `${left}${f.text}${right}` },
    );

/**
 * A `filter[$or]` or `filter[$and]` group: items of filters (at least one each, so qs sees every index) and nested
 * groups, three groups deep at most.
 */
export interface GroupArb {
  readonly kind: '$or' | '$and';
  readonly items: readonly { readonly filters: readonly FilterArb[]; readonly groups: readonly GroupArb[] }[];
}

/** A generated search request. */
export interface SearchValue {
  readonly filters: FilterArb[];
  /** `$or`/`$and` groups, ANDed with the filters. */
  readonly groups?: readonly GroupArb[];
  readonly sort: [Column, boolean][];
  readonly page: { page: number; perPage: number } | null;
  /** A sparse fieldset (`fields=`), or none. */
  readonly fields?: readonly FieldName[] | null;
}

const anyFilterArb = padded(
  fc.oneof(
    numberFilter('rank'),
    numberFilter('qty'),
    nameFilter,
    activeFilter,
    trashFilter,
    dateFilter,
    emptyFilter,
    { weight: 2, arbitrary: groupFilter },
    { weight: 2, arbitrary: notesFilter },
  ),
);

/** A group `depth` groups down (1 to 3). */
function groupArb(depth: number): fc.Arbitrary<GroupArb> {
  const item = fc.record({
    filters: fc.uniqueArray(anyFilterArb, { minLength: 1, maxLength: 2, selector: (f) => `${f.column}.${f.op}` }),
    groups:
      depth >= 3
        ? fc.constant([])
        : fc.oneof(
            { weight: 3, arbitrary: fc.constant([]) },
            fc.tuple(fc.constant(null).chain(() => groupArb(depth + 1))),
          ),
  });
  return fc.record({
    kind: fc.constantFrom('$or' as const, '$and' as const),
    items: fc.array(item, { minLength: 1, maxLength: 3 }),
  });
}

type FieldName = 'id' | 'name' | 'rank' | 'qty' | 'active';

/** A search request: filters, `$or`/`$and` groups, sort, page, sparse fields, and how the model reads it. */
export const searchArb: fc.Arbitrary<SearchValue> = fc.record({
  filters: fc.uniqueArray(anyFilterArb, {
    maxLength: 3,
    selector: (f) => `${f.column}.${f.op}`,
  }),
  groups: fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    fc.uniqueArray(groupArb(1), { minLength: 1, maxLength: 2, selector: (group) => group.kind }),
  ),
  sort: fc.uniqueArray(fc.tuple(fc.constantFrom<Column>('name', 'rank', 'qty', 'active', 'group.name'), fc.boolean()), {
    maxLength: 3,
    selector: ([c]) => c,
  }),
  page: fc.option(fc.record({ page: fc.integer({ min: 1, max: 4 }), perPage: fc.integer({ min: 1, max: 6 }) }), {
    nil: null,
  }),
  fields: fc.option(
    fc.uniqueArray(fc.constantFrom<FieldName>('id', 'name', 'rank', 'qty', 'active'), { minLength: 1, maxLength: 5 }),
    { nil: null, freq: 2 },
  ),
});

/** The query string of a generated request. */
export function queryOf({ filters, groups = [], sort, page, fields }: SearchValue): string {
  const parts = filters.map((f) => `filter[${f.column}][${f.op}]=${encodeURIComponent(f.text)}`);
  // One group per key at each level (the arbitrary keeps to that): a second `$or` would add items to the first.
  const groupParts = (prefix: string, list: readonly GroupArb[]): string[] =>
    list.flatMap(({ kind, items }) =>
      items.flatMap(({ filters: own, groups: nested }, i) => {
        const at = `${prefix}[${kind}][${i}]`;
        return [
          ...own.map((f) => `${at}[${f.column}][${f.op}]=${encodeURIComponent(f.text)}`),
          ...groupParts(at, nested),
        ];
      }),
    );
  parts.push(...groupParts('filter', groups));
  // (a value's padding is sent as the client typed it: the library trims it)
  if (sort.length > 0) parts.push(`sort=${sort.map(([c, desc]) => (desc ? '-' : '') + c).join(',')}`);
  parts.push(page ? `page=${page.page}&perPage=${page.perPage}` : 'skipPagination=true');
  if (fields) parts.push(`fields=${fields.join(',')}`);
  return parts.join('&');
}

/**
 * The plain in-memory reading of a request: filter, sort with NULL smallest and id last, slice.
 * Sorting by `group.name` reads NULL for an item without a live group, so such items come first
 * ascending and last descending, as docs/guide/relations.md says.
 */
export function modelSearch(rows: readonly ModelRow[], request: SearchValue) {
  const groups = request.groups ?? [];
  const trashed = [...request.filters, ...groups.flatMap(filtersIn)].some((f) => f.column === 'deleted_at');
  const matching = rows.filter(
    (row) =>
      (trashed || !row.deleted) &&
      request.filters.every((f) => f.test(row)) &&
      groups.every((group) => groupTest(group)?.(row) ?? true),
  );
  const compare = (a: Value | null, b: Value | null) =>
    a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;
  const sorted = [...matching].sort((a, b) => {
    for (const [column, desc] of request.sort) {
      const c = column === 'group.name' ? compare(a.groupName, b.groupName) : compare(a[column], b[column]);
      if (c !== 0) return desc ? -c : c;
    }
    return a.id - b.id;
  });
  const page = request.page;
  const shown = page ? sorted.slice((page.page - 1) * page.perPage, page.page * page.perPage) : sorted;
  const fields = request.fields;
  return {
    ids: shown.map((r) => r.id),
    count: matching.length,
    // With a fieldset, each record as the reply shows it: those keys alone, in their order.
    records: fields ? shown.map((r) => Object.fromEntries(fields.map((name) => [name, r[name]]))) : undefined,
  };
}

/** Every filter of a group, at any depth. */
function filtersIn(group: GroupArb): FilterArb[] {
  return group.items.flatMap((item) => [...item.filters, ...item.groups.flatMap(filtersIn)]);
}

/**
 * The model's reading of a group: `$or` any item, `$and` every item, an item its filters and groups all; an item
 * whose filters are all blank and whose groups all drop out drops out, and a group without items (undefined).
 */
function groupTest(group: GroupArb): ((row: ModelRow) => boolean) | undefined {
  const items = group.items.flatMap(({ filters, groups }) => {
    const tests = [
      ...filters.filter((f) => f.none !== true).map((f) => f.test),
      ...groups.flatMap((nested) => groupTest(nested) ?? []),
    ];
    return tests.length === 0 ? [] : [(row: ModelRow) => tests.every((test) => test(row))];
  });
  if (items.length === 0) return undefined;
  return group.kind === '$or' ? (row) => items.some((test) => test(row)) : (row) => items.every((test) => test(row));
}
