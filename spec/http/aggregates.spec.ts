/**
 * `GET <uri>/aggregate` over HTTP: counts, sums, averages, minimums and maximums by column and belongs-to path as JSON
 * numbers on every dialect, compared with the same computation in JavaScript over random filters and groups (an
 * oracle); the tenant scope and soft deletes hold as in search; each mistake is a 400 naming its parameter; more
 * groups than `aggregate.max_groups` is a `tooManyRows`; the route exists only when declared. Tables `agg*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, type Sequelize } from 'sequelize';
import { tenantScope } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineModels(sequelize: Sequelize, prefix: string) {
  const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true };
  const options = { underscored: true, timestamps: false };
  const Category = sequelize.define(
    `${prefix}Category`,
    { id, name: DataTypes.STRING(20), tenant: DataTypes.STRING(8), deletedAt: DataTypes.DATE },
    { ...options, tableName: `${prefix}_categories` },
  );
  const Item = sequelize.define(
    `${prefix}Item`,
    {
      id,
      name: DataTypes.STRING(20),
      status: DataTypes.STRING(10),
      price: DataTypes.DECIMAL(10, 2),
      stock: DataTypes.INTEGER,
      active: DataTypes.BOOLEAN,
      cost: DataTypes.INTEGER,
      tenant: DataTypes.STRING(8),
      categoryId: DataTypes.INTEGER,
      deletedAt: DataTypes.DATE,
    },
    { ...options, tableName: `${prefix}_items` },
  );
  Item.belongsTo(Category, { as: 'category', foreignKey: 'categoryId', constraints: false });
  return { Category, Item };
}

interface Row {
  id: number;
  name: string;
  status: string | null;
  price: number;
  stock: number | null;
  active: boolean | null;
  cost: number;
  tenant: string;
  categoryId: number | null;
  deleted: boolean;
}

const CATEGORIES = [
  { id: 1, name: 'fruit', tenant: 'a', deleted: false },
  { id: 2, name: 'veg', tenant: 'a', deleted: false },
  // Tenant b's category: tenant a's items in it have no category a may see.
  { id: 3, name: 'b-cat', tenant: 'b', deleted: false },
  // Soft-deleted: its items have no category either.
  { id: 4, name: 'gone', tenant: 'a', deleted: true },
];

const STATUSES = ['active', 'draft', 'sold', null] as const;

/** Fixed rows from a small linear congruential generator, so every dialect and form holds the same. */
function rows(): Row[] {
  // mulberry32: 32-bit integer steps, exact in JavaScript.
  let seed = 7;
  const next = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  return Array.from({ length: 40 }, (_, i) => {
    const tenant = i % 7 === 6 ? 'b' : 'a';
    return {
      id: i + 1,
      name: `item${String.fromCharCode(97 + next(5))}${i}`,
      status: STATUSES[next(4)]!,
      price: next(2000) / 100,
      stock: next(5) === 0 ? null : next(12),
      active: next(6) === 0 ? null : next(2) === 0,
      cost: next(100),
      tenant,
      categoryId: next(6) === 0 ? null : 1 + next(4),
      deleted: next(8) === 0,
    };
  });
}

const ROWS = rows();

async function seed({ Category, Item }: ReturnType<typeof defineModels>): Promise<void> {
  await Category.sync({ force: true });
  await Item.sync({ force: true });
  const gone = new Date('2025-01-01T00:00:00Z');
  await Category.bulkCreate(CATEGORIES.map(({ deleted, ...c }) => ({ ...c, deletedAt: deleted ? gone : null })));
  await Item.bulkCreate(ROWS.map(({ deleted, ...row }) => ({ ...row, deletedAt: deleted ? gone : null })));
}

/** One condition of the oracle's filters: its query string part (after `filter`) and what it keeps. */
interface Check {
  readonly query: string;
  readonly keeps: (row: Row) => boolean;
}

const categoryName = (row: Row): string | null => {
  const category = CATEGORIES.find((c) => c.id === row.categoryId);
  return category === undefined || category.deleted || category.tenant !== row.tenant ? null : category.name;
};

const checkArb: fc.Arbitrary<Check> = fc.oneof(
  fc
    .constantFrom('active', 'draft', 'sold')
    .map((s) => ({ query: `[status]=${s}`, keeps: (r: Row) => r.status === s })),
  fc.integer({ min: 0, max: 11 }).map((n) => ({
    query: `[stock][gte]=${n}`,
    keeps: (r: Row) => r.stock !== null && r.stock >= n,
  })),
  fc.integer({ min: 0, max: 20 }).map((n) => ({ query: `[price][lt]=${n}`, keeps: (r: Row) => r.price < n })),
  fc
    .constantFrom('a', 'b', 'c')
    .map((l) => ({ query: `[name][like]=item${l}`, keeps: (r: Row) => r.name.startsWith(`item${l}`) })),
  fc.boolean().map((b) => ({ query: `[active]=${b}`, keeps: (r: Row) => r.active === b })),
  fc
    .constantFrom('fruit', 'veg')
    .map((n) => ({ query: `[category.name]=${n}`, keeps: (r: Row) => categoryName(r) === n })),
  fc.constant({ query: '[status][null]=1', keeps: (r: Row) => r.status === null }),
);

