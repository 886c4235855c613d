import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import type { Model } from 'sequelize';
import { tenantScope, type ResourceSpec } from '../../lib/index.js';
import { parseCsv } from '../support/csv.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestResponse, type TestServer } from '../support/http.js';
import {
  TENANT_A,
  TENANT_B,
  defineLibrary,
  libraryWorld,
  resetTable,
  seedLibrary,
  type Library,
  type Row,
  type ScopedTable,
  type Table,
  type World,
} from '../support/tenant-library.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Runs per property, form and dialect. */
const RUNS = Number(process.env['FAST_CRUD_TENANT_RUNS'] ?? 40);

/** Each resource's association paths, with the table each reaches; every one is open to include, filter and sort. */
const PATHS: Readonly<Record<Table, Readonly<Record<string, Table>>>> = {
  publishers: { books: 'books', 'books.author': 'authors', 'books.chapters': 'chapters', 'books.tags': 'tags' },
  authors: { books: 'books', 'books.chapters': 'chapters', 'books.tags': 'tags' },
  books: {
    author: 'authors',
    'author.books': 'books',
    publisher: 'publishers',
    chapters: 'chapters',
    tags: 'tags',
    'tags.books': 'books',
  },
  chapters: { book: 'books', 'book.author': 'authors', 'book.tags': 'tags' },
  tags: { books: 'books', 'books.author': 'authors', 'books.chapters': 'chapters' },
  'book-tags': { book: 'books', 'book.author': 'authors', tag: 'tags' },
};

/** The belongs-to steps: the foreign key of `table.association` and the table it points into. */
const BELONGS_TO: Readonly<Record<string, readonly [string, Table]>> = {
  'books.author': ['authorId', 'authors'],
  'books.publisher': ['publisherId', 'publishers'],
  'chapters.book': ['bookId', 'books'],
  'book-tags.book': ['bookId', 'books'],
  'book-tags.tag': ['tagId', 'tags'],
};

/** The relation paths each resource sorts by (belongs-to chains), and the column that breaks ties. */
const SORTS: Readonly<Partial<Record<Table, readonly string[]>>> = {
  books: ['author.name', 'publisher.name'],
  chapters: ['book.title', 'book.author.name'],
  'book-tags': ['book.title', 'book.author.name', 'tag.name'],
};

/** Each table's text column (every scoped text value starts with its tenant's letter). */
const TEXT: Readonly<Record<Table, string | undefined>> = {
  publishers: 'name',
  authors: 'name',
  books: 'title',
  chapters: 'title',
  tags: 'name',
  'book-tags': undefined,
};

/** The foreign keys a client writes, with the table each points into. */
const KEYS: Readonly<Partial<Record<ScopedTable, Readonly<Record<string, Table>>>>> = {
  books: { authorId: 'authors', publisherId: 'publishers' },
  chapters: { bookId: 'books' },
  'book-tags': { bookId: 'books', tagId: 'tags' },
};

const SCOPED: readonly ScopedTable[] = ['authors', 'books', 'chapters', 'tags', 'book-tags'];
const TABLES: readonly Table[] = [...SCOPED, 'publishers'];
const CSV_TABLES = ['books', 'chapters', 'book-tags'] as const;

/** A value that no row holds, for the filter that matches nothing. */
const NOTHING = { text: 'Z-nothing', id: '00000000-0000-4000-8000-000000000000' } as const;

const open = (table: Table) => Object.fromEntries(Object.keys(PATHS[table]).map((path) => [path, { include: true }]));

/** The resources: the scoped ones write only their text and keys (the plugin writes `libraryId`); exports walk dot paths. */
const SPECS: Readonly<Record<Table, ResourceSpec<Model>>> = {
  publishers: { policy: { fillable: ['name'] }, relations: open('publishers') },
  authors: { policy: { fillable: ['name'] }, relations: open('authors') },
  books: {
    policy: { fillable: ['title', 'authorId', 'publisherId'] },
    relations: open('books'),
    csv: {
      columns: columns(['id', 'title', 'libraryId', 'author.id', 'author.name', 'author.libraryId', 'publisher.name']),
    },
  },
  chapters: {
    policy: { fillable: ['title', 'bookId'] },
    relations: open('chapters'),
    csv: {
      columns: columns([
        'id',
        'title',
        'book.id',
        'book.title',
        'book.libraryId',
        'book.author.id',
        'book.author.name',
      ]),
    },
  },
  tags: { policy: { fillable: ['name'] }, relations: open('tags') },
  'book-tags': {
    policy: { fillable: ['bookId', 'tagId'] },
    relations: open('book-tags'),
    csv: { columns: columns(['id', 'libraryId', 'book.id', 'book.title', 'tag.id', 'tag.name', 'book.author.name']) },
  },
};

