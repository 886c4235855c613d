import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import {
  modelRows,
  modelSearch,
  queryOf,
  searchArb,
  worldArb,
  type ModelRow,
  type World,
} from '../arbitraries/search-arb.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Runs per form and dialect: half the old single-form default, so both forms take the time one did. */
const RUNS = Number(process.env['FAST_CRUD_MODEL_RUNS'] ?? 75);

for (const db of databases)
  for (const form of FORMS) {
    describe(`search against an in-memory model (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let Item: ModelStatic<Model>;
      let Group: ModelStatic<Model>;
      let Note: ModelStatic<Model>;

      before(async () => {
        Group = db.sequelize!.define(
          `Mdl${form.initial}Group`,
          { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(10), deletedAt: DataTypes.DATE },
          { tableName: `mdl${form.initial}_groups`, underscored: true, timestamps: false },
        );
        Note = db.sequelize!.define(
          `Mdl${form.initial}Note`,
          {
            id: { type: DataTypes.INTEGER, primaryKey: true },
            itemId: DataTypes.INTEGER,
            text: DataTypes.STRING(10),
            deletedAt: DataTypes.DATE,
          },
          { tableName: `mdl${form.initial}_notes`, underscored: true, timestamps: false },
        );
        Item = db.sequelize!.define(
          `Mdl${form.initial}Item`,
          {
            id: { type: DataTypes.INTEGER, primaryKey: true },
            groupId: DataTypes.INTEGER,
            name: DataTypes.STRING(10),
            rank: { type: DataTypes.INTEGER, allowNull: false },
            qty: DataTypes.INTEGER,
            active: { type: DataTypes.BOOLEAN, allowNull: false },
            deletedAt: DataTypes.DATE,
            // Milliseconds kept on MariaDB too: rows sit at 23:59:59.999.
            seenAt: DataTypes.DATE(3),
          },
          { tableName: `mdl${form.initial}_items`, underscored: true, timestamps: false },
        );
        // No foreign-key constraints, so each run can empty the tables in any order.
        Item.belongsTo(Group, { as: 'group', foreignKey: 'groupId', constraints: false });
        Item.hasMany(Note, { as: 'notes', foreignKey: 'itemId', constraints: false });
        for (const model of [Group, Item, Note]) await model.sync({ force: true });
        const router = new Router();
        const relations = { group: { filterable: ['name'], sortable: ['name'] }, notes: { filterable: ['text'] } };
        form.register(router, 'items', Item, { policy: { fillable: 'all' }, relations }, { only: ['search'] });
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      it('returns exactly the rows, order and count of a filter-sort-slice, through a belongs-to and a has-many association too, and the fields of a fieldset', async () => {
        await fc.assert(
          fc.asyncProperty(worldArb, searchArb, async (world, request) => {
            const rows = await load(world);
            const res = await server.get(`/items?${queryOf(request)}`);
            assert.equal(res.status, 200, res.text);
            const expected = modelSearch(rows, request);
            if (expected.records !== undefined) assert.deepEqual(res.body.data, expected.records);
            else
              assert.deepEqual(
                res.body.data.map((r: { id: number }) => r.id),
                expected.ids,
              );
            assert.equal(res.body.meta.pagination.count, expected.count);
          }),
          { numRuns: RUNS },
        );
      });

      /** Empties the tables and writes the world's rows; returns the oracle's rows. */
      async function load(world: World): Promise<ModelRow[]> {
        const rows = modelRows(world);
        const gone = (deleted: boolean) => (deleted ? new Date() : null);
        for (const model of [Group, Item, Note]) await model.destroy({ where: {} });
        await Group.bulkCreate(
          world.groups.map((group, i) => ({ id: i + 1, name: group.name, deletedAt: gone(group.deleted) })),
        );
        await Item.bulkCreate(
          rows.map(({ deleted, group, groupName: _, notes: __, ...row }) => ({
            ...row,
            groupId: group === null ? null : group + 1,
            deletedAt: gone(deleted),
          })),
        );
        if (world.notes.length > 0)
          await Note.bulkCreate(
            world.notes.map((note, i) => ({
              id: i + 1,
              itemId: note.item + 1,
              text: note.text,
              deletedAt: gone(note.deleted),
            })),
          );
        return rows;
      }

      it('returns, walked page by page from cursor= by next and back by prev, exactly the rows and order of the filter-sort', async () => {
        await fc.assert(
          fc.asyncProperty(worldArb, searchArb, fc.integer({ min: 1, max: 6 }), async (world, request, perPage) => {
            const rows = await load(world);
            // Every row of the filter-sort, in whole records (the walk reads their ids), without skipPagination.
            const all = { ...request, page: null, fields: null };
            const query = queryOf(all).replace(/(^|&)skipPagination=true(?=&|$)/, '');
            const expected = modelSearch(rows, all);
            const get = async (cursor: string) => {
              const res = await server.get(`/items?${query}&perPage=${perPage}&cursor=${encodeURIComponent(cursor)}`);
              assert.equal(res.status, 200, res.text);
              assert.equal(res.body.meta.pagination.count, expected.count);
              return {
                ids: res.body.data.map((r: { id: number }) => r.id) as number[],
                next: res.body.meta.pagination.next as string | null,
                prev: res.body.meta.pagination.prev as string | null,
              };
            };
            const forward = [await get('')];
            while (forward.at(-1)!.next !== null && forward.length <= expected.ids.length)
              forward.push(await get(forward.at(-1)!.next!));
            assert.deepEqual(
              forward.flatMap((page) => page.ids),
              expected.ids,
            );
            const backward = [forward.at(-1)!];
            while (backward[0]!.prev !== null && backward.length <= expected.ids.length)
              backward.unshift(await get(backward[0]!.prev!));
            assert.deepEqual(
              backward.flatMap((page) => page.ids),
              expected.ids,
            );
          }),
          { numRuns: Math.ceil(RUNS / 3) },
        );
      });
    });
  }