/** A filter: some top-level checks ANDed, and perhaps one `$or` of two. */
const filterArb = fc
  .record({
    // One condition per column at the top (a column twice is a 400 of its own).
    all: fc.uniqueArray(checkArb, { maxLength: 2, selector: (c) => c.query.slice(0, c.query.indexOf(']')) }),
    any: fc.option(fc.tuple(checkArb, checkArb), { nil: undefined }),
  })
  .map(({ all, any }) => ({
    query: [
      ...all.map((c) => `filter${c.query}`),
      ...(any === undefined ? [] : [`filter[$or][0]${any[0].query}`, `filter[$or][1]${any[1].query}`]),
    ],
    keeps: (r: Row) => all.every((c) => c.keeps(r)) && (any === undefined || any.some((c) => c.keeps(r))),
  }));

const GROUPS: Readonly<Record<string, (row: Row) => unknown>> = {
  status: (r) => r.status,
  active: (r) => r.active,
  'category.name': categoryName,
  stock: (r) => r.stock,
};
const MEASURED = ['price', 'stock'] as const;

const requestArb = fc.record({
  filter: filterArb,
  groupBy: fc.subarray(Object.keys(GROUPS), { maxLength: 2 }),
  count: fc.boolean(),
  sum: fc.subarray([...MEASURED]),
  avg: fc.subarray([...MEASURED]),
  min: fc.subarray([...MEASURED]),
  max: fc.subarray([...MEASURED]),
});

type Request = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

/** The reply the oracle expects: tenant a's live rows the filter keeps, grouped and measured in JavaScript. */
function expected(request: Request): Record<string, unknown>[] {
  const kept = ROWS.filter((r) => r.tenant === 'a' && !r.deleted && request.filter.keeps(r));
  const groups = new Map<string, Row[]>();
  for (const row of kept) {
    const key = JSON.stringify(request.groupBy.map((g) => GROUPS[g]!(row)));
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  if (request.groupBy.length === 0 && groups.size === 0) groups.set('[]', []);
  return [...groups].map(([key, members]) => {
    const record: Record<string, unknown> = {};
    const values = JSON.parse(key) as unknown[];
    request.groupBy.forEach((g, i) => (record[g] = values[i]));
    if (request.count) record.count = members.length;
    const of = (column: (typeof MEASURED)[number]) =>
      members.map((r) => r[column]).filter((v): v is number => v !== null);
    const measures = {
      sum: (v: number[]) => (v.length === 0 ? null : v.reduce((a, b) => a + b, 0)),
      avg: (v: number[]) => (v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length),
      min: (v: number[]) => (v.length === 0 ? null : Math.min(...v)),
      max: (v: number[]) => (v.length === 0 ? null : Math.max(...v)),
    };
    for (const measure of ['sum', 'avg', 'min', 'max'] as const)
      if (request[measure].length > 0)
        record[measure] = Object.fromEntries(request[measure].map((c) => [c, measures[measure](of(c))]));
    return record;
  });
}

function queryOf(request: Request): string {
  return [
    ...request.filter.query,
    ...(request.groupBy.length > 0 ? [`groupBy=${request.groupBy.join(',')}`] : []),
    ...(request.count ? ['aggregate[count]=*'] : []),
    ...(['sum', 'avg', 'min', 'max'] as const).flatMap((m) =>
      request[m].length > 0 ? [`aggregate[${m}]=${request[m].join(',')}`] : [],
    ),
  ].join('&');
}

/** Records in a stable order (by their group keys), numbers rounded to 6 places, for comparing across dialects. */
function normalized(records: readonly Record<string, unknown>[], groupBy: readonly string[]): string[] {
  const round = (value: unknown): unknown =>
    typeof value === 'number'
      ? Math.round(value * 1e6) / 1e6
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, round(v)]))
        : value;
  return records
    .map((record) => JSON.stringify(Object.fromEntries(Object.entries(record).map(([k, v]) => [k, round(v)]))))
    .sort((a, b) => {
      const key = (text: string) =>
        JSON.stringify(groupBy.map((g) => (JSON.parse(text) as Record<string, unknown>)[g]));
      return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    });
}