/** CSV columns headed by their own paths, so a cell's column is known when the CSV is read back. */
function columns(paths: readonly string[]): Record<string, string> {
  return Object.fromEntries(paths.map((path) => [path, path]));
}

/**
 * The order the resources are registered in, per form: the class form registers the scoped ones
 * first and the unscoped publishers last; the resource form registers publishers first and books
 * (which every other path reaches) last. The scope belongs to the model either way.
 */
const ORDERS: Readonly<Record<'class' | 'resource', readonly Table[]>> = {
  class: ['books', 'authors', 'chapters', 'tags', 'book-tags', 'publishers'],
  resource: ['publishers', 'book-tags', 'tags', 'chapters', 'authors', 'books'],
};

const tenantOf = (ctx: { state: Record<string, unknown> }) => ctx.state['tenant'];

/** What marks tenant B's data in a reply: its ids, its `libraryId` and its `B-` text. */
interface Marks {
  readonly bIds: ReadonlyMap<string, string>;
  readonly scopedIds: ReadonlyMap<string, string>;
}

function marksOf(world: World): Marks {
  const bIds = new Map<string, string>();
  const scopedIds = new Map<string, string>();
  const names = new Map(Object.entries(world.ids).map(([name, id]) => [id, name]));
  for (const table of SCOPED) {
    for (const row of world.rows[table]) {
      const name = `${table} ${names.get(row['id']!)}`;
      scopedIds.set(row['id']!, name);
      if (row['libraryId'] === TENANT_B) bIds.set(row['id']!, name);
    }
  }
  return { bIds, scopedIds };
}

/**
 * Where tenant B's data shows in a JSON reply, as `$.data[0].author.name = "B-Bob"`: a `B-` text,
 * B's tenant, or a record whose `id` is one of B's rows (a foreign key of A's own row may hold a
 * B id: that is A's data, so only `id` is read as a row of B).
 */
