/**
 * Create many's statement path (one INSERT … RETURNING of its own, the returned rows answered as they are) against
 * `bulkCreate` and a read back (the path it replaced, forced through the execution observer), over HTTP on every
 * database and in both forms: for random batches of models with timestamps, column names of their own, hidden fields,
 * defaults, booleans, dates, built-in validators and a UUID key, both paths answer the same bytes (the write times and
 * generated UUIDs masked; a refused batch's fail reply too) and leave the same rows. Tables `bcp*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { observeExecution, type CreateManyPath } from '../../lib/execute/state.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Two models: an auto-increment key with timestamps and mapped columns, and a UUID key without timestamps. */
function defineModels(sequelize: Sequelize, initial: string): ModelStatic<Model>[] {
  const Counted = sequelize.define(
    `Bcp${initial}Counted`,
    {
      id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
      sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(40), allowNull: false, field: 'item_name' },
      price: { type: DataTypes.INTEGER, allowNull: true, validate: { min: 0 } },
      flag: { type: DataTypes.BOOLEAN, allowNull: true },
      seen: { type: DataTypes.DATE, allowNull: true },
      note: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'none', validate: { len: [2, 10] } },
      secret: { type: DataTypes.STRING(20), allowNull: true, validate: { isAlpha: true, not: ['^x', 'i'] } },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `bcp${initial}_counted`, underscored: true },
  );
  const Keyed = sequelize.define(
    `Bcp${initial}Keyed`,
    {
      id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
      sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(40), allowNull: false },
      price: { type: DataTypes.INTEGER, allowNull: true },
      flag: { type: DataTypes.BOOLEAN, allowNull: true, defaultValue: false },
      seen: { type: DataTypes.DATE, allowNull: true, field: 'seen_at' },
      note: { type: DataTypes.STRING(20), allowNull: true },
      secret: { type: DataTypes.STRING(20), allowNull: true },
    },
    { tableName: `bcp${initial}_keyed`, timestamps: false },
  );
  return [Counted, Keyed];
}

const json = (body: unknown, path?: string): RequestInit => ({
  headers: { 'content-type': 'application/json', ...(path !== undefined && { 'x-create-path': path }) },
  body: JSON.stringify(body),
});

/** A batch of items: skus unique by construction, every other field sometimes left out. */
const itemsArb = fc
  .array(
    fc.record(
      {
        name: fc.stringMatching(/^[A-Za-z é]{1,12}$/),
        // Now and then a record Sequelize's validators refuse (price, note, secret): the whole batch is a 400.
        price: fc.option(fc.integer({ min: -2, max: 99999 })),
        flag: fc.option(fc.boolean()),
        seen: fc.option(fc.date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true })),
        note: fc.stringMatching(/^[a-z]{1,10}$/),
        secret: fc.stringMatching(/^[a-z]{1,10}$/),
      },
      { requiredKeys: ['name'] },
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((items) => items.map((item, i) => ({ ...item, sku: `k${i}` })));

/** The reply's text with what differs between two writes of the same items masked: write times, generated UUIDs. */
const masked = (text: string) =>
  text.replace(/"(createdAt|updatedAt)":"[^"]*"/g, '"$1":"T"').replace(/"id":"[0-9a-f-]{36}"/g, '"id":"U"');

