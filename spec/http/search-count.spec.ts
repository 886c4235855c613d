/**
 * search.count: 'exact' (the default), 'none' (hasMore from one row past the page) and 'estimate'
 * (PostgreSQL's planner estimate from search.count_threshold up, exact below and elsewhere).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import { resolveConfig } from '../../lib/core/config.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

describe('search.count in the configuration', () => {
  it('returns a Left for a count strategy that is not exact, none or estimate', () => {
    assert.equal(resolveConfig({ search: { count: 'sometimes' } })._tag, 'Left');
    assert.equal(resolveConfig({ search: { count_threshold: 0 } })._tag, 'Left');
    assert.equal(resolveConfig({ search: { count: 'none', count_threshold: 10 } })._tag, 'Right');
  });
});

for (const db of databases)
  for (const form of FORMS) {
    describe(`search.count (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let Item: ModelStatic<Model>;

      before(async () => {
        Item = db.sequelize!.define(
          `Cnt${form.initial}Item`,
          { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(20), deleted_at: DataTypes.DATE },
          { tableName: `cnt${form.initial}_items`, timestamps: false },
        );
        await Item.sync({ force: true });
        await Item.bulkCreate(
          Array.from({ length: 9 }, (_, i) => ({
            id: i + 1,
            name: `item ${i + 1}`,
            deleted_at: i >= 7 ? new Date() : null,
          })),
        );
        if (db.dialect === 'postgres') await db.sequelize!.query(`ANALYZE cnt${form.initial}_items`);
        const router = new Router();
        const spec = { policy: { fillable: 'all' as const } };
        form.register(router, 'exact', Item, spec, { only: ['search'] });
        form.register(router, 'none', Item, spec, { only: ['search'], config: { search: { count: 'none' } } });
        form.register(router, 'estimate', Item, spec, {
          only: ['search'],
          config: { search: { count: 'estimate', count_threshold: 1 } },
        });
        form.register(router, 'small', Item, spec, {
          only: ['search'],
          config: { search: { count: 'estimate', count_threshold: 1_000_000 } },
        });
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      it('returns hasMore instead of count and pagesCount for none, with the rows exact returns', async () => {
        for (const [query, hasMore] of [
          ['perPage=3', true],
          ['perPage=3&page=2', true],
          ['perPage=3&page=3', false],
          ['perPage=7', false],
          ['page=9&perPage=3', false],
          ['sort=-id&perPage=6', true],
        ] as const) {
          const none = await server.get(`/none?${query}`);
          const exact = await server.get(`/exact?${query}`);
          assert.equal(none.status, 200, none.text);
          assert.deepEqual(none.body.data, exact.body.data, query);
          const { current, perPage } = exact.body.meta.pagination;
          assert.deepEqual(none.body.meta.pagination, { current, perPage, hasMore }, query);
        }
        const all = await server.get('/none?skipPagination=1');
        assert.deepEqual(
          [all.body.data.length, all.body.meta.pagination],
          [7, { current: 1, perPage: 7, hasMore: false }],
        );
      });

      it('returns the exact count below the threshold, and the estimate, marked estimated, from it up on PostgreSQL only', async () => {
        const small = await server.get('/small?perPage=3');
        assert.deepEqual(small.body.meta.pagination, { current: 1, perPage: 3, pagesCount: 3, count: 7 });
        const estimate = await server.get('/estimate?perPage=3&filter[id][gt]=1');
        const exact = await server.get('/exact?perPage=3&filter[id][gt]=1');
        assert.deepEqual(estimate.body.data, exact.body.data);
        if (db.dialect === 'postgres') {
          const { count, pagesCount, estimated } = estimate.body.meta.pagination;
          assert.equal(estimated, true);
          assert.ok(Number.isInteger(count) && count >= 1, String(count));
          assert.equal(pagesCount, Math.max(1, Math.ceil(count / 3)));
        } else {
          assert.deepEqual(estimate.body.meta.pagination, exact.body.meta.pagination);
        }
      });
    });
  }
