/**
 * Exports with read replicas, on a real PostgreSQL primary and hot standby built for this suite
 * (it reconfigures the standby, so never the set `.ci/run` shares): which server reads the export's
 * snapshot (the standby by default; the primary with `export_csv.use_master` or a hook's
 * `useMaster: true`, logging on or off), and what a client sees when the standby cancels the
 * snapshot mid-stream (a recovery conflict: the primary vacuums rows the snapshot still sees).
 * Over both forms; tables `rex*`.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, QueryTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import type { CrudPlugin } from '../../lib/index.js';
import { exportOnPrimary, hooks as primaryHooks } from '../../docs/examples/operations/replicas.js';
import { FORMS, type Form } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { logMark, replicaSet, replicatedSequelize, statementsSince, type ReplicaSet } from '../support/replicas.js';

const set = await replicaSet('c2x', { own: true });
after(async () => {
  if (!('skip' in set)) await set.release();
});

/** Rows per export: about 4 MB of CSV, far more than the socket and stream buffers hold while the client pauses. */
const ROWS = 20_000;
const DATABASE = 'rex';

describe('exports with replicas', { skip: 'skip' in set ? set.skip : false }, () => {
  const replicas = set as ReplicaSet;
  let admin: { primary: Sequelize; standby: Sequelize };
  const instances: Sequelize[] = [];

  before(async () => {
    const connect = (server: ReplicaSet['primary']) =>
      new Sequelize({
        dialect: 'postgres',
        host: server.host,
        port: server.port,
        username: 'postgres',
        database: DATABASE,
        logging: false,
      });
    // Creates the suite's database on the primary and waits for the standby to have it.
    instances.push(await replicatedSequelize(replicas, [replicas.standby], DATABASE, 'rex_setup'));
    admin = { primary: connect(replicas.primary), standby: connect(replicas.standby) };
  });
  after(async () => {
    await Promise.all([...instances, admin?.primary, admin?.standby].map((sequelize) => sequelize?.close()));
  });

  /** The one value a query selects. */
  async function one<T>(sequelize: Sequelize, sql: string): Promise<T> {
    const [row] = await sequelize.query<Record<string, T>>(sql, { type: QueryTypes.SELECT });
    return Object.values(row!)[0]!;
  }

  /** Sets a parameter of the standby (its conf.d, then a reload) and waits until the standby shows it. */
  async function standbySetting(name: string, value: string): Promise<void> {
    const file = await one<string>(admin.standby, "SELECT current_setting('config_file')");
    await writeFile(join(dirname(file), 'conf.d', `rex-${name}.conf`), `${name} = '${value}'\n`);
    await admin.standby.query('SELECT pg_reload_conf()');
    for (let i = 0; i < 100; i += 1) {
      if ((await one<string>(admin.standby, `SELECT current_setting('${name}')`)) === value) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the standby did not take ${name} = ${value}`);
  }

  /** Waits until the standby has replayed everything the primary wrote so far. */
  async function replayed(): Promise<void> {
    const lsn = await one<string>(admin.primary, 'SELECT pg_current_wal_lsn()::text');
    for (let i = 0; i < 200; i += 1) {
      if (await one<boolean>(admin.standby, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the standby did not replay the primary in 5 s');
  }

  /** A table `rex<initial>_<name>` of ROWS rows with a 160-character note each, filled on the primary and replayed. */
  async function fill(sequelize: Sequelize, name: string): Promise<ModelStatic<Model>> {
    const Item = sequelize.define(
      `rex_${name}`,
      {
        id: { type: DataTypes.INTEGER, primaryKey: true },
        note: { type: DataTypes.STRING(200), allowNull: false },
      },
      { tableName: name, timestamps: false },
    );
    await admin.primary.query(`DROP TABLE IF EXISTS "${name}"`);
    await admin.primary.query(`CREATE TABLE "${name}" (id integer PRIMARY KEY, note varchar(200) NOT NULL)`);
    await admin.primary.query(
      `INSERT INTO "${name}" SELECT n, repeat(md5(n::text), 5) FROM generate_series(1, ${ROWS}) AS n`,
    );
    await replayed();
    return Item;
  }

  /** A server for an export of `Item`, with the configuration and hook given, on an instance named `application`. */
  async function exportServer(
    form: Form,
    application: string,
    table: string,
    {
      logging = false,
      config = {},
      master = false,
      slow = false,
    }: { logging?: boolean; config?: object; master?: boolean; slow?: boolean },
  ): Promise<{ server: TestServer; sequelize: Sequelize; Item: ModelStatic<Model>; errors: unknown[] }> {
    const sequelize = await replicatedSequelize(replicas, [replicas.standby], DATABASE, application, {
      // Logging on: a function, as an app that logs its SQL has.
      logging: logging ? () => undefined : false,
    });
    instances.push(sequelize);
    const Item = await fill(sequelize, table);
    const router = new Router();
    // The operations guide's hook (docs/examples/operations/replicas.ts).
    const hooks = master ? primaryHooks : {};
    form.register(
      router,
      'items',
      Item,
      { policy: { fillable: 'all' }, hooks },
      {
        only: ['exportCsv'],
        config: { ...config, export_csv: { batch_size: 200, ...(config as { export_csv?: object }).export_csv } },
        // Slow: each batch waits 40 ms, so the export (100 batches) still runs when the primary's vacuum is
        // replayed, however fast the machine and however much the socket buffers hold.
        ...(slow && { plugins: [slowBatches] }),
      },
    );
    const errors: unknown[] = [];
    return { server: await serve(new Koa().use(router.routes()), errors), sequelize, Item, errors };
  }

  const slowBatches: CrudPlugin = {
    name: 'slowBatches',
    rows: async (rows) => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      return rows;
    },
  };

  /** The export's lines as a client reads them, or 'aborted' when the transfer failed, and how many lines came. */
  async function download(
    server: TestServer,
    during?: () => Promise<void>,
  ): Promise<{ outcome: 'complete' | 'aborted'; lines: number; status: number }> {
    const response = await fetch(`${server.url}/items/export-csv`);
    const reader = response.body!.getReader();
    let lines = 0;
    const count = (chunk: Uint8Array) => {
      for (const byte of chunk) if (byte === 10) lines += 1;
    };
    try {
      const first = await reader.read();
      if (first.value) count(first.value);
      if (during !== undefined) {
        // The client stops taking bytes: the server's buffers fill and the export waits in its snapshot.
        await new Promise((resolve) => setTimeout(resolve, 500));
        await during();
      }
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) count(chunk.value);
      return { outcome: 'complete', lines, status: response.status };
    } catch {
      return { outcome: 'aborted', lines, status: response.status };
    }
  }

  /** On the primary: deletes the second half of the rows and vacuums them away, then waits for the standby's replay. */
  async function deleteAndVacuum(table: string): Promise<void> {
    await admin.primary.query(`DELETE FROM "${table}" WHERE id > ${ROWS / 2}`);
    await admin.primary.query(`VACUUM "${table}"`);
    await replayed();
  }

  const selects = (statements: readonly string[], table: string) =>
    statements.filter((statement) => statement.startsWith('SELECT') && statement.includes(`"${table}"`)).length;

  for (const form of FORMS) {
    describe(`where the export's snapshot is read (${form.name} form)`, () => {
      const cases = [
        { label: 'on the standby by default', options: {}, on: 'standby' },
        {
          label: 'on the primary with export_csv.use_master',
          options: { config: exportOnPrimary.config! },
          on: 'primary',
        },
        {
          label: 'on the primary when modifyExportCsvQuery returns useMaster: true',
          options: { master: true },
          on: 'primary',
        },
      ] as const;
      for (const { label, options, on } of cases)
        for (const logging of [false, true])
          it(`${label}, logging ${logging ? 'on' : 'off'}: every batch and the snapshot's statements`, async () => {
            const application = `rex${form.initial}${on}${logging ? 'l' : 'q'}${'master' in options ? 'h' : ''}`;
            const table = `${application}_items`;
            const { server } = await exportServer(form, application, table, { ...options, logging });
            try {
              const mark = await logMark(replicas);
              const result = await download(server);
              assert.deepEqual(result, { outcome: 'complete', lines: ROWS + 1, status: 200 });
              const statements = await statementsSince(replicas, mark, application);
              const other = on === 'primary' ? 'standby' : 'primary';
              assert.equal(selects(statements[on], table), ROWS / 200 + 1, `${on}: ${statements[on].join(' | ')}`);
              assert.equal(selects(statements[other], table), 0, `${other}: ${statements[other].join(' | ')}`);
              assert.ok(statements[on].includes('SET TRANSACTION READ ONLY'), statements[on].join(' | '));
              assert.ok(statements[on].some((statement) => statement.includes('REPEATABLE READ')));
              assert.deepEqual(statements.delayed, []);
            } finally {
              await server.close();
            }
          });
    });
  }

  describe('a snapshot the standby cancels mid-stream (recovery conflict)', () => {
    before(() => standbySetting('max_standby_streaming_delay', '0'));
    after(() => standbySetting('max_standby_streaming_delay', '30s'));

    for (const form of FORMS) {
      it(`aborts the download instead of ending a short CSV (${form.name} form)`, async () => {
        const table = `rex${form.initial}conflict_items`;
        const { server, errors } = await exportServer(form, `rex${form.initial}conflict`, table, { slow: true });
        try {
          const mark = await logMark(replicas);
          const result = await download(server, () => deleteAndVacuum(table));
          assert.equal(result.status, 200);
          assert.equal(
            result.outcome,
            'aborted',
            `the download ended normally with ${result.lines - 1} of ${ROWS} rows`,
          );
          assert.ok(result.lines < ROWS + 1, `${result.lines} lines`);
          // The standby ended the export's session; the app's error event has the driver's error.
          const log = (await readFile(replicas.standby.log, 'utf8')).slice(mark.standby);
          assert.match(log, /terminating connection due to conflict with recovery/);
          assert.ok(errors.length > 0 && errors.every((error) => String(error).startsWith('SequelizeDatabaseError')));
        } finally {
          await server.close();
        }
      });

      it(`completes every row on the primary with export_csv.use_master (${form.name} form)`, async () => {
        const table = `rex${form.initial}onprimary_items`;
        const { server, errors } = await exportServer(form, `rex${form.initial}onprimary`, table, {
          config: exportOnPrimary.config!,
          slow: true,
        });
        try {
          const result = await download(server, () => deleteAndVacuum(table));
          assert.deepEqual(result, { outcome: 'complete', lines: ROWS + 1, status: 200 });
          assert.deepEqual(errors, []);
        } finally {
          await server.close();
        }
      });
    }
  });

  describe('a standby with hot_standby_feedback', () => {
    before(async () => {
      await standbySetting('max_standby_streaming_delay', '0');
      await standbySetting('wal_receiver_status_interval', '1s');
      await standbySetting('hot_standby_feedback', 'on');
    });
    after(async () => {
      await standbySetting('hot_standby_feedback', 'off');
      await standbySetting('wal_receiver_status_interval', '10s');
      await standbySetting('max_standby_streaming_delay', '30s');
    });

    it('keeps the rows the export sees: the same delete and vacuum leave it every row', async () => {
      const table = 'rexfeedback_items';
      const { server, errors } = await exportServer(FORMS[0]!, 'rexfeedback', table, { slow: true });
      try {
        const mark = await logMark(replicas);
        const result = await download(server, async () => {
          // The standby reports its oldest snapshot to the primary at the next status message.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          await deleteAndVacuum(table);
        });
        assert.deepEqual(result, { outcome: 'complete', lines: ROWS + 1, status: 200 });
        assert.deepEqual(errors, []);
        assert.ok(
          !(await readFile(replicas.standby.log, 'utf8')).slice(mark.standby).includes('conflict with recovery'),
        );
      } finally {
        await server.close();
      }
    });
  });
});
