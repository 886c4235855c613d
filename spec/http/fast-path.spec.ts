/**
 * The search fast path is honest: for random models (with and without getters, VIRTUAL attributes,
 * a custom toJSON or search.method, hidden fields, JSON columns, includes), the reply read from raw
 * rows is byte for byte the reply read from model instances, on every database and in both forms.
 * So are options answered with the driver's rows as the items and with copies of them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, type FindOptions, type Model, type ModelAttributeColumnOptions, type ModelStatic } from 'sequelize';
import { observeExecution } from '../../lib/execute/state.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const RUNS = Number(process.env['FAST_CRUD_FAST_PATH_RUNS'] ?? 10);

type Kind =
  'integer' | 'decimal' | 'float' | 'string' | 'text' | 'boolean' | 'date' | 'dateonly' | 'enum' | 'uuid' | 'json';

const TYPES: Record<Kind, () => ModelAttributeColumnOptions['type']> = {
  integer: () => DataTypes.INTEGER,
  decimal: () => DataTypes.DECIMAL(10, 2),
  float: () => DataTypes.DOUBLE,
  string: () => DataTypes.STRING(12),
  text: () => DataTypes.TEXT,
  boolean: () => DataTypes.BOOLEAN,
  date: () => DataTypes.DATE,
  dateonly: () => DataTypes.DATEONLY,
  enum: () => DataTypes.ENUM('red', 'green', 'blue'),
  uuid: () => DataTypes.UUID,
  json: () => DataTypes.JSON,
};

const VALUES: Record<Kind, fc.Arbitrary<unknown>> = {
  integer: fc.integer({ min: -100_000, max: 100_000 }),
  decimal: fc.integer({ min: -99_999, max: 99_999 }).map((n) => n / 100),
  float: fc.integer({ min: -9999, max: 9999 }).map((n) => n / 8),
  string: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map((s) => s.replaceAll('\u0000', '')),
  text: fc.string({ maxLength: 30 }).map((s) => s.replaceAll('\u0000', '')),
  boolean: fc.boolean(),
  // Whole seconds: MariaDB's DATETIME keeps no fraction.
  date: fc.integer({ min: 0, max: 2_000_000_000 }).map((s) => new Date(s * 1000)),
  dateonly: fc.integer({ min: 0, max: 40_000 }).map((d) => new Date(d * 86_400_000).toISOString().slice(0, 10)),
  enum: fc.constantFrom('red', 'green', 'blue'),
  uuid: fc.uuid(),
  json: fc.record({ a: fc.integer(), b: fc.string({ unit: 'grapheme-ascii', maxLength: 5 }) }),
};

interface Column {
  readonly kind: Kind;
  readonly nullable: boolean;
  readonly snake: boolean;
  readonly hidden: boolean;
}

interface Shape {
  readonly columns: Column[];
  readonly getter: boolean;
  readonly virtual: boolean;
  readonly customToJSON: boolean;
  readonly method: boolean;
  readonly include: boolean;
  readonly softDelete: boolean;
}

const shapeArb: fc.Arbitrary<Shape> = fc.record({
  columns: fc.array(
    fc.record({
      kind: fc.constantFrom(...(Object.keys(TYPES) as Kind[])),
      nullable: fc.boolean(),
      snake: fc.boolean(),
      hidden: fc.constantFrom(false, false, false, true),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  getter: fc.boolean(),
  virtual: fc.boolean(),
  customToJSON: fc.boolean(),
  method: fc.boolean(),
  include: fc.boolean(),
  softDelete: fc.boolean(),
});

/** A cursor walk's request: sort columns (by index, taken modulo the model's), a relation sort, filter, fields=. */
interface CursorQuery {
  readonly sort: readonly { readonly column: number; readonly descending: boolean }[];
  readonly relation: 'none' | 'cat.name' | '-cat.name';
  readonly perPage: number;
  readonly filter: string;
  readonly fields: boolean;
}

const cursorsArb: fc.Arbitrary<CursorQuery[]> = fc.array(
  fc.record({
    sort: fc.array(fc.record({ column: fc.nat(5), descending: fc.boolean() }), { maxLength: 3 }),
    relation: fc.constantFrom('none', 'cat.name', '-cat.name'),
    perPage: fc.integer({ min: 1, max: 4 }),
    filter: fc.constantFrom('', 'filter[id][gt]=2', 'filter[cat_id][eq]=2'),
    fields: fc.boolean(),
  }),
  { minLength: 1, maxLength: 3 },
);

