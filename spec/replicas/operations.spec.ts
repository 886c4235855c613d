/**
 * Operations with read replicas, measured on a real PostgreSQL primary and two hot standbys built
 * for this suite (it stops and starts them, so never the set `.ci/run` shares):
 * - a new process started while the primary is down serves reads from the standbys when
 *   Sequelize's `databaseVersion` is set; without it, every request answers 503 (Sequelize asks the
 *   writer for the server version before its first query);
 * - a standby that stops and comes back: whether Sequelize's read pool ever sends it traffic again,
 *   without and with `pool.maxUses`.
 * Over both forms; tables `rop*`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { replicatedOptions, type ReplicatedOptions } from '../../docs/examples/operations/replicas.js';
import { FORMS, type Form } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import {
  logMark,
  replicaSet,
  replicatedSequelize,
  statementsSince,
  type ReplicaSet,
  type Server,
} from '../support/replicas.js';

const run = promisify(execFile);
const set = await replicaSet('c2o', { own: true });
after(async () => {
  if (!('skip' in set)) await set.release();
});

const DATABASE = 'rop';

it('the operations guide shows the options and export settings this suite and the export suite run', () => {
  const page = readFileSync('docs/guide/operations.md', 'utf8');
  const example = readFileSync('docs/examples/operations/replicas.ts', 'utf8');
  for (const region of ['options', 'export-on-primary']) {
    assert.match(page, new RegExp(`<<< @/examples/operations/replicas\\.ts#${region}\n`));
    assert.match(example, new RegExp(`// #region ${region}\n[^]*// #endregion ${region}\n`));
  }
});
const ROWS = 50;