function leaksIn(value: unknown, marks: Marks, path = '$'): string[] {
  if (typeof value === 'string')
    return value.startsWith('B-') || value === TENANT_B ? [`${path} = ${JSON.stringify(value)}`] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => leaksIn(item, marks, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own =
    typeof record['id'] === 'string' && marks.bIds.has(record['id'])
      ? [`${path}.id is B's row (${marks.bIds.get(record['id'])})`]
      : [];
  return [...own, ...Object.entries(record).flatMap(([key, item]) => leaksIn(item, marks, `${path}.${key}`))];
}

/** Where any tenant's scoped row shows in a reply to a request without a tenant. */
function scopedIn(value: unknown, marks: Marks, path = '$'): string[] {
  if (typeof value === 'string')
    return /^[AB]-/.test(value) || value === TENANT_A || value === TENANT_B
      ? [`${path} = ${JSON.stringify(value)}`]
      : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => scopedIn(item, marks, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own =
    typeof record['id'] === 'string' && marks.scopedIds.has(record['id'])
      ? [`${path}.id is a scoped row (${marks.scopedIds.get(record['id'])})`]
      : [];
  const tenant = Object.hasOwn(record, 'libraryId') ? [`${path}.libraryId is present`] : [];
  return [
    ...own,
    ...tenant,
    ...Object.entries(record).flatMap(([key, item]) => scopedIn(item, marks, `${path}.${key}`)),
  ];
}

/** Where tenant B's data shows in an export: a `B-` or B-tenant cell, or an id column holding a B row's id. */
function leaksInCsv(text: string, marks: Marks): string[] {
  const [header = [], ...records] = parseCsv(text);
  return records.flatMap((record, line) =>
    record.flatMap((cell, index) => {
      const column = header[index] ?? `#${index}`;
      const idColumn = column === 'id' || column.endsWith('.id');
      if (cell.startsWith('B-') || cell === TENANT_B) return [`line ${line + 2}, ${column} = ${JSON.stringify(cell)}`];
      return idColumn && marks.bIds.has(cell)
        ? [`line ${line + 2}, ${column} is B's row (${marks.bIds.get(cell)})`]
        : [];
    }),
  );
}

/** A filter through a relation path, as a query-string item. */
interface Filter {
  readonly key: string;
  readonly op: 'eq' | 'neq' | 'like' | 'in' | 'nin';
  readonly value: string;
}

const filterParam = ({ key, op, value }: Filter) =>
  op === 'eq' ? `filter[${key}]=${encodeURIComponent(value)}` : `filter[${key}][${op}]=${encodeURIComponent(value)}`;

/** Every value of a column of a table, of both tenants. */
const valuesOf = (world: World, table: Table, column: string) =>
  world.rows[table].map((row) => row[column]!).filter((value) => value !== null);

/** A random filter through one of a resource's relation paths, on any tenant's value or on none. */
function filterArb(world: World, table: Table): fc.Arbitrary<Filter> {
  const choices = Object.entries(PATHS[table]).flatMap(([path, target]) => {
    const text = TEXT[target];
    const byText =
      text === undefined
        ? []
        : [
            {
              key: `${path}.${text}`,
              ops: ['eq', 'neq', 'like', 'in'] as const,
              values: [...valuesOf(world, target, text), 'B-', 'A-', NOTHING.text],
            },
          ];
    return [
      ...byText,
      { key: `${path}.id`, ops: ['eq', 'neq', 'in'] as const, values: [...valuesOf(world, target, 'id'), NOTHING.id] },
    ];
  });
  return fc.constantFrom(...choices).chain(({ key, ops, values }) =>
    fc.record({
      key: fc.constant(key),
      op: fc.constantFrom<Filter['op']>(...ops),
      value: fc.constantFrom(...values),
    }),
  );
}

/**
 * Filters through a relation path that match only `tenant`'s related rows (so, for another tenant,
 * the same rows as a filter that matches nothing), each with its twin that matches nothing: full
 * values, ids, and `like` probes (`B-`, `Bob`) that no other tenant's value of that column holds.
 */
function probes(world: World, table: Table, tenant: string | null): readonly (readonly [Filter, Filter])[] {
  const of = (target: Table) =>
    world.rows[target].filter((row) =>
      tenant === null ? row['libraryId'] !== undefined : row['libraryId'] === tenant,
    );
  const others = (target: Table) => world.rows[target].filter((row) => !of(target).includes(row));
  return Object.entries(PATHS[table]).flatMap(([path, target]) => {
    if (target === 'publishers') return [];
    const ids = of(target).flatMap((row): (readonly [Filter, Filter])[] =>
      (['eq', 'neq', 'in', 'nin'] as const).map((op) => [
        { key: `${path}.id`, op, value: row['id']! },
        { key: `${path}.id`, op, value: NOTHING.id },
      ]),
    );
    const text = TEXT[target];
    if (text === undefined) return ids;
    const theirs = of(target).map((row) => row[text]!);
    const held = (probe: string) =>
      others(target).some((row) => row[text]!.toLowerCase().includes(probe.toLowerCase()));
    const likes = [
      ...new Set([...theirs, ...theirs.map((value) => value.slice(0, 2)), ...theirs.map((value) => value.slice(2))]),
    ].filter((probe) => !held(probe));
    const key = `${path}.${text}`;
    const exact = theirs.flatMap((value): (readonly [Filter, Filter])[] =>
      (['eq', 'neq', 'in', 'nin'] as const).map((op) => [
        { key, op, value },
        { key, op, value: NOTHING.text },
      ]),
    );
    return [
      ...ids,
      ...exact,
      ...likes.map((value): readonly [Filter, Filter] => [
        { key, op: 'like', value },
        { key, op: 'like', value: NOTHING.text },
      ]),
    ];
  });
}

/** The value of a belongs-to chain (`book.author.name`) for a row as tenant A sees it: null where a step reaches a row A may not see. */
function reached(world: World, table: Table, row: Row, path: string): string | null {
  const steps = path.split('.');
  const column = steps.pop()!;
  let source: Table = table;
  let current: Row | undefined = row;
  for (const step of steps) {
    const [key, target] = BELONGS_TO[`${source}.${step}`]!;
    const id: string | null | undefined = current?.[key];
    current = world.rows[target].find(
      (candidate) => candidate['id'] === id && (target === 'publishers' || candidate['libraryId'] === TENANT_A),
    );
    source = target;
  }
  return current?.[column] ?? null;
}

/** Tenant A's rows of a table in the order `sort=<dir><path>,<tie>` gives when B's rows are absent: no related row first ascending, last descending. */
function expectedOrder(world: World, table: Table, path: string, descending: boolean, tie: string): string[] {
  // NULL is the smallest value on every dialect: first ascending, last descending.
  const rank = (value: string | null) => value ?? '';
  return world.rows[table]
    .filter((row) => row['libraryId'] === TENANT_A)
    .map((row) => ({ row, value: rank(reached(world, table, row, path)) }))
    .sort(
      (x, y) =>
        (descending ? -1 : 1) * (x.value < y.value ? -1 : x.value > y.value ? 1 : 0) ||
        (x.row[tie]! < y.row[tie]! ? -1 : 1),
    )
    .map(({ row }) => row['id']!);
}

for (const db of databases)
  for (const form of FORMS) {
    const order = ORDERS[form.name];
    describe(
      `tenant boundary (${form.name} form, ${order[0] === 'publishers' ? 'unscoped resource registered first' : 'scoped resources registered first'}) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        let server: TestServer;
        let library: Library;
        const world = libraryWorld();
        const marks = marksOf(world);
        const { ids } = world;
        const errors: unknown[] = [];

        before(async () => {
          library = defineLibrary(db.sequelize!, `tb${form.initial}`);
          await seedLibrary(library, world);
          const router = new Router();
          for (const table of order) {
            const plugins = table === 'publishers' ? [] : [tenantScope('libraryId', tenantOf)];
            form.register(router, table, library[table], SPECS[table], { plugins });
          }
          const app = new Koa().use(async (ctx, next) => {
            const tenant = ctx.get('x-tenant');
            if (tenant !== '') ctx.state['tenant'] = tenant;
            await next();
          });
          server = await serve(app.use(router.routes()), errors);
        });
        after(() => server?.close());

        /** A request as `tenant` (none when null); a 5xx or a server fault fails the test, naming the request. */
        const send = async (
          tenant: string | null,
          method: string,
          path: string,
          body?: unknown,
        ): Promise<TestResponse> => {
          errors.length = 0;
          const headers: Record<string, string> = {
            'content-type': 'application/json',
            ...(tenant !== null && { 'x-tenant': tenant }),
          };
          const res = await server.request(method, path, {
            headers,
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          assert.ok(
            res.status < 500 && errors.length === 0,
            `${method} ${path} ${body === undefined ? '' : JSON.stringify(body)} → ${res.status} ${res.text.slice(0, 400)}\n${errors.map(String).join('\n')}`,
          );
          return res;
        };
        const asA = (path: string) => send(TENANT_A, 'GET', path);
        const ok = (res: TestResponse, what: string, status = 200) =>
          assert.equal(res.status, status, `${what} → ${res.status} ${res.text.slice(0, 400)}`);
        const noLeak = (res: TestResponse, what: string) => {
          const found = leaksIn(res.body, marks);
          assert.deepEqual(found, [], `${what} carries tenant B's data:\n  ${found.join('\n  ')}`);
        };
        const named = (rows: readonly { id: string }[]) => rows.map((row) => marks.scopedIds.get(row.id) ?? row.id);
        const countOf = (table: Table) => library[table].count();
        const rowOf = async (table: Table, id: string) =>
          (await library[table].findByPk(id, { raw: true })) as Record<string, unknown> | null;

        describe('examples', () => {
          it("GET /authors/{A's author}?include=books lists only A's books, not B's book by the same author", async () => {
            const res = await asA(`/authors/${ids['A-Ann']}?include=books`);
            ok(res, 'read');
            assert.deepEqual(named(res.body.data.books), ['books A-Atlas']);
          });

          it("filter[author.name] with B's author's name answers as a filter matching nothing", async () => {
            const res = await asA(`/books?filter[author.name][like]=B-Bob&sort=title`);
            ok(res, 'search');
            assert.deepEqual(named(res.body.data), []);
          });

          it("include=chapters and include=tags leave out B's chapter and B's tag of an A book", async () => {
            const res = await asA(`/books/${ids['A-Atlas']}?include=chapters,tags`);
            ok(res, 'read');
            assert.deepEqual(named(res.body.data.chapters), ['chapters A-Atlas-1']);
            assert.deepEqual(named(res.body.data.tags), ['tags A-Red']);
          });

          it("POST /books with B's author is a 409 foreignKey naming authorId, and writes nothing", async () => {
            const before = await countOf('books');
            try {
              const res = await send(TENANT_A, 'POST', '/books', { title: 'A-Taken', authorId: ids['B-Bob'] });
              ok(res, 'create', 409);
              assert.deepEqual(
                res.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
                [['authorId', 'foreignKey']],
              );
              assert.equal(await countOf('books'), before);
            } finally {
              await resetTable(library, world, 'books');
            }
          });

          it("POST /book-tags linking B's book is a 409 foreignKey naming bookId, and writes nothing", async () => {
            const before = await countOf('book-tags');
            try {
              const res = await send(TENANT_A, 'POST', '/book-tags', { bookId: ids['B-Blue'], tagId: ids['A-Red'] });
              ok(res, 'create', 409);
              assert.deepEqual(
                res.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
                [['bookId', 'foreignKey']],
              );
              assert.equal(await countOf('book-tags'), before);
            } finally {
              await resetTable(library, world, 'book-tags');
            }
          });

          it('a request without a tenant through the unscoped publishers includes no scoped book', async () => {
            const res = await send(null, 'GET', '/publishers?include=books&sort=name');
            ok(res, 'search');
            assert.deepEqual(
              res.body.data.map((row: { name: string; books: unknown[] }) => [row.name, row.books]),
              [
                ['P-Orbit', []],
                ['P-Quill', []],
              ],
            );
          });

          it('a request without a tenant to a scoped resource is still a 403', async () => {
            for (const table of SCOPED) ok(await send(null, 'GET', `/${table}`), `GET /${table}`, 403);
          });
        });

        it("search: no reply to A carries B's rows, whatever it includes, filters or sorts through", async () => {
          const arb = fc.constantFrom(...TABLES).chain((table) =>
            fc.record({
              table: fc.constant(table),
              include: fc.subarray(Object.keys(PATHS[table])),
              filters: fc.uniqueArray(filterArb(world, table), { maxLength: 2, selector: (filter) => filter.key }),
              sort: fc.option(fc.tuple(fc.constantFrom(...(SORTS[table] ?? ['id'])), fc.boolean()), { nil: undefined }),
            }),
          );
          await fc.assert(
            fc.asyncProperty(arb, async ({ table, include, filters, sort }) => {
              const params = [
                ...(include.length > 0 ? [`include=${include.join(',')}`] : []),
                ...filters.map(filterParam),
                ...(sort ? [`sort=${sort[1] ? '-' : ''}${sort[0]}`] : []),
              ];
              const path = `/${table}?${params.join('&')}`;
              const res = await asA(path);
              ok(res, `GET ${path}`);
              noLeak(res, `GET ${path}`);
            }),
            { numRuns: RUNS },
          );
        });

        it("filters through relations: one matching only B's related rows answers A as one matching nothing", async () => {
          const arb = fc
            .constantFrom(...TABLES)
            .chain((table) => fc.tuple(fc.constant(table), fc.constantFrom(...probes(world, table, TENANT_B))));
          await fc.assert(
            fc.asyncProperty(arb, async ([table, [probe, nothing]]) => {
              const path = (filter: Filter) => `/${table}?${filterParam(filter)}&sort=id&perPage=100`;
              const [theirs, none] = [await asA(path(probe)), await asA(path(nothing))];
              ok(theirs, `GET ${path(probe)}`);
              ok(none, `GET ${path(nothing)}`);
              assert.deepEqual(
                { rows: named(theirs.body.data), count: theirs.body.meta.pagination.count },
                { rows: named(none.body.data), count: none.body.meta.pagination.count },
                `GET ${decodeURIComponent(path(probe))} answers A otherwise than ${decodeURIComponent(filterParam(nothing))}, which matches none of A's related rows: B's related rows decide the match`,
              );
            }),
            { numRuns: RUNS },
          );
        });

        it("sorts through relations: A's rows sort as if B's related rows were absent", async () => {
          const arb = fc
            .constantFrom(...CSV_TABLES)
            .chain((table) => fc.tuple(fc.constant(table), fc.constantFrom(...SORTS[table]!), fc.boolean()));
          await fc.assert(
            fc.asyncProperty(arb, async ([table, path, descending]) => {
              const tie = TEXT[table] ?? 'id';
              const url = `/${table}?sort=${descending ? '-' : ''}${path},${tie}`;
              const res = await asA(url);
              ok(res, `GET ${url}`);
              assert.deepEqual(
                named(res.body.data),
                named(expectedOrder(world, table, path, descending, tie).map((id) => ({ id }))),
                `GET ${url}: the order shows where B's related rows sort`,
              );
            }),
            { numRuns: RUNS },
          );
        });

        it("read: A reads its own rows with any include and no B row, and B's rows are 404s", async () => {
          const arb = fc.constantFrom(...SCOPED).chain((table) =>
            fc.record({
              table: fc.constant(table),
              row: fc.constantFrom(...world.rows[table]),
              include: fc.subarray(Object.keys(PATHS[table])),
            }),
          );
          await fc.assert(
            fc.asyncProperty(arb, async ({ table, row, include }) => {
              const path = `/${table}/${row['id']}${include.length > 0 ? `?include=${include.join(',')}` : ''}`;
              const res = await asA(path);
              if (row['libraryId'] === TENANT_B) {
                ok(res, `GET ${path} (B's ${marks.bIds.get(row['id']!)})`, 404);
                assert.equal(res.body.data[0].error, 'recordNotFound');
              } else {
                ok(res, `GET ${path}`);
                assert.equal(res.body.data.id, row['id']);
              }
              noLeak(res, `GET ${path}`);
            }),
            { numRuns: RUNS },
          );
        });

        it("options: A's label/value items are A's rows only", async () => {
          const arb = fc.constantFrom(...SCOPED).chain((table) => {
            const attributes = Object.keys(world.rows[table][0]!);
            return fc.tuple(fc.constant(table), fc.constantFrom(...attributes), fc.constantFrom(...attributes));
          });
          await fc.assert(
            fc.asyncProperty(arb, async ([table, label, value]) => {
              const path = `/${table}/options?label=${label}&value=${value}`;
              const res = await asA(path);
              ok(res, `GET ${path}`);
              noLeak(res, `GET ${path}`);
              const ownIds =
                value === 'id'
                  ? res.body.data.flatMap((item: { value: string }) =>
                      marks.bIds.has(item.value) ? [marks.bIds.get(item.value)] : [],
                    )
                  : [];
              assert.deepEqual(ownIds, [], `GET ${path} lists B's rows`);
              assert.equal(
                res.body.data.length,
                world.rows[table].filter((row) => row['libraryId'] === TENANT_A).length,
                `GET ${path}: one item per row of A`,
              );
            }),
            { numRuns: RUNS },
          );
        });

        it("export-csv: no cell of A's export, dot paths included, is B's", async () => {
          const arb = fc.constantFrom(...CSV_TABLES).chain((table) =>
            fc.record({
              table: fc.constant(table),
              filters: fc.uniqueArray(filterArb(world, table), { maxLength: 2, selector: (filter) => filter.key }),
              sort: fc.option(fc.tuple(fc.constantFrom(...SORTS[table]!), fc.boolean()), { nil: undefined }),
            }),
          );
          await fc.assert(
            fc.asyncProperty(arb, async ({ table, filters, sort }) => {
              const params = [...filters.map(filterParam), ...(sort ? [`sort=${sort[1] ? '-' : ''}${sort[0]}`] : [])];
              const path = `/${table}/export-csv?${params.join('&')}`;
              const res = await asA(path);
              ok(res, `GET ${path}`);
              const found = leaksInCsv(res.text, marks);
              assert.deepEqual(found, [], `GET ${path} exports tenant B's data:\n  ${found.join('\n  ')}`);
            }),
            { numRuns: RUNS },
          );
        });

        it("writes: a foreign key to a row A may not see is a 409 naming the field and writes nothing; one to A's row is written", async () => {
          type Target = 'a' | 'b' | 'missing' | 'null';
          const arb = fc.constantFrom(...(Object.keys(KEYS) as ScopedTable[])).chain((table) => {
            const keys = KEYS[table]!;
            const target = (into: Table) =>
              fc
                .constantFrom<Target>(
                  ...(into === 'publishers' ? (['a', 'null'] as const) : (['a', 'b', 'missing', 'null'] as const)),
                )
                .chain((kind) =>
                  fc.tuple(
                    fc.constant(kind),
                    kind === 'null' || kind === 'missing'
                      ? fc.constant(kind === 'null' ? null : NOTHING.id)
                      : fc.constantFrom(
                          ...world.rows[into]
                            .filter(
                              (row) =>
                                into === 'publishers' || row['libraryId'] === (kind === 'a' ? TENANT_A : TENANT_B),
                            )
                            .map((row) => row['id']!),
                        ),
                  ),
                );
            return fc.record({
              table: fc.constant(table),
              update: fc.option(fc.constantFrom(...world.rows[table]), { nil: undefined }),
              keys: fc.record(
                Object.fromEntries(Object.entries(keys).map(([key, into]) => [key, target(into)])) as Record<
                  string,
                  fc.Arbitrary<[Target, string | null]>
                >,
              ),
            });
          });
          await fc.assert(
            fc.asyncProperty(arb, async ({ table, update, keys }) => {
              const body: Record<string, unknown> = {
                ...(TEXT[table] !== undefined && { [TEXT[table]!]: 'A-Written' }),
                ...Object.fromEntries(Object.entries(keys).map(([key, [, id]]) => [key, id])),
              };
              const [method, path] =
                update === undefined ? ['POST', `/${table}`] : ['PATCH', `/${table}/${update['id']}`];
              const what = `${method} ${path} ${JSON.stringify(body)} (${Object.entries(keys)
                .map(([key, [kind]]) => `${key}: ${kind}`)
                .join(', ')})`;
              const bad = Object.entries(keys).flatMap(([key, [kind]]) =>
                kind === 'b' || kind === 'missing' ? [key] : [],
              );
              const count = await countOf(table);
              try {
                const res = await send(TENANT_A, method, path, body);
                noLeak(res, what);
                if (update !== undefined && update['libraryId'] === TENANT_B) {
                  assert.ok(
                    res.status === 404 || res.status === 409,
                    `${what}: B's row → ${res.status} ${res.text.slice(0, 300)}`,
                  );
                  assert.deepEqual(await rowOf(table, update['id']!), { ...update }, `${what} changed B's row`);
                } else if (bad.length > 0) {
                  ok(res, what, 409);
                  const items = res.body.data as { field: string; error: string }[];
                  assert.ok(
                    items.length > 0 && items.every((item) => item.error === 'foreignKey' && bad.includes(item.field)),
                    `${what}: expected foreignKey items naming ${bad.join(' or ')}, got ${JSON.stringify(items)}`,
                  );
                  assert.equal(await countOf(table), count, `${what} added a row`);
                  if (update !== undefined)
                    assert.deepEqual(await rowOf(table, update['id']!), { ...update }, `${what} changed the row`);
                } else {
                  ok(res, what, update === undefined ? 201 : 200);
                  const written = await rowOf(table, res.body.data.id);
                  assert.ok(written !== null, `${what}: the row is not in the table`);
                  for (const [key, [, id]] of Object.entries(keys))
                    assert.equal(written[key], id, `${what}: ${key} not written`);
                  assert.equal(written['libraryId'], TENANT_A);
                }
              } finally {
                await resetTable(library, world, table);
              }
            }),
            { numRuns: RUNS },
          );
        });

        it('a request without a tenant through the unscoped publishers gets no scoped row, whatever it includes or filters', async () => {
          const arb = fc.record({
            include: fc.subarray(Object.keys(PATHS.publishers)),
            probe: fc.option(fc.constantFrom(...probes(world, 'publishers', null)), { nil: undefined }),
          });
          await fc.assert(
            fc.asyncProperty(arb, async ({ include, probe }) => {
              const params = (filter?: Filter) =>
                [
                  ...(include.length > 0 ? [`include=${include.join(',')}`] : []),
                  ...(filter ? [filterParam(filter)] : []),
                  'sort=name',
                ].join('&');
              const path = `/publishers?${params(probe?.[0])}`;
              const res = await send(null, 'GET', path);
              ok(res, `GET ${path} (no tenant)`);
              const found = scopedIn(res.body, marks);
              assert.deepEqual(found, [], `GET ${path} (no tenant) carries scoped rows:\n  ${found.join('\n  ')}`);
              if (probe !== undefined) {
                const none = await send(null, 'GET', `/publishers?${params(probe[1])}`);
                assert.deepEqual(
                  res.body.data,
                  none.body.data,
                  `GET ${decodeURIComponent(path)} (no tenant) answers otherwise than a filter matching nothing: scoped rows decide the match`,
                );
              }
            }),
            { numRuns: RUNS },
          );
        });
      },
    );
  }
