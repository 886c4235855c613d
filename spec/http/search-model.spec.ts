import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import { itemRowArb, modelSearch, queryOf, searchArb } from '../arbitraries/search-arb.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Runs per form and dialect: half the old single-form default, so both forms take the time one did. */
const RUNS = Number(process.env['FAST_CRUD_MODEL_RUNS'] ?? 75);

for (const db of databases) for (const form of FORMS) {
  describe(`search against an in-memory model (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
    let server: TestServer;
    let Item: ModelStatic<Model>;

    before(async () => {
      Item = db.sequelize!.define(
        `Mdl${form.initial}Item`,
        {
          id: { type: DataTypes.INTEGER, primaryKey: true },
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
      await Item.sync({ force: true });
      const router = new Router();
      form.register(router, 'items', Item, { policy: { fillable: 'all' } }, { only: ['search'] });
      server = await serve(new Koa().use(router.routes()));
    });
    after(() => server?.close());

    it('returns exactly the rows, order and count of a plain filter-sort-slice', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(itemRowArb, { maxLength: 20 }), searchArb, async (generated, request) => {
          const rows = generated.map((row, i) => ({ ...row, id: i + 1 }));
          await Item.destroy({ where: {}, truncate: true });
          await Item.bulkCreate(rows.map(({ deleted, ...row }) => ({ ...row, deletedAt: deleted ? new Date() : null })));
          const res = await server.get(`/items?${queryOf(request)}`);
          assert.equal(res.status, 200, res.text);
          const expected = modelSearch(rows, request);
          assert.deepEqual(res.body.data.map((r: { id: number }) => r.id), expected.ids);
          assert.equal(res.body.meta.pagination.count, expected.count);
        }),
        { numRuns: RUNS },
      );
    });
  });
}