/**
 * The query string of a cursor walk on a model: its sort names visible columns only (JSON columns cannot be sorted),
 * NULLs come from the nullable ones; `fields=` keeps the id, the foreign key and the first visible column.
 */
function cursorQuery(shape: Shape, cursor: CursorQuery): string {
  const sortable = shape.columns.flatMap((column, i) => (column.hidden || column.kind === 'json' ? [] : [i]));
  const sort = [
    ...(cursor.relation === 'none' ? [] : [cursor.relation]),
    ...(sortable.length === 0
      ? []
      : cursor.sort.map(({ column, descending }) => `${descending ? '-' : ''}a${sortable[column % sortable.length]}`)),
  ];
  const unique = [...new Set(sort.map((name) => name.replace(/^-/, '')))].map((name) =>
    sort.find((item) => item.replace(/^-/, '') === name)!,
  );
  const fields = ['id', 'cat_id', ...(sortable.length > 0 ? [`a${sortable[0]}`] : [])];
  return [
    unique.length > 0 ? `sort=${unique.join(',')}` : '',
    `perPage=${cursor.perPage}`,
    cursor.filter,
    cursor.fields ? `fields=${fields.join(',')}` : '',
  ]
    .filter((part) => part !== '')
    .join('&');
}

/** The queries each model is read with: plain, sorted, paged, filtered on nulls. */
const QUERIES = ['', 'sort=-id', 'perPage=3&page=2', 'skipPagination=1&sort=-id', 'filter[id][gt]=2'];

