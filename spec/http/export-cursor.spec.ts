import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa, { type Context } from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import type { ExportRead } from '../../lib/core/export-read.js';
import { observeExecution } from '../../lib/execute/state.js';
import { tenantScope } from '../../lib/index.js';
import { parseCsv } from '../support/csv.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { holdsSnapshot, snapshotFiles } from '../support/snapshot-files.js';

const databases = await testDatabases();
const snapshots = snapshotFiles('fast-crud-export-cursor-');
after(async () => {
  await snapshots.close();
  await closeAll(databases);
});

/** Runs of the byte-comparison property per form and dialect. */
const RUNS = Number(process.env['FAST_CRUD_EXPORT_RUNS'] ?? 10);

/** Items of two tenants, soft-deletable, with nullable sort columns of several kinds and a category. */
function defineModels(
  sequelize: Sequelize,
  prefix: string,
): { Item: ModelStatic<Model>; Category: ModelStatic<Model> } {
  const Category = sequelize.define(
    `${prefix}Category`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(20), allowNull: true },
    },
    { tableName: `${prefix}_categories`, timestamps: false },
  );
  const Item = sequelize.define(
    `${prefix}Item`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      tenant: { type: DataTypes.STRING(5), allowNull: false },
      rank: { type: DataTypes.INTEGER, allowNull: true },
      price: { type: DataTypes.DECIMAL(10, 2), allowNull: true },
      label: { type: DataTypes.STRING(20), allowNull: true },
      seenAt: { type: DataTypes.DATE, allowNull: true },
      seenOn: { type: DataTypes.DATEONLY, allowNull: true },
      active: { type: DataTypes.BOOLEAN, allowNull: true },
      tags: { type: DataTypes.JSON, allowNull: true },
      categoryId: { type: DataTypes.INTEGER, allowNull: true },
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${prefix}_items`, timestamps: false },
  );
  Item.belongsTo(Category, { as: 'category', foreignKey: 'categoryId', constraints: false });
  return { Item, Category };
}

const labelArb = fc.oneof(
  fc.constantFrom('a', 'B', 'b', '=1', '-x', 'q"t', 'c,d', 'line\nbreak'),
  fc.string({ maxLength: 6 }),
);
const itemArb = fc.record({
  tenant: fc.constantFrom('a', 'a', 'b'),
  rank: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null }),
  price: fc.option(
    fc.integer({ min: -300, max: 300 }).map((cents) => (cents / 100).toFixed(2)),
    { nil: null },
  ),
  label: fc.option(labelArb, { nil: null }),
  seenAt: fc.option(
    fc.integer({ min: 0, max: 3 }).map((day) => new Date(Date.UTC(2024, 0, 1 + day, 12, 0, 0, 250))),
    { nil: null },
  ),
  seenOn: fc.option(fc.constantFrom('2024-01-01', '2024-02-29'), { nil: null }),
  active: fc.option(fc.boolean(), { nil: null }),
  tags: fc.option(fc.array(labelArb, { maxLength: 2 }), { nil: null }),
  categoryId: fc.option(fc.constantFrom(1, 2, 3), { nil: null }),
  deleted_at: fc.option(fc.constant(new Date(Date.UTC(2024, 5, 1))), { freq: 4, nil: null }),
});
const SORTABLE = ['rank', 'price', 'label', 'seenAt', 'seenOn', 'active'] as const;
/** A sort that does not lead with the primary key (the export reads those from a cursor), `id` maybe among the rest. */
const sortArb = (columns: readonly string[]) =>
  fc
    .uniqueArray(fc.constantFrom(...columns), { minLength: 1, maxLength: 3 })
    .chain((fields) =>
      fc.tuple(
        fc.tuple(...fields.map((field) => fc.boolean().map((descending) => (descending ? `-${field}` : field)))),
        fc.constantFrom('', ',id', ',-id'),
      ),
    )
    .map(([fields, tail]) => fields.join(',') + tail);
const filterArb = fc.constantFrom(
  '',
  '&filter[rank][gte]=0',
  '&filter[label][like]=b',
  '&filter[active]=true',
  '&filter[price][lt]=0.5&filter[seenOn]=2024-01-01',
);
const fieldsArb = fc.option(
  fc.shuffledSubarray(['id', ...SORTABLE, 'tags', 'categoryId'], { minLength: 1 }).map((names) => names.join(',')),
  { nil: undefined },
);

for (const db of databases)
  for (const form of FORMS) {
    describe(`exportCsv from one cursor (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `exo${form.initial}`;
      let sequelize: Sequelize;
      let Item: ModelStatic<Model>;
      let server: TestServer;
      const errors: unknown[] = [];
      const reads: ExportRead[] = [];

      before(async () => {
        sequelize = await snapshots.connection(db.sequelize!, prefix);
        const models = defineModels(sequelize, prefix);
        Item = models.Item;
        await models.Category.sync({ force: true });
        await Item.sync({ force: true });
        await models.Category.bulkCreate([{ name: 'tools' }, { name: null }, { name: 'Books' }]);
        observeExecution(sequelize, {
          forceExport: (ctx) => ((ctx as Context).get('x-read') === 'batches' ? 'batches' : undefined),
          exported: (_ctx, read) => reads.push(read),
        });
        const router = new Router();
        const options = {
          only: ['exportCsv'] as 'exportCsv'[],
          config: { export_csv: { batch_size: 2 } },
          plugins: [tenantScope('tenant', (ctx) => (ctx.state as Record<string, unknown>)['tenant'])],
        };
        const policy = { fillable: 'all' as const, hidden: ['tenant'] };
        form.register(router, 'items', Item, { policy }, options);
        form.register(
          router,
          'items-categories',
          Item,
          {
            policy,
            relations: { category: { include: true } },
            csv: { columns: { id: 'Id', label: 'Label', 'category.name': 'Category', price: 'Price' } },
          },
          options,
        );
        const app = new Koa().use(async (ctx, next) => {
          ctx.state['tenant'] = 'a';
          await next();
        });
        server = await serve(app.use(router.routes()), errors);
      });
      after(() => server?.close());

      /** The export read both ways: by keyset batches, then from the cursor (which it must have taken). */
      async function bothWays(path: string): Promise<[string, string]> {
        const batches = await server.request('GET', path, { headers: { 'x-read': 'batches' } });
        assert.equal(batches.status, 200, batches.text);
        reads.length = 0;
        const cursor = await server.get(path);
        assert.equal(cursor.status, 200, cursor.text);
        assert.deepEqual(reads, [{ by: 'cursor' }], path);
        return [batches.text, cursor.text];
      }

      it('gives the bytes keyset batches give, for random rows, sorts, filters and fieldsets, scoped to the tenant and without soft-deleted rows', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(itemArb, { maxLength: 12 }),
            sortArb(SORTABLE),
            filterArb,
            fieldsArb,
            async (items, sort, filter, fields) => {
              await Item.destroy({ where: {}, truncate: true });
              await Item.bulkCreate(items);
              const path = `/items/export-csv?sort=${sort}${filter}${fields === undefined ? '' : `&fields=${fields}`}`;
              const [batches, cursor] = await bothWays(path);
              assert.equal(cursor, batches, path);
              const expected = items.filter((item) => item.tenant === 'a' && item.deleted_at === null).length;
              if (filter === '')
                assert.equal(parseCsv(cursor).length - 1, expected, 'every row of tenant a, and only those');
            },
          ),
          { numRuns: RUNS },
        );
        assert.deepEqual(errors, []);
      });

      it('gives the same bytes with a relation column and a relation sort', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(itemArb, { maxLength: 12 }),
            sortArb([...SORTABLE, 'category.name']),
            async (items, sort) => {
              await Item.destroy({ where: {}, truncate: true });
              await Item.bulkCreate(items);
              const [batches, cursor] = await bothWays(`/items-categories/export-csv?sort=${sort}`);
              assert.equal(cursor, batches, sort);
            },
          ),
          { numRuns: RUNS },
        );
        assert.deepEqual(errors, []);
      });

      it('reads by keyset batches in the primary key order', async () => {
        reads.length = 0;
        const csv = await server.get('/items/export-csv?sort=-id,label');
        assert.equal(csv.status, 200, csv.text);
        assert.deepEqual(reads, [{ by: 'batches', reason: 'the order leads with the primary key' }]);
      });

      it('reads the snapshot the export began with, though rows are deleted mid-export', async () => {
        const ROWS = 20_000;
        await Item.destroy({ where: {}, truncate: true });
        await Item.bulkCreate(
          Array.from({ length: ROWS }, (_, i) => ({ tenant: 'a', rank: i % 7, label: `item ${i}` })),
        );
        const response = await fetch(`${server.url}/items/export-csv?sort=-label`);
        const reader = response.body!.getReader();
        let text = Buffer.from((await reader.read()).value!).toString('utf8');
        // Another connection deletes every row while the export streams.
        await Item.destroy({ where: {}, truncate: true });
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
          text += Buffer.from(chunk.value).toString('utf8');
        const ids = parseCsv(text).slice(1);
        assert.equal(ids.length, ROWS);
        assert.equal(ids[0]![3], 'item 9999', 'in the order asked');
      });

      it('closes its cursor, ends its transaction and gives its connection back when the client disconnects mid-export', async () => {
        await Item.destroy({ where: {}, truncate: true });
        await Item.bulkCreate(Array.from({ length: 20_000 }, (_, i) => ({ tenant: 'a', rank: i, label: `item ${i}` })));
        reads.length = 0;
        const controller = new AbortController();
        const response = await fetch(`${server.url}/items/export-csv?sort=-label`, { signal: controller.signal });
        const reader = response.body!.getReader();
        await reader.read();
        assert.deepEqual(reads, [{ by: 'cursor' }]);
        assert.ok(await holdsSnapshot(sequelize), 'the export holds its snapshot while it streams');
        controller.abort();
        await reader.cancel().catch(() => undefined);
        for (let tries = 0; tries < 200 && (await holdsSnapshot(sequelize)); tries++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(await holdsSnapshot(sequelize), false, 'the snapshot ended and its connection is idle again');
        assert.equal(await Item.count(), 20_000, 'the database still answers');
      });
    });
  }
