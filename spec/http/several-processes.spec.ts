/**
 * Two app processes on one database (SQLite as a WAL file under .tmp/, PostgreSQL, MariaDB), both
 * forms: what one writes the other reads at once, and a schema change made while both run is seen
 * by both at once, whatever each kept from earlier requests (the table description, prepared
 * searches, SQL fragments, the executor probe): a 400 naming a column that is gone, never a 500,
 * and never a stale 400 once it is back. Tables `mpc_items`, `mpr_items` (spec/support/app-process.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Sequelize } from 'sequelize';
import {
  columnGone,
  columnValues,
  connect,
  defineItem,
  json,
  startApp,
  type AppDatabase,
  type AppProcess,
} from '../support/app-process.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';

const servers = await testDatabases();
// SQLite's in-memory database is one process's: the suite uses a WAL file instead.
const memory = servers.find((db) => db.dialect === 'sqlite')!;
await memory.sequelize!.close();
after(() => closeAll(servers.filter((db) => db !== memory)));

mkdirSync('.tmp', { recursive: true });
const file = `.tmp/several-processes-${process.pid}.sqlite`;
const databases: { dialect: string; database?: AppDatabase; skip?: string }[] = [
  { dialect: 'sqlite', database: { storage: file } },
  ...servers
    .filter((db) => db.dialect !== 'sqlite')
    .map((db) => ({
      dialect: db.dialect,
      ...(db.skip === undefined
        ? { database: { url: db.dialect === 'postgres' ? PG_URL() : MARIADB_URL() } }
        : { skip: db.skip }),
    })),
];

function PG_URL(): string {
  return process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
}
function MARIADB_URL(): string {
  return process.env['FAST_CRUD_MARIADB_URL'] ?? 'mariadb://root@127.0.0.1:3306/test';
}

/** Ports 17700–17705: two per database. */
const PORT = 17700;

