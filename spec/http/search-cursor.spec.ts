/**
 * Cursor pagination (`cursor=`): keyset pages over the whole sort, NULLs and duplicates included, walked forward by
 * `next` and back by `prev`, with signed cursors bound to the request's sort and filter.
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

interface Pagination {
  perPage: number;
  next: string | null;
  prev: string | null;
  count?: number;
}

describe('search.cursor_secret in the configuration', () => {
  it('returns a Left for a secret shorter than 32 characters or not a string, and a Right for null or a long one', () => {
    assert.equal(resolveConfig({ search: { cursor_secret: 'short' } })._tag, 'Left');
    assert.equal(resolveConfig({ search: { cursor_secret: 42 } })._tag, 'Left');
    assert.equal(resolveConfig({ search: { cursor_secret: null } })._tag, 'Right');
    assert.equal(resolveConfig({ search: { cursor_secret: 'x'.repeat(32) } })._tag, 'Right');
  });
});

for (const db of databases)
  for (const form of FORMS) {
    describe(`search with cursor= (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let Item: ModelStatic<Model>;
      let Group: ModelStatic<Model>;

      before(async () => {
        Group = db.sequelize!.define(
          `Cur${form.initial}Group`,
          { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(10) },
          { tableName: `cur${form.initial}_groups`, timestamps: false },
        );
        Item = db.sequelize!.define(
          `Cur${form.initial}Item`,
          {
            id: { type: DataTypes.INTEGER, primaryKey: true },
            name: DataTypes.STRING(10),
            score: DataTypes.INTEGER,
            price: DataTypes.DECIMAL(10, 2),
            seenAt: DataTypes.DATE(3),
            groupId: DataTypes.INTEGER,
            deleted_at: DataTypes.DATE,
          },
          { tableName: `cur${form.initial}_items`, timestamps: false },
        );
        Item.belongsTo(Group, { as: 'group', foreignKey: 'groupId', constraints: false });
        await Group.sync({ force: true });
        await Item.sync({ force: true });
        await Group.bulkCreate([
          { id: 1, name: 'b' },
          { id: 2, name: null },
          { id: 3, name: 'a' },
        ]);
        // NULLs and duplicates in every sort column; two rows soft-deleted.
        const names = ['b', null, 'a', 'b', null, 'c', 'a', 'b', null, 'a', 'c', 'b', null, 'a', 'b', 'b', 'a'];
        await Item.bulkCreate(
          names.map((name, i) => ({
            id: i + 1,
            name,
            score: i % 5 === 0 ? null : (i * 7) % 4,
            price: i % 3 === 0 ? null : ((i * 13) % 5) + 0.25,
            seenAt: i % 4 === 0 ? null : new Date(Date.UTC(2024, 0, 1 + (i % 3), 23, 59, 59, 999)),
            groupId: i % 4 === 3 ? null : (i % 3) + 1,
            deleted_at: i === 4 || i === 11 ? new Date() : null,
          })),
        );
        const router = new Router();
        const spec = {
          policy: { fillable: 'all' as const },
          relations: { group: { sortable: ['name'], filterable: ['name'], include: true } },
        };
        const secret = (letter: string) => ({ search: { cursor_secret: letter.repeat(40) } });
        form.register(router, 'items', Item, spec, { only: ['search'], config: secret('a') });
        form.register(router, 'none', Item, spec, {
          only: ['search'],
          config: { search: { count: 'none', cursor_secret: 'a'.repeat(40) } },
        });
        form.register(router, 'other', Item, spec, { only: ['search'], config: secret('b') });
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      const ids = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);

      /** The pages from `cursor=` on, following `next`, then back from the last page following `prev`. */
      async function walk(path: string, query: string, perPage: number) {
        const forward: { ids: number[]; pagination: Pagination }[] = [];
        let cursor = '';
        for (let i = 0; i < 40; i++) {
          const res = await server.get(`${path}?${query}&perPage=${perPage}&cursor=${encodeURIComponent(cursor)}`);
          assert.equal(res.status, 200, res.text);
          for (const row of res.body.data as Record<string, unknown>[]) {
            assert.deepEqual(
              Object.keys(row).filter((key) => key.startsWith('__')),
              [],
              'no keyset value shows',
            );
            if (query.includes('include=group')) assert.ok('group' in row, 'the included association');
          }
          forward.push({ ids: ids(res.body), pagination: res.body.meta.pagination });
          if (res.body.meta.pagination.next === null) break;
          cursor = res.body.meta.pagination.next;
        }
        const backward: number[][] = [forward.at(-1)!.ids];
        let prev = forward.at(-1)!.pagination.prev;
        for (let i = 0; prev !== null && i < 40; i++) {
          const res = await server.get(`${path}?${query}&perPage=${perPage}&cursor=${encodeURIComponent(prev)}`);
          assert.equal(res.status, 200, res.text);
          backward.unshift(ids(res.body));
          prev = res.body.meta.pagination.prev;
        }
        return { forward, backward };
      }

      async function offsetOrder(query: string): Promise<number[]> {
        const res = await server.get(`/items?${query}&skipPagination=1`);
        assert.equal(res.status, 200, res.text);
        return ids(res.body);
      }

      it('returns, page after page, exactly the rows of the offset order for sorts with NULLs and duplicates, forward by next and back by prev', async () => {
        const sorts = [
          '',
          'sort=name&include=group',
          'sort=name',
          'sort=-name',
          'sort=score,-name',
          'sort=-price',
          'sort=seenAt,name',
          'sort=-group.name',
        ];
        const filters = ['', 'filter[score][gte]=1', 'filter[name][like]=b', 'filter[deleted_at][gte]=2000-01-01'];
        for (const sort of sorts)
          for (const filter of filters) {
            const query = [sort, filter].filter((part) => part !== '').join('&') || 'x=';
            const q = query === 'x=' ? '' : query;
            const expected = await offsetOrder(q);
            for (const perPage of [1, 4]) {
              const { forward, backward } = await walk('/items', q, perPage);
              assert.deepEqual(
                forward.flatMap((page) => page.ids),
                expected,
                `${q} perPage=${perPage}`,
              );
              assert.deepEqual(backward.flat(), expected, `${q} perPage=${perPage}, back`);
              assert.equal(forward[0]!.pagination.prev, null);
              for (const page of forward) {
                assert.equal(page.pagination.count, expected.length);
                assert.equal(page.pagination.perPage, perPage);
              }
            }
          }
      });

      it('returns perPage, next and prev without a count for search.count none, and a perPage changed midway', async () => {
        const first = await server.get('/none?sort=name&perPage=5&cursor=');
        assert.equal(first.status, 200, first.text);
        assert.deepEqual(Object.keys(first.body.meta.pagination).sort(), ['next', 'perPage', 'prev']);
        const second = await server.get(
          `/none?sort=name&perPage=20&cursor=${encodeURIComponent(first.body.meta.pagination.next)}`,
        );
        assert.equal(second.status, 200, second.text);
        assert.deepEqual([...ids(first.body), ...ids(second.body)], await offsetOrder('sort=name'));
        assert.equal(second.body.meta.pagination.next, null);
      });

      it('returns 400 invalidCursor for a changed cursor, another sort or filter, or another secret', async () => {
        const first = await server.get('/items?sort=name&filter[score][gte]=1&perPage=2&cursor=');
        const next: string = first.body.meta.pagination.next;
        const flipped = `${next.slice(0, 3)}${next[3] === 'A' ? 'B' : 'A'}${next.slice(4)}`;
        for (const path of [
          `/items?sort=name&filter[score][gte]=1&perPage=2&cursor=${encodeURIComponent(flipped)}`,
          `/items?sort=-name&filter[score][gte]=1&perPage=2&cursor=${encodeURIComponent(next)}`,
          `/items?sort=name&filter[score][gte]=2&perPage=2&cursor=${encodeURIComponent(next)}`,
          `/items?sort=name&perPage=2&cursor=${encodeURIComponent(next)}`,
          `/other?sort=name&filter[score][gte]=1&perPage=2&cursor=${encodeURIComponent(next)}`,
          `/items?sort=name&filter[score][gte]=1&cursor=garbage`,
        ]) {
          const res = await server.get(path);
          assert.equal(res.status, 400, path);
          assert.equal(res.body.status, 'fail');
          assert.deepEqual(
            res.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
            [['cursor', 'invalidCursor']],
            path,
          );
        }
        const again = await server.get(
          `/items?filter[score][gte]=1&sort=name&perPage=3&cursor=${encodeURIComponent(next)}`,
        );
        assert.equal(again.status, 200, again.text);
      });

      it('returns 400 invalidValue for cursor with page or skipPagination, or a cursor that is not one value', async () => {
        for (const query of ['cursor=&page=2', 'cursor=&skipPagination=true', 'cursor[a]=1', 'cursor=a&cursor=b']) {
          const res = await server.get(`/items?${query}`);
          assert.equal(res.status, 400, query);
          assert.deepEqual(
            res.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
            [['cursor', 'invalidValue']],
            query,
          );
        }
      });
    });
  }
