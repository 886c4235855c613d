/** Filter values over HTTP: trimmed, empty ones ignored, date bounds in the database's time zone, camelCase names. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases, type TestDatabase } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Rows at the edges: the last instants of 2024, the end of March, midnight of the next day. */
const ROWS = [
  { id: 1, name: 'test', qty: 1, category_id: 5, happenedAt: '2024-01-01T00:00:00.000Z', day: '2024-01-01' },
  { id: 2, name: 'other', qty: 2, category_id: 6, happenedAt: '2024-03-31T12:00:00.000Z', day: '2024-03-31' },
  { id: 3, name: 'a test', qty: 3, category_id: 5, happenedAt: '2024-04-01T00:00:00.000Z', day: '2024-04-01' },
  { id: 4, name: null, qty: null, category_id: null, happenedAt: '2024-12-31T18:00:00.000Z', day: '2024-12-31' },
  { id: 5, name: 'late', qty: 5, category_id: 6, happenedAt: '2024-12-31T23:59:59.999Z', day: '2024-12-31' },
  { id: 6, name: 'next', qty: 6, category_id: 7, happenedAt: '2025-01-01T00:00:00.000Z', day: '2025-01-01' },
  { id: 7, name: 'none', qty: 7, category_id: 7, happenedAt: null, day: null },
];

const spec: ResourceSpec<Model> = { policy: { fillable: 'all' }, search: { termFields: ['name'] } };

function defineEvent(sequelize: Sequelize, name: string, table: string): ModelStatic<Model> {
  return sequelize.define(
    name,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true },
      name: DataTypes.STRING(20),
      qty: DataTypes.INTEGER,
      category_id: DataTypes.INTEGER,
      // Milliseconds: MariaDB's DATETIME drops them otherwise.
      happenedAt: DataTypes.DATE(3),
      day: DataTypes.DATEONLY,
    },
    { tableName: table, underscored: true, timestamps: false },
  );
}

/** A second connection to the same database whose Sequelize `timezone` is +02:00. */
function withTimezone(db: TestDatabase, timezone: string): Sequelize {
  const { database, username, password, host, port } = db.sequelize!.config;
  return new Sequelize(database, username, password ?? undefined, {
    dialect: db.dialect as 'postgres' | 'mariadb',
    host,
    port: Number(port),
    logging: false,
    timezone,
    pool: { max: 2, idle: 1000 },
  });
}

const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((r) => r.id);