describe('operations with replicas', { skip: 'skip' in set ? set.skip : false }, () => {
  const replicas = set as ReplicaSet;
  const instances: Sequelize[] = [];

  /** Stops or starts one of this suite's clusters (named after its log file), and waits until a start accepts connections. */
  async function cluster(server: Server, action: 'stop' | 'start'): Promise<void> {
    const [, major, name] = /postgresql-(\d+)-(.+)\.log$/.exec(server.log)!;
    await run('pg_ctlcluster', [
      '--skip-systemctl-redirect',
      major!,
      name!,
      action,
      ...(action === 'stop' ? ['-m', 'fast'] : []),
    ]);
    if (action === 'start')
      for (let i = 0; ; i += 1) {
        try {
          await run('pg_isready', ['-h', server.host, '-p', String(server.port), '-d', DATABASE]);
          return;
        } catch (error) {
          if (i > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
  }

  function define(sequelize: Sequelize, table: string): ModelStatic<Model> {
    return sequelize.define(
      table,
      { id: { type: DataTypes.INTEGER, primaryKey: true }, name: { type: DataTypes.STRING(40), allowNull: false } },
      { tableName: table, timestamps: false },
    );
  }

  /** A new process's app: a Sequelize instance named `application` and a server with search and read over `table`. */
  async function app(
    form: Form,
    application: string,
    table: string,
    readers: readonly Server[],
    options: ReplicatedOptions = {},
  ): Promise<{ server: TestServer; sequelize: Sequelize; errors: unknown[] }> {
    // The guide's options, on this suite's database; `databaseVersion: undefined` drops the key
    // (Sequelize's own default, 0, means: ask the writer).
    const base: ReplicatedOptions = { ...replicatedOptions(replicas.primary, readers) };
    if ('databaseVersion' in options && options.databaseVersion === undefined) delete base.databaseVersion;
    const { databaseVersion: _ignored, ...rest } = options;
    const sequelize = new Sequelize({
      ...base,
      database: DATABASE,
      dialectOptions: { application_name: application, connectionTimeoutMillis: 2000 },
      ...rest,
    });
    instances.push(sequelize);
    const router = new Router();
    form.register(
      router,
      'items',
      define(sequelize, table),
      { policy: { fillable: 'all' } },
      { only: ['search', 'read'], config: { global: { find_field_is_uuid: false } } },
    );
    const errors: unknown[] = [];
    return { server: await serve(new Koa().use(router.routes()), errors), sequelize, errors };
  }

  before(async () => {
    const setup = await replicatedSequelize(replicas, [replicas.standby, replicas.delayed], DATABASE, 'rop_setup');
    instances.push(setup);
    for (const form of FORMS) {
      const Item = define(setup, `rop${form.initial}_items`);
      await Item.sync({ force: true });
      await Item.bulkCreate(Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` })));
    }
    // Both standbys have the rows before any primary or standby stops (the delayed one 300 ms late).
    await new Promise((resolve) => setTimeout(resolve, 1500));
  });
  after(() => Promise.all(instances.map((sequelize) => sequelize.close())));

  /** `count` requests, `parallel` at a time, alternating a search and a read; the statuses. */
  async function requests(server: TestServer, count: number, parallel = 1): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += parallel) {
      const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) =>
        server.get((i + j) % 2 === 0 ? '/items?perPage=5' : `/items/${((i + j) % ROWS) + 1}`),
      );
      statuses.push(...(await Promise.all(batch)).map((response) => response.status));
    }
    return statuses;
  }

  const tally = (statuses: readonly number[]) =>
    [...new Set(statuses)].map((status) => `${statuses.filter((s) => s === status).length}×${status}`).join(', ');

  describe('start-up while the primary is down', () => {
    before(() => cluster(replicas.primary, 'stop'));
    after(() => cluster(replicas.primary, 'start'));

    for (const form of FORMS) {
      it(`serves 16 of 16 reads from the standbys with databaseVersion set (${form.name} form)`, async (t) => {
        const application = `rop${form.initial}version`;
        const { server } = await app(form, application, `rop${form.initial}_items`, [replicas.standby]);
        try {
          const mark = await logMark(replicas);
          const statuses = await requests(server, 16);
          t.diagnostic(`primary down, databaseVersion set: ${tally(statuses)}`);
          assert.deepEqual(statuses, Array(16).fill(200));
          const statements = await statementsSince(replicas, mark, application);
          assert.ok(statements.standby.filter((statement) => statement.includes('SELECT')).length >= 16);
        } finally {
          await server.close();
        }
      });

      it(`answers 503 databaseUnavailable to every read without databaseVersion, naming no server (${form.name} form)`, async (t) => {
        const application = `rop${form.initial}noversion`;
        const { server, errors } = await app(form, application, `rop${form.initial}_items`, [replicas.standby], {
          databaseVersion: undefined,
        });
        try {
          const mark = await logMark(replicas);
          const started = performance.now();
          const statuses = await requests(server, 16);
          t.diagnostic(
            `primary down, no databaseVersion: ${tally(statuses)} in ${(performance.now() - started).toFixed(0)} ms`,
          );
          assert.deepEqual(statuses, Array(16).fill(503));
          const reply = await server.get('/items/1');
          assert.equal(reply.body.status, 'error');
          assert.doesNotMatch(reply.text, /127\.0\.0\.1|ECONNREFUSED|Sequelize/);
          assert.match(String(errors[0]), /ECONNREFUSED|ConnectionRefused/);
          // Sequelize never reached the standby: it asks the writer for the version first.
          assert.deepEqual((await statementsSince(replicas, mark, application)).standby, []);
        } finally {
          await server.close();
        }
      });
    }
  });

  describe('a standby that stops and comes back', () => {
    for (const [label, pool] of [
      ['without pool.maxUses', { max: 4, idle: 60_000 }],
      ['with pool.maxUses: 20', { max: 4, idle: 60_000, maxUses: 20 }],
    ] as const) {
      it(`measures which reader serves reads before, during and after a stop of the standby, ${label}`, async (t) => {
        const form = FORMS[0]!;
        const application = `rop${'maxUses' in pool ? 'uses' : 'plain'}`;
        const { server } = await app(
          form,
          application,
          `rop${form.initial}_items`,
          [replicas.standby, replicas.delayed],
          { pool },
        );
        try {
          let mark = await logMark(replicas);
          const before = await requests(server, 40, 4);
          const warm = await statementsSince(replicas, mark, application);
          await cluster(replicas.standby, 'stop');
          let during: number[];
          try {
            during = await requests(server, 40, 4);
          } finally {
            await cluster(replicas.standby, 'start');
          }
          mark = await logMark(replicas);
          const back = await requests(server, 200, 4);
          const afterwards = await statementsSince(replicas, mark, application);
          const selects = (list: readonly string[]) =>
            list.filter((statement) => statement.startsWith('SELECT')).length;
          t.diagnostic(
            `${label}: before ${tally(before)} (standby ${selects(warm.standby)}, delayed ${selects(warm.delayed)} SELECTs); ` +
              `standby stopped: ${tally(during)}; back: ${tally(back)} (standby ${selects(afterwards.standby)}, ` +
              `delayed ${selects(afterwards.delayed)} SELECTs)`,
          );
          assert.deepEqual(back, Array(200).fill(200));
          if ('maxUses' in pool) assert.ok(selects(afterwards.standby) > 0, 'the standby receives reads again');
          // Sequelize's read pool opens a connection only when it lacks one: a busy pool keeps those
          // it opened to the delayed standby while the other was down (the operations guide says so).
          else assert.equal(selects(afterwards.standby), 0, 'Sequelize rebalanced the read pool by itself');
        } finally {
          await server.close();
        }
      });
    }
  });
});