for (const db of databases)
  for (const form of FORMS) {
    describe(
      `search's fast path against its instance path (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        let server: TestServer;
        let current = new Router();
        let Category: ModelStatic<Model>;
        let serial = 0;

        before(async () => {
          Category = db.sequelize!.define(
            `Fp${form.initial}Category`,
            {
              id: { type: DataTypes.INTEGER, primaryKey: true },
              name: DataTypes.STRING(20),
              secret: DataTypes.STRING(20),
            },
            { tableName: `fp${form.initial}_categories`, timestamps: false },
          );
          await Category.sync({ force: true });
          await Category.bulkCreate([
            { id: 1, name: 'Kites', secret: 'x' },
            { id: 2, name: 'Tops', secret: 'y' },
          ]);
          // The observer: the x-search-path header forces a path, and each search's path and plan reuse come back as headers.
          observeExecution(db.sequelize!, {
            force: (ctx) => {
              const forced = (ctx as Koa.Context).get('x-search-path');
              return forced === 'instance' || forced === 'public' || forced === 'fast' ? forced : undefined;
            },
            searched: (ctx, { path, reused }) => {
              (ctx as Koa.Context).set('x-search-path-taken', path);
              (ctx as Koa.Context).set('x-search-plan-reused', String(reused));
            },
          });
          const app = new Koa();
          app.use((ctx, next) => current.routes()(ctx as never, next));
          server = await serve(app);
        });
        after(() => server?.close());

        it('returns byte-identical replies from raw rows and from instances, for random models', async () => {
          await fc.assert(
            fc.asyncProperty(
              shapeArb,
              fc.integer({ min: 0, max: 8 }),
              fc.nat(),
              cursorsArb,
              async (shape, rowCount, seed, cursors) => {
                serial += 1;
                const name = `fp${form.initial}_m${serial}`;
                const attributes: Record<string, ModelAttributeColumnOptions> = {
                  id: { type: DataTypes.INTEGER, primaryKey: true },
                  cat_id: { type: DataTypes.INTEGER, allowNull: true },
                };
                shape.columns.forEach((column, i) => {
                  attributes[`a${i}`] = {
                    type: TYPES[column.kind](),
                    allowNull: column.nullable || i > 0,
                    ...(column.snake && { field: `col_${i}_x` }),
                  };
                });
                if (shape.getter) {
                  attributes['a0'] = {
                    ...attributes['a0']!,
                    get(this: Model) {
                      const value = this.getDataValue('a0');
                      return value === null ? null : `<${String(value)}>`;
                    },
                  };
                }
                if (shape.virtual)
                  attributes['label'] = {
                    type: DataTypes.VIRTUAL,
                    get(this: Model) {
                      return `#${String(this.getDataValue('id'))}`;
                    },
                  };
                if (shape.softDelete) attributes['deleted_at'] = { type: DataTypes.DATE, allowNull: true };
                const Item = db.sequelize!.define(`Fp${form.initial}Item${serial}`, attributes, {
                  tableName: name,
                  timestamps: false,
                });
                Item.belongsTo(Category, { as: 'cat', foreignKey: 'cat_id', constraints: false });
                if (shape.customToJSON) {
                  Item.prototype.toJSON = function (this: Model) {
                    return { ...(this.get({ plain: true }) as object), tagged: true };
                  };
                }
                (Item.prototype as unknown as Record<string, unknown>)['toPublic'] = function (this: Model) {
                  return { public: true, ...(this.toJSON() as object) };
                };
                await Item.sync({ force: true });
                const rows = fc
                  .sample(
                    fc.record(
                      Object.fromEntries(
                        shape.columns.map((column, i) => [
                          `a${i}`,
                          column.nullable || i > 0
                            ? fc.option(VALUES[column.kind], { nil: null })
                            : VALUES[column.kind],
                        ]),
                      ),
                    ),
                    { numRuns: rowCount, seed },
                  )
                  .map((row, i) => ({
                    ...row,
                    id: i + 1,
                    cat_id: i % 3 === 0 ? null : (i % 2) + 1,
                    ...(shape.softDelete && { deleted_at: i % 4 === 3 ? new Date(0) : null }),
                  }));
                await Item.bulkCreate(rows as never[]);
                const hidden = shape.columns.flatMap((column, i) => (column.hidden ? [`a${i}`] : []));
                current = new Router();
                form.register(
                  current,
                  'items',
                  Item,
                  {
                    policy: { fillable: 'all', hidden },
                    relations: { cat: { include: true, hidden: ['secret'] } },
                  } as never,
                  { only: ['search'], ...(shape.method && { config: { search: { method: 'toPublic' } } }) },
                );
                const instanceOnly =
                  shape.getter ||
                  shape.virtual ||
                  shape.customToJSON ||
                  shape.method ||
                  shape.columns.some((c, i) => c.kind === 'json' && !hidden.includes(`a${i}`));
                // A sort on the first column, mapped to its own field name when it is snake-cased (an aliased ORDER BY).
                const sortable =
                  !shape.columns[0]!.hidden && !['json', 'text'].includes(shape.columns[0]!.kind)
                    ? ['sort=-a0,id&perPage=4']
                    : [];
                for (const query of [
                  ...QUERIES,
                  ...sortable,
                  ...(shape.include ? ['include=cat', 'include=cat&sort=-id&perPage=2'] : []),
                ]) {
                  const fast = await server.request('GET', `/items?${query}`);
                  const slow = await server.request('GET', `/items?${query}`, {
                    headers: { 'x-search-path': 'instance' },
                  });
                  // The fast executor through sequelize.query, where it would read on the driver connection.
                  const queried = await server.request('GET', `/items?${query}`, {
                    headers: { 'x-search-path': 'fast' },
                  });
                  // The public executor: findAll and count only.
                  const public_ = await server.request('GET', `/items?${query}`, {
                    headers: { 'x-search-path': 'public' },
                  });
                  // Again: the plan and the prepared select of the first request are reused (the fast path's SELECT head and ORDER BY came from its cache already), and must give the same bytes.
                  const cached = await server.request('GET', `/items?${query}`);
                  assert.equal(cached.text, fast.text, `${query} (cached SQL) on ${JSON.stringify(shape)}`);
                  assert.equal(fast.headers.get('x-search-plan-reused'), 'false');
                  assert.equal(fast.status, 200, `${query}: ${fast.text}`);
                  assert.equal(slow.headers.get('x-search-path-taken'), 'instance');
                  const instance = instanceOnly || query.includes('include=');
                  // The test databases log nothing and have no query hooks: the fast path runs on the driver.
                  assert.equal(
                    fast.headers.get('x-search-path-taken'),
                    instance ? 'instance' : 'driver',
                    `${query} on ${JSON.stringify(shape)}`,
                  );
                  assert.equal(
                    queried.headers.get('x-search-path-taken'),
                    instance ? 'instance' : 'fast',
                    `${query} on ${JSON.stringify(shape)}`,
                  );
                  assert.equal(
                    public_.headers.get('x-search-path-taken'),
                    instance ? 'instance' : 'public',
                    `${query} on ${JSON.stringify(shape)}`,
                  );
                  // Neither hooks nor plugins here: the query string alone decides the plan, in both forms.
                  assert.equal(
                    cached.headers.get('x-search-plan-reused'),
                    String(!instance),
                    `${query} on ${JSON.stringify(shape)}`,
                  );
                  assert.equal(cached.headers.get('x-search-path-taken'), instance ? 'instance' : 'driver');
                  assert.equal(fast.text, slow.text, `${query} on ${JSON.stringify(shape)}`);
                  assert.equal(queried.text, fast.text, `${query} (sequelize.query) on ${JSON.stringify(shape)}`);
                  assert.equal(public_.text, fast.text, `${query} (public executor) on ${JSON.stringify(shape)}`);
                }
                // Cursor pages: every page of a walk forward by next and back by prev, the same bytes (rows and cursors)
                // through each path, and read raw exactly where the offset pages above are.
                for (const cursor of cursors) {
                  const query = cursorQuery(shape, cursor);
                  const expected = instanceOnly ? 'instance' : undefined;
                  let firstPage: Awaited<ReturnType<TestServer['request']>> | undefined;
                  const pages = async (token: string) => {
                    const path = `/items?${query}&cursor=${encodeURIComponent(token)}`;
                    const fast = await server.request('GET', path);
                    if (token === '') firstPage = fast;
                    const context = `${path} on ${JSON.stringify(shape)}`;
                    const others: [Awaited<ReturnType<TestServer['request']>>, string][] = [];
                    for (const [forced, taken] of [
                      ['instance', 'instance'],
                      ['fast', expected ?? 'fast'],
                      ['public', expected ?? 'public'],
                    ] as const) {
                      const other = await server.request('GET', path, { headers: { 'x-search-path': forced } });
                      assert.equal(other.text, fast.text, `${forced}: ${context}`);
                      others.push([other, taken]);
                    }
                    // An unfollowable sort (a FLOAT or an ENUM on MariaDB) is the same 400 on every path, before a read.
                    if (fast.status !== 200) {
                      assert.equal(fast.status, 400, `${context}: ${fast.text}`);
                      return undefined;
                    }
                    assert.equal(fast.headers.get('x-search-path-taken'), expected ?? 'driver', context);
                    for (const [other, taken] of others)
                      assert.equal(other.headers.get('x-search-path-taken'), taken, `${taken}: ${context}`);
                    return (
                      JSON.parse(fast.text) as { meta: { pagination: { next: string | null; prev: string | null } } }
                    ).meta.pagination;
                  };
                  let page = await pages('');
                  let last = page;
                  for (let i = 0; page?.next != null && i < 10; i++) [last, page] = [page, await pages(page.next)];
                  let back = (page ?? last)?.prev ?? null;
                  for (let i = 0; back !== null && i < 10; i++) back = (await pages(back))?.prev ?? null;
                  // The first page again: its kept select (read raw) is reused, with the same bytes.
                  const again = await server.request('GET', `/items?${query}&cursor=`);
                  assert.equal(again.text, firstPage!.text, `${query} (reused) on ${JSON.stringify(shape)}`);
                  if (again.status === 200)
                    assert.equal(again.headers.get('x-search-plan-reused'), String(expected === undefined), query);
                }
                // Options: the raw rows are the items (selected label first), or copies when a hook selects a third column. Same bytes.
                current = new Router();
                const policy = { policy: { fillable: 'all', hidden } };
                const third = (query: FindOptions) => ({
                  ...query,
                  attributes: [...(query.attributes as unknown[]), ['id', 'extra']],
                });
                form.register(current, 'items', Item, policy as never, { only: ['options'] });
                form.register(current, 'copies', Item, { ...policy, hooks: { modifyOptionsQuery: third } } as never, {
                  only: ['options'],
                });
                for (const [i, column] of shape.columns.entries()) {
                  // PostgreSQL cannot sort by a json column.
                  if (column.hidden || column.kind === 'json') continue;
                  const path = `/options?label=a${i}&value=${i % 2 === 0 ? 'id' : `a${i}`}`;
                  const items = await server.request('GET', `/items${path}`);
                  assert.equal(items.status, 200, `${path}: ${items.text}`);
                  assert.equal(
                    items.text,
                    (await server.request('GET', `/copies${path}`)).text,
                    `${path} on ${JSON.stringify(shape)}`,
                  );
                  for (const executor of ['public', 'fast']) {
                    const forced = await server.request('GET', `/items${path}`, {
                      headers: { 'x-search-path': executor },
                    });
                    assert.equal(forced.text, items.text, `${path} (${executor} executor) on ${JSON.stringify(shape)}`);
                  }
                }
              },
            ),
            { numRuns: RUNS },
          );
        });

        it('reads through sequelize.query, with the same bytes, when a logger or a query hook would see the queries', async () => {
          const sequelize = db.sequelize!;
          const logged: string[] = [];
          const register = (logging: boolean) => {
            current = new Router();
            form.register(
              current,
              'cats',
              Category,
              {
                policy: { fillable: 'all' },
                ...(logging && {
                  hooks: {
                    modifySearchQuery: (query: object) => ({ ...query, logging: (sql: string) => logged.push(sql) }),
                  },
                }),
              } as never,
              { only: ['search', 'options'] },
            );
          };
          const get = async (path: string) => {
            const reply = await server.request('GET', path);
            assert.equal(reply.status, 200, reply.text);
            return { text: reply.text, taken: reply.headers.get('x-search-path-taken') };
          };
          register(false);
          const plain = await get('/cats?sort=-name');
          assert.equal(plain.taken, 'driver');
          const options = (await get('/cats/options?label=name')).text;

          // A query's own logger: every statement is handed to it, as sequelize.query logs it.
          register(true);
          const withLogger = await get('/cats?sort=-name');
          assert.equal(withLogger.taken, 'fast');
          assert.equal(withLogger.text, plain.text);
          // The page and the count: one statement on SQLite, two in one REPEATABLE READ transaction elsewhere.
          assert.equal(
            logged.filter((line) => line.startsWith('Executing (') && line.includes('SELECT')).length,
            db.dialect === 'sqlite' ? 1 : 2,
            logged.join('\n'),
          );

          // The instance's logger.
          register(false);
          const lines: string[] = [];
          const before = (sequelize as unknown as { options: { logging?: unknown } }).options.logging;
          (sequelize as unknown as { options: { logging?: unknown } }).options.logging = (sql: string) =>
            lines.push(sql);
          try {
            const logging = await get('/cats?sort=-name');
            assert.equal(logging.taken, 'fast');
            assert.equal(logging.text, plain.text);
            assert.equal((await get('/cats/options?label=name')).text, options);
          } finally {
            (sequelize as unknown as { options: { logging?: unknown } }).options.logging = before;
          }
          // Page, count and the options select; on SQLite the page and count are one statement and options first reads the rowid span.
          // SQLite reads the page and its count in one statement; elsewhere they are two.
          const statements = 3;
          assert.equal(lines.filter((line) => line.includes('SELECT')).length, statements, lines.join('\n'));

          // A beforeQuery hook on the Sequelize instance sees every query, so none skips it.
          const seen: string[] = [];
          sequelize.addHook('beforeQuery', 'fast-path-probe', (_options: unknown, query: unknown) => {
            seen.push(String((query as { sql?: unknown }).sql ?? 'query'));
          });
          try {
            const hooked = await get('/cats?sort=-name');
            assert.equal(hooked.taken, 'fast');
            assert.equal(hooked.text, plain.text);
            assert.equal((await get('/cats/options?label=name')).text, options);
          } finally {
            sequelize.removeHook('beforeQuery', 'fast-path-probe');
          }
          // Elsewhere the page and its count run in a transaction: its BEGIN, isolation level and COMMIT are queries too.
          assert.equal(seen.length, db.dialect === 'sqlite' ? statements : statements + 3);
          assert.equal((await get('/cats?sort=-name')).taken, 'driver');

          // A table that is not there: the probe decides nothing (both executors fail), the request reads through the
          // public executor; a driver error runs the query again through sequelize.query. The same reply either way.
          const Missing = sequelize.define(
            `Fp${form.initial}Missing`,
            { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(20) },
            { tableName: `fp${form.initial}_missing`, timestamps: false },
          );
          current = new Router();
          form.register(current, 'missing', Missing, { policy: { fillable: 'all' } } as never, { only: ['search'] });
          const broken = await server.request('GET', '/missing');
          const brokenQueried = await server.request('GET', '/missing', { headers: { 'x-search-path': 'fast' } });
          assert.equal(broken.headers.get('x-search-path-taken'), 'public');
          assert.equal(brokenQueried.headers.get('x-search-path-taken'), 'fast');
          assert.equal(broken.status, 500);
          assert.equal(broken.text, brokenQueried.text);
        });
      },
    );
  }
