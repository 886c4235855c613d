/**
 * Issue 21 item 1 on real streaming replication: which server runs each statement of each action,
 * read from the servers' own statement logs. Without a hook every read of search (page, count, the
 * count estimate), options and read (with its include) runs on the standby; with a hook returning
 * `useMaster: true` every one of them runs on the primary. Both executors (forced through the
 * observer), logging off (the fast executor's driver connection) and on (`sequelize.query`), both forms.
 * Writes never reach a standby. Tables: `rr<form>_*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { DataTypes, type FindOptions, type Sequelize } from 'sequelize';
import { observeExecution } from '../../lib/execute/state.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { logMark, replicaSet, replicatedSequelize, statementsSince, type ReplicaSet } from '../support/replicas.js';

const set = await replicaSet('c1routing');
const skip = 'skip' in set ? set.skip : undefined;
const replicas = 'skip' in set ? undefined : set;
after(() => replicas?.release());

const APPLICATION = 'c1routing';
const EXECUTORS = ['public', 'fast'] as const;
const master = (query: FindOptions) => ({ ...query, useMaster: true });
const MASTER_HOOKS = { modifySearchQuery: master, modifyOptionsQuery: master, modifyReadQuery: master };

/** The statements each server ran while `work` ran, without the transaction bookkeeping. */
async function statements(set: ReplicaSet, work: () => Promise<void>) {
  const mark = await logMark(set);
  await work();
  // A server writes its log line when the statement starts; give the last one a moment to land.
  await new Promise((resolve) => setTimeout(resolve, 60));
  return statementsSince(set, mark, APPLICATION);
}

for (const form of FORMS)
  describe(`read routing on a primary and a hot standby (${form.name} form)`, { skip }, () => {
    let sequelize: Sequelize;
    let server: TestServer;
    const prefix = `rr${form.initial}`;

    before(async () => {
      sequelize = await replicatedSequelize(replicas!, [replicas!.standby], 'fc_c1_routing', APPLICATION);
      const Category = sequelize.define(
        `${prefix}Category`,
        { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(20) },
        { tableName: `${prefix}_categories`, timestamps: false },
      );
      const Item = sequelize.define(
        `${prefix}Item`,
        { id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 }, name: DataTypes.STRING(20) },
        { tableName: `${prefix}_items`, timestamps: false },
      );
      Item.belongsTo(Category, { as: 'category', foreignKey: 'categoryId' });
      await Category.sync({ force: true });
      await Item.sync({ force: true });
      await Category.create({ id: 1, name: 'Toys' });
      await Item.bulkCreate(['Kites', 'Tops', 'Yo-yos'].map((name) => ({ name, categoryId: 1 })));
      observeExecution(sequelize, {
        force: (ctx) => ((ctx as Context).get('x-executor') || undefined) as 'public' | 'fast' | undefined,
      });
      const spec = { policy: { fillable: 'all' }, relations: { category: { include: true } } };
      const router = new Router();
      const estimate = { config: { search: { count: 'estimate', count_threshold: 1 } } } as const;
      form.register(router, 'items', Item, spec as never);
      form.register(router, 'master', Item, { ...spec, hooks: MASTER_HOOKS } as never);
      form.register(router, 'estimated', Item, spec as never, { only: ['search'], ...estimate });
      form.register(router, 'estimated-master', Item, { ...spec, hooks: MASTER_HOOKS } as never, {
        only: ['search'],
        ...estimate,
      });
      server = await serve(new Koa().use(router.routes()));
      // Each model's first request runs the executors' probe: not counted below.
      await server.get('/items');
      await server.get('/items/options?label=name');
      // The standby has replayed the rows.
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    after(async () => {
      await server?.close();
      await sequelize?.close();
    });

    const id = async () => ((await server.get('/items?filter[name]=Kites')).body.data[0] as { id: string }).id;

    for (const logging of [false, true])
      for (const executor of EXECUTORS) {
        const headers = { 'x-executor': executor };
        const title = `${executor} executor, logging ${logging ? 'on' : 'off'}`;
        const paths = async (base: string, key: string) => [
          `/${base}?sort=name&perPage=2`,
          `/${base}/options?label=name`,
          `/${base}/${key}?include=category`,
        ];

        it(`${title}: search, options and read run every statement on the standby without a hook`, async () => {
          (sequelize as unknown as { options: { logging: unknown } }).options.logging = logging ? () => {} : false;
          const key = await id();
          for (const path of [...(await paths('items', key)), '/estimated?perPage=2']) {
            const ran = await statements(replicas!, async () => {
              const reply = await server.request('GET', path, { headers });
              assert.equal(reply.status, 200, reply.text);
            });
            assert.deepEqual(ran.primary, [], `${path} ran on the primary: ${ran.primary.join(' | ')}`);
            assert.ok(ran.standby.length > 0, `${path} ran nothing on the standby`);
          }
        });

        it(`${title}: a hook's useMaster runs every statement of search, estimate, options, read on the primary`, async () => {
          (sequelize as unknown as { options: { logging: unknown } }).options.logging = logging ? () => {} : false;
          const key = await id();
          for (const path of [...(await paths('master', key)), '/estimated-master?perPage=2']) {
            const ran = await statements(replicas!, async () => {
              const reply = await server.request('GET', path, { headers });
              assert.equal(reply.status, 200, reply.text);
            });
            assert.deepEqual(ran.standby, [], `${path} ran on the standby: ${ran.standby.join(' | ')}`);
            assert.ok(ran.primary.length > 0, `${path} ran nothing on the primary`);
          }
        });
      }

    it('runs every statement of create, update and delete on the primary', async () => {
      (sequelize as unknown as { options: { logging: unknown } }).options.logging = false;
      const json = { 'content-type': 'application/json' };
      const ran = await statements(replicas!, async () => {
        const created = await server.request('POST', '/items', {
          headers: json,
          body: JSON.stringify({ name: 'Marbles', categoryId: 1 }),
        });
        assert.equal(created.status, 201, created.text);
        const path = `/items/${created.body.data.id as string}`;
        const body = JSON.stringify({ name: 'Glass marbles' });
        assert.equal((await server.request('PATCH', path, { headers: json, body })).status, 200);
        assert.equal((await server.request('DELETE', path)).status, 200);
      });
      assert.deepEqual(ran.standby, []);
      // (PostgreSQL logs Sequelize's parameterized INSERT and UPDATE as `execute`, not `statement`: the log has the rest.)
      const writes = ran.primary.filter((statement) => /^(START TRANSACTION|DELETE|COMMIT)/.test(statement));
      assert.equal(writes.length, 3 * 2 + 1, ran.primary.join(' | '));
    });
  });