databases.forEach(({ dialect, database, skip }, index) => {
  describe(`two app processes on one ${dialect} database`, { skip }, () => {
    let sequelize: Sequelize;
    let a: AppProcess, b: AppProcess;

    before(async () => {
      if (dialect === 'sqlite') rmSync(file, { force: true });
      sequelize = connect(database!, 'spSuite');
      if (dialect === 'sqlite') await sequelize.query('PRAGMA journal_mode=WAL');
      for (const form of FORMS) {
        const Item = defineItem(sequelize, form);
        await Item.sync({ force: true });
        await Item.bulkCreate([
          { name: 'Chair', price: 10, rating: 4 },
          { name: 'Desk', price: 20, rating: 5 },
        ]);
      }
      [a, b] = await Promise.all([
        startApp(database!, PORT + 2 * index, 'spA'),
        startApp(database!, PORT + 2 * index + 1, 'spB'),
      ]);
    });
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await sequelize?.close();
      if (dialect === 'sqlite') for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    });

    for (const form of FORMS) {
      const base = `/${form.name}/items`;
      const table = `mp${form.initial}_items`;
      const alter = (change: string) => sequelize.query(`ALTER TABLE ${table} ${change}`);

      it(`(${form.name} form) reads, searches and options in B see A's create, update and delete at once`, async () => {
        const search = `${base}?filter[name]=Lamp&sort=-price`;
        const options = `${base}/options?label=name`;
        // B keeps what it can first: the probe's executor, the prepared search, the table's description.
        for (let i = 0; i < 2; i++) assert.equal((await b.get(search)).body.meta.pagination.count, 0);
        const created = await a.request('POST', base, json({ name: 'Lamp', price: 30 }));
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as string;
        assert.equal((await b.get(`${base}/${id}`)).body.data.price, 30);
        assert.deepEqual((await b.get(search)).body.data, [{ id, name: 'Lamp', price: 30, rating: null }]);
        assert.ok((await b.get(options)).body.data.some((item: { value: string }) => item.value === id));

        assert.equal((await a.request('PATCH', `${base}/${id}`, json({ price: 35 }))).status, 200);
        assert.equal((await b.get(`${base}/${id}`)).body.data.price, 35);
        assert.equal((await b.get(search)).body.data[0].price, 35);

        assert.equal((await a.request('DELETE', `${base}/${id}`)).status, 200);
        assert.equal((await b.get(`${base}/${id}`)).status, 404);
        assert.equal((await b.get(search)).body.meta.pagination.count, 0);
        assert.ok(!(await b.get(options)).body.data.some((item: { value: string }) => item.value === id));
      });

      it(`(${form.name} form) a column added while both run is a value column at once in both; dropped, a 400 naming it; back, at once`, async () => {
        const path = `${base}/options?label=name&value=legacy_code`;
        // Each process describes the table without the column first, and keeps that description.
        for (const app of [a, b]) columnGone(await app.get(path), 'legacy_code');
        await alter('ADD COLUMN legacy_code VARCHAR(20)');
        await sequelize.query(`UPDATE ${table} SET legacy_code = name`);
        for (const app of [a, b]) assert.deepEqual(columnValues(await app.get(path)), ['Chair', 'Desk']);
        await alter('DROP COLUMN legacy_code');
        // Both still describe the table with the column: the failed select describes it again.
        for (const app of [a, b]) columnGone(await app.get(path), 'legacy_code');
        await alter('ADD COLUMN legacy_code VARCHAR(20)');
        for (const app of [a, b]) assert.deepEqual(columnValues(await app.get(path)), [null, null]);
        await alter('DROP COLUMN legacy_code');
      });

      it(`(${form.name} form) a select that failed on a dropped value column, the column back before the table is described again: 200, not a 500`, async () => {
        const path = `${base}/options?label=name&value=legacy_code`;
        await alter('ADD COLUMN legacy_code VARCHAR(20)');
        assert.deepEqual(columnValues(await a.get(path)), [null, null]);
        await alter('DROP COLUMN legacy_code');
        // A's kept description has the column, so its select runs and fails; its new description waits 600 ms, and
        // the column is back before it runs.
        assert.equal((await a.request('POST', '/test/describe-delay?ms=600')).status, 204);
        try {
          const pending = a.get(path);
          await new Promise((resolve) => setTimeout(resolve, 250));
          await alter('ADD COLUMN legacy_code VARCHAR(20)');
          assert.deepEqual(columnValues(await pending), [null, null]);
        } finally {
          await a.request('POST', '/test/describe-delay?ms=0');
        }
        await alter('DROP COLUMN legacy_code');
        columnGone(await a.get(path), 'legacy_code');
      });

      it(`(${form.name} form) requests racing six ADD and DROP COLUMNs answer 200 or a 400 naming it, never a 500`, async (t) => {
        const path = `${base}/options?label=name&value=legacy_code`;
        const statuses = new Map<number, number>();
        const wrong: string[] = [];
        let running = true;
        const load = async (app: AppProcess) => {
          while (running) {
            const res = await app.get(path);
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            const fine =
              (res.status === 200 && res.body.data.length === 2) ||
              (res.status === 400 && res.body.data?.[0]?.field === 'legacy_code');
            if (!fine) wrong.push(`${res.status} ${res.text.slice(0, 200)}`);
          }
        };
        const faults = a.faults().length + b.faults().length;
        const loops = [a, a, b, b].map(load);
        let checks = 0;
        for (let round = 0; round < 6; round++) {
          await alter('ADD COLUMN legacy_code VARCHAR(20)');
          // Once the ALTER has returned, the next request of each process sees the column.
          for (const app of [a, b]) assert.equal((await app.get(path)).status, 200, `round ${round}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
          await alter('DROP COLUMN legacy_code');
          for (const app of [a, b]) columnGone(await app.get(path), 'legacy_code');
          await new Promise((resolve) => setTimeout(resolve, 20));
          checks += 4;
        }
        running = false;
        await Promise.all(loops);
        t.diagnostic(`${checks} checks after ALTERs; racing requests by status: ${JSON.stringify([...statuses])}`);
        assert.deepEqual(wrong, [], a.faults() + b.faults());
        assert.equal(a.faults().length + b.faults().length, faults, a.faults() + b.faults());
      });

      it(`(${form.name} form) a declared column dropped and added back: filters and sorts on it work again at once in both`, async () => {
        const search = `${base}?filter[rating][gte]=5&sort=-rating`;
        for (const app of [a, b]) assert.equal((await app.get(search)).body.data[0].name, 'Desk');
        await alter('DROP COLUMN rating');
        // A model declaring a column the table lacks is the app's fault, not the client's: a 500
        // that says nothing of the SQL.
        for (const app of [a, b]) {
          const res = await app.get(search);
          assert.equal(res.status, 500);
          assert.equal(res.body.status, 'error');
          assert.doesNotMatch(res.text, /rating|SELECT|column/i);
        }
        await alter('ADD COLUMN rating INTEGER');
        await sequelize.query(`UPDATE ${table} SET rating = price / 4`);
        for (const app of [a, b]) {
          const res = await app.get(search);
          assert.equal(res.status, 200, res.text);
          assert.deepEqual(
            res.body.data.map((row: { name: string }) => row.name),
            ['Desk'],
          );
        }
        // The faults the drop caused, one line each, and nothing else.
        for (const app of [a, b]) assert.match(app.faults(), /^(fault: .*\n)*$/);
      });
    }
  });
});