for (const db of databases)
  for (const form of FORMS) {
    describe(`filter values (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      const get = async (query: string) => {
        const res = await server.get(`/events?skipPagination=true&${query}`);
        assert.equal(res.status, 200, `${query}: ${res.text}`);
        return ids(res);
      };

      before(async () => {
        const Event = defineEvent(db.sequelize!, `Fv${form.initial}Event`, `fv${form.initial}_events`);
        await Event.sync({ force: true });
        await Event.bulkCreate(ROWS);
        const router = new Router();
        form.register(router, 'events', Event, spec, { only: ['search'] });
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      it('returns the whole end day for a date-only btw, lte and eq on a datetime', async () => {
        assert.deepEqual(await get('filter[happenedAt][btw]=2024-01-01,2024-12-31'), [1, 2, 3, 4, 5]);
        assert.deepEqual(await get('filter[happened_at][lte]=2024-12-31'), [1, 2, 3, 4, 5]);
        assert.deepEqual(await get('filter[happenedAt][eq]=2024-12-31'), [4, 5]);
        assert.deepEqual(await get('filter[happenedAt]=2024-12-31'), [4, 5]);
      });

      it('returns gt after the end of the day, lt before its start, gte from its start', async () => {
        assert.deepEqual(await get('filter[happenedAt][gt]=2024-12-31'), [6]);
        assert.deepEqual(await get('filter[happenedAt][lt]=2024-12-31'), [1, 2, 3]);
        assert.deepEqual(await get('filter[happenedAt][gte]=2024-12-31'), [4, 5, 6]);
        assert.deepEqual(await get('filter[happenedAt][gtn]=2024-12-31'), [6, 7]);
        assert.deepEqual(await get('filter[happenedAt][ltn]=2024-04-01'), [1, 2, 7]);
        assert.deepEqual(await get('filter[happenedAt][neq]=2024-12-31'), [1, 2, 3, 6]);
      });

      it('returns whole months and years, on DATE and DATEONLY columns alike', async () => {
        assert.deepEqual(await get('filter[happenedAt][btw]=2024-01,2024-03'), [1, 2]);
        assert.deepEqual(await get('filter[day][btw]=2024-01,2024-03'), [1, 2]);
        assert.deepEqual(await get('filter[day][lte]=2024-03'), [1, 2]);
        assert.deepEqual(await get('filter[day][eq]=2024-03-31'), [2]);
        assert.deepEqual(await get('filter[happenedAt][eq]=2024'), [1, 2, 3, 4, 5]);
        assert.deepEqual(await get('filter[day][in]=2024-03,2025'), [2, 6]);
        assert.deepEqual(await get('filter[day][nin]=2024-03,2025'), [1, 3, 4, 5]);
      });

      it('returns an instant for a value with a time, inclusive at both ends', async () => {
        assert.deepEqual(await get('filter[happenedAt][btw]=2024-12-31T18:00:00Z,2024-12-31T23:59:59.999Z'), [4, 5]);
        assert.deepEqual(await get('filter[happenedAt][eq]=2024-12-31T18:00Z'), [4]);
      });

      it('refuses a date that does not exist, naming the column as written', async () => {
        const res = await server.get('/events?filter[happenedAt][btw]=2024-02-01,2024-02-30&filter[day]=2023-02-29');
        assert.equal(res.status, 400);
        assert.deepEqual(res.body.data, [
          {
            field: 'happenedAt',
            error: 'invalidValue',
            message: 'happenedAt must be a date that exists: 2024-02 has 29 days',
          },
          { field: 'day', error: 'invalidValue', message: 'day must be a date that exists: 2023-02 has 28 days' },
        ]);
      });

      it('returns rows for padded values and a padded term, as for trimmed ones', async () => {
        assert.deepEqual(await get('filter[name][like]=%20%20test%20%20'), [1, 3]);
        assert.deepEqual(await get('filter[name]=%20test%20'), [1]);
        assert.deepEqual(await get('filter[qty][in]=%201%20,%203'), [1, 3]);
        assert.deepEqual(await get('filter[happenedAt][lte]=%202024-01-01%20'), [1]);
        assert.deepEqual(await get('filter[term]=%20%20TEST%20'), [1, 3]);
      });

      it('returns every row for the empty fields of a search form; nn still applies', async () => {
        const all = [1, 2, 3, 4, 5, 6, 7];
        const form =
          'filter[name][like]=&filter[qty][gt]=&filter[qty][in]=,,&filter[happenedAt][btw]=,&filter[day][eq]=%20&filter[category_id]=&filter[term]=%20%20';
        assert.deepEqual(await get(form), all);
        assert.deepEqual(await get(`${form}&filter[name][nn]=`), [1, 2, 3, 5, 6, 7]);
      });

      it('returns gte or lte for a btw with one side empty', async () => {
        assert.deepEqual(await get('filter[happenedAt][btw]=2024-12-31,'), [4, 5, 6]);
        assert.deepEqual(await get('filter[qty][btw]=,2'), [1, 2]);
      });

      it('resolves camelCase names of an underscored attribute in filter and sort alike', async () => {
        assert.deepEqual(await get('filter[categoryId]=5&sort=-categoryId,-id'), [3, 1]);
        assert.deepEqual(await get('filter[category_id][in]=6,7&sort=CategoryId,id'), [2, 5, 6, 7]);
        const res = await server.get('/events?filter[colourName]=x&sort=-colourName');
        assert.equal(res.status, 400);
        assert.deepEqual(
          res.body.data.map((f: { field: string; error: string }) => [f.field, f.error]),
          [
            ['colourName', 'columnNotFound'],
            ['colourName', 'columnNotFound'],
          ],
        );
      });
    });

    // Sequelize refuses a `timezone` on SQLite (its dates are always UTC), so this suite is for the servers.
    if (db.dialect !== 'sqlite')
      describe(
        `date filters in the Sequelize time zone +02:00 (${form.name} form) on ${db.dialect}`,
        { skip: db.skip },
        () => {
          let server: TestServer;
          let sequelize: Sequelize;
          const get = async (query: string) => {
            const res = await server.get(`/events?skipPagination=true&${query}`);
            assert.equal(res.status, 200, `${query}: ${res.text}`);
            return ids(res);
          };

          before(async () => {
            sequelize = withTimezone(db, '+02:00');
            const Event = defineEvent(sequelize, `Fv${form.initial}TzEvent`, `fv${form.initial}_tz_events`);
            await Event.sync({ force: true });
            await Event.bulkCreate(ROWS);
            const router = new Router();
            form.register(router, 'events', Event, spec, { only: ['search'] });
            server = await serve(new Koa().use(router.routes()));
          });
          after(async () => {
            await server?.close();
            await sequelize?.close();
          });

          it('returns the days of +02:00: 2024-12-31T23:59:59.999Z is already 2025-01-01 there', async () => {
            assert.deepEqual(await get('filter[happenedAt][eq]=2024-12-31'), [4]);
            assert.deepEqual(await get('filter[happenedAt][eq]=2025-01-01'), [5, 6]);
            assert.deepEqual(await get('filter[happenedAt][lte]=2024-12-31'), [1, 2, 3, 4]);
            assert.deepEqual(await get('filter[happenedAt][btw]=2024-04,2024-12'), [3, 4]);
          });

          it('reads a time without an offset in +02:00, and one with an offset as written', async () => {
            assert.deepEqual(await get('filter[happenedAt][eq]=2024-12-31T20:00'), [4]);
            assert.deepEqual(await get('filter[happenedAt][eq]=2024-12-31T18:00:00Z'), [4]);
          });

          it('returns DATEONLY days as they are, whatever the zone', async () => {
            assert.deepEqual(await get('filter[day][eq]=2024-12-31'), [4, 5]);
          });
        },
      );
  }
