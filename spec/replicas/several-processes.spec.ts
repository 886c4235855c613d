/**
 * Two app processes on a PostgreSQL primary whose reads go to a hot standby 300 ms late (the
 * replica set of spec/support/replicas.ts), both forms: B reads A's write at once from the primary
 * with `useMaster`, and from the standby once it has replayed it; a value column added on the
 * primary is an options value column at once in both, read from the primary until the standby has
 * it. Tables `mpc_items`, `mpr_items` in the set's database `several_processes`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QueryTypes, type Sequelize } from 'sequelize';
import {
  columnGone,
  columnValues,
  defineItem,
  json,
  startApp,
  type AppDatabase,
  type AppProcess,
} from '../support/app-process.js';
import { FORMS } from '../support/forms.js';
import { logMark, replicaSet, replicatedSequelize, statementsSince, type Server } from '../support/replicas.js';

const set = await replicaSet('sp');
const skip = 'skip' in set ? set.skip : undefined;
const DATABASE = 'several_processes';
/** Ports 17710 and 17711. */
const PORT = 17710;

describe('two app processes on a PostgreSQL primary and its 300 ms-late standby', { skip }, () => {
  let sequelize: Sequelize;
  let a: AppProcess, b: AppProcess;

  /** Waits until the late standby has replayed everything the primary has written so far. */
  const replayed = async () => {
    const [primary] = await sequelize.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn', {
      type: QueryTypes.SELECT,
      useMaster: true,
    });
    for (;;) {
      const [standby] = await sequelize.query<{ done: boolean }>(
        `SELECT pg_last_wal_replay_lsn() >= '${primary!.lsn}'::pg_lsn AS done`,
        { type: QueryTypes.SELECT },
      );
      if (standby!.done) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  before(async () => {
    if ('skip' in set) return;
    sequelize = await replicatedSequelize(set, [set.delayed], DATABASE, 'spSuite');
    for (const form of FORMS) {
      const Item = defineItem(sequelize, form);
      await Item.sync({ force: true });
      await Item.bulkCreate([
        { name: 'Chair', price: 10, rating: 4 },
        { name: 'Desk', price: 20, rating: 5 },
      ]);
    }
    await replayed();
    const server = ({ host, port }: Server) => ({ host, port, username: 'postgres' });
    const database: AppDatabase = {
      replication: { read: [server(set.delayed)], write: server(set.primary) },
      database: DATABASE,
    };
    [a, b] = await Promise.all([startApp(database, PORT, 'spA'), startApp(database, PORT + 1, 'spB')]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sequelize?.close();
    if (!('skip' in set)) await set.release();
  });

  for (const form of FORMS) {
    const base = `/${form.name}/items`;
    const table = `mp${form.initial}_items`;

    it(`(${form.name} form) B reads A's create at once with useMaster, and from the standby once it has replayed it`, async () => {
      if ('skip' in set) return;
      const mark = await logMark(set);
      const created = await a.request('POST', base, json({ name: 'Lamp', price: 30 }));
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id as string;
      // On the primary, though the standby is 300 ms late.
      const master = await b.get(`${base}/${id}`, { 'x-use-master': '1' });
      assert.equal(master.status, 200, master.text);
      assert.equal(master.body.data.name, 'Lamp');
      await replayed();
      assert.equal((await b.get(`${base}/${id}`)).body.data.price, 30);
      assert.deepEqual(
        (await b.get(`${base}?filter[name]=Lamp`)).body.data.map((row: { id: string }) => row.id),
        [id],
      );
      const options = await b.get(`${base}/options?label=name`);
      assert.ok(options.body.data.some((item: { value: string }) => item.value === id));
      assert.equal((await a.request('DELETE', `${base}/${id}`)).status, 200);
      const [byA, byB] = await Promise.all([statementsSince(set, mark, 'spA'), statementsSince(set, mark, 'spB')]);
      // (Sequelize sends writes with bound parameters, which the log shows as `execute`, not `statement`.)
      assert.deepEqual([...byA.delayed, ...byA.standby, ...byB.standby], []);
      // B's useMaster read on the primary, its three later reads on the late standby.
      assert.equal(byB.primary.filter((sql) => sql.startsWith('SELECT') && sql.includes(id)).length, 1);
      assert.ok(byB.delayed.filter((sql) => sql.startsWith('SELECT')).length >= 3, byB.delayed.join('\n'));
      await replayed();
    });

    it(`(${form.name} form) a column added on the primary is a value column at once in both, read from the primary until the standby has it`, async (t) => {
      if ('skip' in set) return;
      const path = `${base}/options?label=name&value=legacy_code`;
      const valuesFrom = (statements: string[]) => statements.filter((sql) => /^SELECT .*legacy_code/.test(sql)).length;
      for (const app of [a, b]) columnGone(await app.get(path), 'legacy_code');
      // The standby stops replaying, so the ADD stays off it: its select of the column fails, the primary's description
      // has the column, and the select runs again on the primary.
      await sequelize.query('SELECT pg_wal_replay_pause()', { type: QueryTypes.SELECT });
      try {
        const mark = await logMark(set);
        await sequelize.query(
          `BEGIN; ALTER TABLE ${table} ADD COLUMN legacy_code VARCHAR(20); UPDATE ${table} SET legacy_code = name; COMMIT`,
        );
        for (const app of [a, b]) assert.deepEqual(columnValues(await app.get(path)), ['Chair', 'Desk']);
        const [byA, byB] = await Promise.all([statementsSince(set, mark, 'spA'), statementsSince(set, mark, 'spB')]);
        // (The fast executor runs a select that failed on the driver connection again through sequelize.query, so
        // the standby ran it once or twice: only whether it ran it is compared.)
        for (const by of [byA, byB]) assert.deepEqual([valuesFrom(by.delayed) > 0, valuesFrom(by.primary)], [true, 1]);
      } finally {
        await sequelize.query('SELECT pg_wal_replay_resume()', { type: QueryTypes.SELECT });
      }
      await replayed();
      const mark = await logMark(set);
      for (const app of [a, b]) assert.deepEqual(columnValues(await app.get(path)), ['Chair', 'Desk']);
      const later = await statementsSince(set, mark, 'spB');
      assert.deepEqual([valuesFrom(later.delayed) > 0, valuesFrom(later.primary)], [true, 0]);
      await sequelize.query(`ALTER TABLE ${table} DROP COLUMN legacy_code`);
      await replayed();
      for (const app of [a, b]) columnGone(await app.get(path), 'legacy_code');
      // Replaying as it should, the late standby takes the ADD's lock at once and holds it until it replays the
      // commit 300 ms later: a select of the table there waits for it, then sees the column.
      await sequelize.query(`ALTER TABLE ${table} ADD COLUMN legacy_code VARCHAR(20)`);
      const started = performance.now();
      assert.deepEqual(columnValues(await a.get(path)), [null, null]);
      t.diagnostic(
        `the first options request after the ADD, on the late standby: ${Math.round(performance.now() - started)} ms`,
      );
      assert.deepEqual(columnValues(await b.get(path)), [null, null]);
      await sequelize.query(`ALTER TABLE ${table} DROP COLUMN legacy_code`);
      await replayed();
      assert.equal(a.faults() + b.faults(), '');
    });
  }
});