for (const db of databases)
  for (const form of FORMS) {
    describe(`GET <uri>/aggregate (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let models: ReturnType<typeof defineModels>;

      before(async () => {
        models = defineModels(db.sequelize!, `agg${form.initial}`);
        await seed(models);
        const config = { global: { find_field_is_uuid: false }, aggregate: { max_groups: 25 } };
        const plugins = [tenantScope('tenant', (ctx) => ctx.get('x-tenant') || null)];
        const router = new Router();
        const policy = { fillable: ['name'], hidden: ['cost'] } as const;
        form.register(router, 'categories', models.Category, { policy: { fillable: ['name'] } }, { config, plugins });
        form.register(
          router,
          'items',
          models.Item,
          { policy, relations: { category: {} }, aggregate: true },
          { config, plugins },
        );
        form.register(
          router,
          'narrow',
          models.Item,
          {
            policy,
            relations: { category: {} },
            aggregate: { groupBy: ['status', 'category.name'], sum: ['price'], avg: [] },
          },
          { config, plugins },
        );
        form.register(router, 'closed', models.Item, { policy }, { config, plugins });
        server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()));
      });
      after(() => server?.close());

      const get = (path: string, query: string, tenant = 'a') =>
        server.request('GET', `/${path}/aggregate?${query}`, { headers: { 'x-tenant': tenant } });
      const data = async (query: string, tenant = 'a', path = 'items') => {
        const res = await get(path, query, tenant);
        assert.equal(res.status, 200, `${query}: ${res.text}`);
        assert.equal(res.body.status, 'success');
        return res.body.data as Record<string, unknown>[];
      };
      const failures = async (query: string, path = 'items'): Promise<string[]> => {
        const res = await get(path, query);
        assert.equal(res.status, 400, `${query}: ${res.text}`);
        assert.equal(res.body.status, 'fail');
        return res.body.data.map((f: { field: string; error: string }) => `${f.field} ${f.error}`);
      };

      it("answers each group's count and sums as JSON numbers, grouped by a column", async () => {
        const query = 'aggregate[count]=*&aggregate[sum]=price&groupBy=status';
        const request = {
          filter: { query: [], keeps: () => true },
          groupBy: ['status'],
          count: true,
          sum: ['price'],
          avg: [],
          min: [],
          max: [],
        } as unknown as Request;
        const answered = await data(query);
        assert.deepEqual(normalized(answered, ['status']), normalized(expected(request), ['status']));
        for (const row of answered) {
          assert.equal(typeof row.count, 'number');
          assert.equal(typeof (row.sum as Record<string, unknown>).price, 'number');
        }
        assert.deepEqual(Object.keys(answered[0]!), ['status', 'count', 'sum']);
      });

      it('answers one row without groupBy, and a count of 0 with null measures over no rows', async () => {
        const all = await data('aggregate[count]=*&aggregate[avg]=stock&aggregate[max]=price');
        assert.equal(all.length, 1);
        const live = ROWS.filter((r) => r.tenant === 'a' && !r.deleted);
        assert.equal(all[0]!.count, live.length);
        const stocks = live.flatMap((r) => (r.stock === null ? [] : [r.stock]));
        // avg of an integer column is fractional on every dialect, to a double's precision (MariaDB's AVG is not).
        const average = stocks.reduce((a, b) => a + b) / stocks.length;
        const answered = (all[0]!.avg as { stock: number }).stock;
        assert.ok(Math.abs(answered - average) < 1e-9, `avg ${answered}, expected ${average}`);
        assert.equal((all[0]!.max as { price: number }).price, Math.max(...live.map((r) => r.price)));
        assert.deepEqual(await data('aggregate[count]=*&aggregate[sum]=price&filter[name]=none'), [
          { count: 0, sum: { price: null } },
        ]);
        assert.deepEqual(await data('groupBy=status&aggregate[count]=*&filter[name]=none'), []);
      });

      it('groups by a belongs-to path under a flat key, a related row out of scope or soft-deleted as null', async () => {
        const answered = await data('groupBy=category.name&aggregate[count]=*');
        const keys = answered.map((row) => row['category.name']);
        assert.ok(keys.includes('fruit') && keys.includes(null), JSON.stringify(answered));
        assert.ok(!keys.includes('b-cat') && !keys.includes('gone'), JSON.stringify(answered));
      });

      it('agrees with the same computation in JavaScript over random filters, groups and measures', async () => {
        await fc.assert(
          fc.asyncProperty(requestArb, async (request) => {
            if (
              !request.count &&
              request.groupBy.length === 0 &&
              ['sum', 'avg', 'min', 'max'].every((m) => request[m as 'sum'].length === 0)
            )
              return;
            const wanted = expected(request);
            // More groups than aggregate.max_groups (25 here) is a fail, whatever the groups.
            if (wanted.length > 25) {
              assert.deepEqual(await failures(queryOf(request)), ['groupBy tooManyRows']);
              return;
            }
            const answered = await data(queryOf(request));
            assert.deepEqual(
              normalized(answered, request.groupBy),
              normalized(wanted, request.groupBy),
              queryOf(request),
            );
          }),
          { numRuns: Number(process.env.FAST_CRUD_AGGREGATE_RUNS ?? 40) },
        );
      });

      it("keeps to the request's tenant: tenant b's rows are never counted, whatever the filter", async () => {
        const count = async (query: string, tenant: string) =>
          (await data(`aggregate[count]=*&${query}`, tenant))[0]!.count;
        const live = (tenant: string) => ROWS.filter((r) => r.tenant === tenant && !r.deleted).length;
        assert.equal(await count('filter[tenant]=b', 'a'), 0);
        assert.equal(await count('filter[$or][0][tenant]=b&filter[$or][1][id][gt]=0', 'a'), live('a'));
        assert.equal(await count('', 'b'), live('b'));
        const res = await get('items', 'aggregate[count]=*', '');
        assert.equal(res.status, 403, res.text);
      });

      it('leaves soft-deleted rows out, unless a filter on the deleted-at column asks for them', async () => {
        const mine = ROWS.filter((r) => r.tenant === 'a');
        assert.equal((await data('aggregate[count]=*'))[0]!.count, mine.filter((r) => !r.deleted).length);
        assert.equal(
          (await data('aggregate[count]=*&filter[deletedAt][nn]=1'))[0]!.count,
          mine.filter((r) => r.deleted).length,
        );
      });

      it('answers a 400 naming the parameter for an unknown, hidden or non-numeric column and other mistakes', async () => {
        assert.deepEqual(await failures('aggregate[sum]=prise'), ['aggregate.sum columnNotFound']);
        const hint = await get('items', 'aggregate[sum]=prise');
        assert.match(hint.body.data[0].message, /did you mean 'price'/);
        // A hidden column is as unknown as a missing one, and never offered as a hint.
        assert.deepEqual(await failures('aggregate[max]=cost'), ['aggregate.max columnNotFound']);
        assert.doesNotMatch((await get('items', 'aggregate[max]=cos')).text, /cost/);
        assert.deepEqual(await failures('aggregate[avg]=name'), ['aggregate.avg invalidValue']);
        assert.deepEqual(await failures('groupBy=colour&aggregate[count]=*'), ['groupBy columnNotFound']);
        assert.deepEqual(await failures('groupBy=cost'), ['groupBy columnNotFound']);
        assert.deepEqual(await failures('groupBy=category.secret'), ['groupBy columnNotFound']);
        assert.deepEqual(await failures('aggregate[count]=id'), ['aggregate.count invalidValue']);
        assert.deepEqual(await failures('aggregate[median]=price'), ['aggregate.median invalidValue']);
        assert.deepEqual(await failures('aggregate=count'), ['aggregate invalidValue']);
        assert.deepEqual(await failures('aggregate[count]=*&sort=name'), ['sort unknownParameter']);
        assert.deepEqual(await failures('aggregate[count]=*&filter[colour]=red'), ['colour columnNotFound']);
        assert.deepEqual(await failures('filter[name]=x'), ['aggregate required']);
      });

      it('narrows the columns to an object declaration', async () => {
        assert.equal((await data('groupBy=status&aggregate[sum]=price', 'a', 'narrow')).length > 0, true);
        assert.deepEqual(await failures('groupBy=active', 'narrow'), ['groupBy invalidValue']);
        assert.deepEqual(await failures('aggregate[sum]=stock', 'narrow'), ['aggregate.sum invalidValue']);
        assert.deepEqual(await failures('aggregate[avg]=price', 'narrow'), ['aggregate.avg invalidValue']);
        // Lists left out keep the default: every filterable numeric column.
        assert.equal((await data('aggregate[min]=stock', 'a', 'narrow')).length, 1);
      });

      it('answers a 400 tooManyRows past aggregate.max_groups groups', async () => {
        const names = ROWS.filter((r) => r.tenant === 'a' && !r.deleted).length;
        assert.ok(names > 25, `${names} live rows: more than max_groups`);
        assert.deepEqual(await failures('groupBy=name&aggregate[count]=*'), ['groupBy tooManyRows']);
        assert.equal((await data('groupBy=name&aggregate[count]=*&filter[id][lte]=20')).length <= 20, true);
      });

      it('has no aggregates route unless the resource declares it', async () => {
        const res = await get('closed', 'aggregate[count]=*');
        assert.notEqual(res.status, 200, res.text);
      });
    });
  }
