import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { parseCsv } from '../support/csv.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { holdsSnapshot, snapshotFiles } from '../support/snapshot-files.js';

const databases = await testDatabases();
const snapshots = snapshotFiles('fast-crud-export-');
after(async () => {
  await snapshots.close();
  await closeAll(databases);
});

/** Runs of the keyset and fast-path properties per form and dialect. */
const RUNS = Number(process.env['FAST_CRUD_EXPORT_RUNS'] ?? 10);

/** Items with nullable sort columns of several kinds, and a getter on `label` in the getter variant. */
function defineItems(sequelize: Sequelize, name: string, getter: boolean): ModelStatic<Model> {
  return sequelize.define(
    name,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      rank: { type: DataTypes.INTEGER, allowNull: true },
      price: { type: DataTypes.DECIMAL(10, 2), allowNull: true },
      label: {
        type: DataTypes.STRING(20),
        allowNull: true,
        ...(getter && {
          get(this: Model) {
            const label = this.getDataValue('label') as string | null;
            return label === null ? null : `<${label}>`;
          },
        }),
      },
      seenAt: { type: DataTypes.DATE, allowNull: true },
      seenOn: { type: DataTypes.DATEONLY, allowNull: true },
      active: { type: DataTypes.BOOLEAN, allowNull: true },
      tags: { type: DataTypes.JSON, allowNull: true },
    },
    { tableName: name.toLowerCase(), timestamps: false },
  );
}

const labelArb = fc.oneof(
  fc.constantFrom('a', 'B', 'b', '=1', '-x', 'q"t', 'c,d', 'line\nbreak'),
  fc.string({ maxLength: 6 }),
);
const itemArb = fc.record({
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
});
const sortArb = fc
  .uniqueArray(fc.constantFrom('rank', 'price', 'label', 'seenAt', 'seenOn', 'active'), { minLength: 1, maxLength: 3 })
  .chain((fields) =>
    fc.tuple(...fields.map((field) => fc.boolean().map((descending) => (descending ? `-${field}` : field)))),
  )
  .map((fields) => fields.join(','));

/** The ids of a CSV export whose first column is `id`. */
function idsOf(text: string): number[] {
  const [, ...records] = parseCsv(text);
  return records.map((record) => Number(record[0]));
}