for (const db of databases) {
  for (const form of FORMS) {
    describe(`create many's statement path (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const sequelize = db.sequelize!;
      const models = defineModels(sequelize, form.initial);
      const taken: CreateManyPath[] = [];
      let server: TestServer;
      const config = { global: { find_field_is_uuid: false } };
      /** Each create hook's calls on the `ids` resource. */
      const calls = { beforeCreate: 0, afterCreate: 0 };

      before(async () => {
        for (const model of models) await model.sync({ force: true });
        const router = new Router();
        for (const [index, model] of models.entries()) {
          const spec: ResourceSpec<Model> = {
            policy: { fillable: ['sku', 'name', 'price', 'flag', 'seen', 'note', 'secret'], hidden: ['secret'] },
            batch: true,
          };
          form.register(router, `m${index}`, model, spec, { config });
        }
        // Keys a client may send: a batch where some items carry one and some not cannot be ordered by either.
        const counted: ResourceSpec<Model> = {
          policy: { fillable: ['id', 'sku', 'name'] },
          batch: true,
          hooks: { beforeCreate: () => void calls.beforeCreate++, afterCreate: () => void calls.afterCreate++ },
        };
        form.register(router, 'ids', models[0]!, counted, { config });
        // The observer: x-create-path: instances forces bulkCreate; every create many tells its path.
        observeExecution(sequelize, {
          forceCreateMany: (ctx) =>
            (ctx as Koa.Context).get('x-create-path') === 'instances' ? 'instances' : undefined,
          createdMany: (_ctx, path) => void taken.push(path),
        });
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server.close());

      /** Empties the table and restarts its key's numbering (SQLite's truncate keeps `sqlite_sequence`). */
      const empty = async (model: ModelStatic<Model>) => {
        await model.truncate({ restartIdentity: true } as never);
        if (db.dialect === 'sqlite')
          await sequelize.query('DELETE FROM sqlite_sequence WHERE name = :name', {
            replacements: { name: model.getTableName() as string },
          });
      };

      const rows = async (model: ModelStatic<Model>) =>
        (await model.findAll({ order: [['sku', 'ASC']], raw: true })).map((row) => {
          const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = row as unknown as Record<string, unknown>;
          return rest;
        });

      it('answers the bytes bulkCreate and a read back answer, and writes the same rows', async () => {
        const seen = new Set<number>();
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 0, max: models.length - 1 }), itemsArb, async (index, items) => {
            const model = models[index]!;
            const replies: string[] = [];
            const tables: unknown[] = [];
            taken.length = 0;
            const statuses: number[] = [];
            for (const path of ['instances', undefined]) {
              await empty(model);
              const reply = await server.request('POST', `/m${index}`, json(items, path));
              statuses.push(reply.status);
              replies.push(masked(reply.text));
              tables.push(await rows(model));
            }
            // A refused batch writes nothing on either path; the fail reply names the same item and field.
            assert.ok(statuses[0] === 201 || statuses[0] === 400, replies[0]);
            assert.equal(statuses[1], statuses[0]);
            assert.deepEqual(taken, statuses[0] === 201 ? ['instances', 'statement'] : []);
            seen.add(statuses[0]!);
            assert.equal(replies[1], replies[0]);
            assert.deepEqual(tables[1], tables[0]);
          }),
          { numRuns: 30 },
        );
        assert.deepEqual([...seen].sort(), [201, 400], 'the batches were all written or all refused');
      });

      it('finds the refused item one by one after the statement, as bulkCreate did', async () => {
        const model = models[0]!;
        await empty(model);
        const items = [
          { sku: 'a', name: 'A' },
          { sku: 'b', name: 'B', price: -1 },
          { sku: 'a', name: 'C' },
        ];
        taken.length = 0;
        const checked = await server.request('POST', '/m0', json(items));
        const clash = await server.request('POST', '/m0', json([items[0], items[2]]));
        assert.deepEqual(
          [checked.status, checked.body.data[0].field, clash.status, clash.body.data[0].field],
          [400, '1.price', 409, '1.sku'],
        );
        assert.deepEqual(taken, []);
        assert.equal(await model.count(), 0);
      });

      it('goes one by one when the statement cannot order the rows, running each create hook once per item', async () => {
        const model = models[0]!;
        await empty(model);
        Object.assign(calls, { beforeCreate: 0, afterCreate: 0 });
        taken.length = 0;
        const mixed = await server.request(
          'POST',
          '/ids',
          json([
            { id: 50, sku: 'a', name: 'A' },
            { sku: 'b', name: 'B' },
          ]),
        );
        assert.equal(mixed.status, 201, mixed.text);
        assert.deepEqual(
          mixed.body.data.map((r: Record<string, unknown>) => r['sku']),
          ['a', 'b'],
        );
        assert.equal(mixed.body.data[0].id, 50);
        assert.deepEqual(taken, ['one by one']);
        assert.deepEqual(calls, { beforeCreate: 2, afterCreate: 2 });
        const refused = await server.request(
          'POST',
          '/ids',
          json([
            { sku: 'c', name: 'C' },
            { sku: 'a', name: 'D' },
          ]),
        );
        assert.deepEqual([refused.status, refused.body.data[0].field], [409, '1.sku']);
        assert.deepEqual(calls, { beforeCreate: 4, afterCreate: 2 });
        assert.equal(await model.count(), 2);
      });
    });
  }
}