for (const db of databases)
  for (const form of FORMS) {
    describe(`exportCsv keyset and fast path (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `exk${form.initial}`;
      let server: TestServer;
      let Plain: ModelStatic<Model>;
      let Getter: ModelStatic<Model>;
      const errors: unknown[] = [];

      before(async () => {
        Plain = defineItems(db.sequelize!, `${prefix}Plain`, false);
        Getter = defineItems(db.sequelize!, `${prefix}Getter`, true);
        for (const model of [Plain, Getter]) await model.sync({ force: true });
        const router = new Router();
        const small = {
          only: ['search', 'exportCsv'] as ('search' | 'exportCsv')[],
          config: { export_csv: { batch_size: 2 } },
        };
        // A `rows` plugin that changes nothing keeps the export on the instance path.
        const instances = { name: 'instances', rows: (rows: Record<string, unknown>[]) => rows };
        form.register(router, 'plain', Plain, { policy: { fillable: 'all' } }, small);
        form.register(router, 'plain-instances', Plain, { policy: { fillable: 'all' }, plugins: [instances] }, small);
        form.register(router, 'getter', Getter, { policy: { fillable: 'all' } }, small);
        form.register(router, 'getter-instances', Getter, { policy: { fillable: 'all' }, plugins: [instances] }, small);
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      it('returns every row once, in the order search gives, for random data with NULLs and mixed sort directions (keyset batches)', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(itemArb, { maxLength: 12 }), sortArb, async (items, sort) => {
            await Plain.destroy({ where: {}, truncate: true });
            await Plain.bulkCreate(items);
            const search = await server.get(`/plain?sort=${sort}&perPage=100`);
            assert.equal(search.status, 200, search.text);
            const csv = await server.get(`/plain/export-csv?sort=${sort}`);
            assert.equal(csv.status, 200, csv.text);
            assert.deepEqual(
              idsOf(csv.text),
              (search.body.data as { id: number }[]).map((row) => row.id),
              sort,
            );
          }),
          { numRuns: RUNS },
        );
        assert.deepEqual(errors, []);
      });

      it('returns the same bytes from raw rows as from model instances, for random rows, with and without a getter', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(itemArb, { maxLength: 8 }), sortArb, async (items, sort) => {
            for (const model of [Plain, Getter]) {
              await model.destroy({ where: {}, truncate: true });
              await model.bulkCreate(items);
            }
            for (const uri of ['plain', 'getter']) {
              const fast = await server.get(`/${uri}/export-csv?sort=${sort}`);
              const slow = await server.get(`/${uri}-instances/export-csv?sort=${sort}`);
              assert.equal(fast.status, 200, fast.text);
              assert.equal(fast.text, slow.text, `${uri} ?sort=${sort}`);
            }
          }),
          { numRuns: RUNS },
        );
        assert.deepEqual(errors, []);
      });
    });

    describe(`exportCsv snapshot (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const name = `exs${form.initial}`;
      const ROWS = 60;
      let sequelize: Sequelize;
      let Item: ModelStatic<Model>;
      let server: TestServer;
      let mutate: (() => Promise<void>) | undefined;

      before(async () => {
        sequelize = await snapshots.connection(db.sequelize!, name);
        Item = defineItems(sequelize, `${name}Item`, false);
        await Item.sync({ force: true });
        // After the first batch is read, the next mutation (if any) runs on another connection, outside the export.
        Item.addHook('afterFind', async () => {
          const next = mutate;
          mutate = undefined;
          if (next) await next();
        });
        const router = new Router();
        form.register(
          router,
          'items',
          Item,
          { policy: { fillable: 'all' } },
          { only: ['exportCsv'], config: { export_csv: { batch_size: 5 } } },
        );
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      for (const sort of ['', '?sort=-rank,label']) {
        it(`returns the rows as they were when the export began, though rows are inserted and deleted mid-export${sort === '' ? '' : ` (${sort})`}`, async () => {
          await Item.destroy({ where: {}, truncate: true });
          await Item.bulkCreate(
            Array.from({ length: ROWS }, (_, i) => ({ rank: i % 4 === 0 ? null : i % 5, label: `item ${i}` })),
          );
          const expected = (await Item.findAll({ attributes: ['id'], raw: true }))
            .map((row) => (row as unknown as { id: number }).id)
            .sort((a, b) => a - b);
          mutate = async () => {
            await Item.destroy({ where: { id: expected.slice(-20) } });
            await Item.bulkCreate(Array.from({ length: 20 }, (_, i) => ({ rank: i % 5, label: `new ${i}` })));
            await Item.update({ rank: 99 }, { where: { id: expected.slice(10, 20) } });
          };
          const csv = await server.get(`/items/export-csv${sort}`);
          assert.equal(csv.status, 200, csv.text);
          assert.equal(mutate, undefined, 'the rows were changed during the export');
          const ids = idsOf(csv.text);
          assert.equal(new Set(ids).size, ids.length, 'no row twice');
          assert.deepEqual(
            [...ids].sort((a, b) => a - b),
            expected,
            'every row of the snapshot, and only those',
          );
          assert.ok((await Item.count()) === ROWS, 'the writes happened');
        });
      }

      it('ends its transaction and gives its connection back when the client disconnects mid-export', async () => {
        await Item.destroy({ where: {}, truncate: true });
        await Item.bulkCreate(Array.from({ length: 20_000 }, (_, i) => ({ rank: i, label: `item ${i}` })));
        const controller = new AbortController();
        const response = await fetch(`${server.url}/items/export-csv`, { signal: controller.signal });
        const reader = response.body!.getReader();
        await reader.read();
        assert.ok(await holdsSnapshot(sequelize), 'the export holds its snapshot while it streams');
        controller.abort();
        await reader.cancel().catch(() => undefined);
        for (let tries = 0; tries < 100 && (await holdsSnapshot(sequelize)); tries++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(await holdsSnapshot(sequelize), false, 'the snapshot ended');
        assert.equal(await Item.count(), 20_000, 'the database still answers');
      });
    });
  }
