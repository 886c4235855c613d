/**
 * Issue 21 items 2 and 3 on real streaming replication, counted from the servers' statement logs.
 *
 * - A search's page and count read one state with two standbys as readers while writers insert and
 *   delete on the primary: no reply's rows contradict its count, on every read path.
 * - readYourWrites() through the standby that replays 300 ms late: 200 create → read and 200
 *   update → search pairs carrying the token read no stale reply; reads without a token, and reads
 *   whose standby has caught up, still run on the standby; the plugin works given to a resource, a
 *   `crud` call or `createFastCrud`; a malformed or hostile token is ignored. Tables: `ryw<form>_*`, `rpc<form>_*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { DataTypes, type Sequelize } from 'sequelize';
import { createFastCrud, readYourWrites, resource } from '../../lib/index.js';
import { observeExecution } from '../../lib/execute/state.js';
import { controllerOf, FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { logMark, replicaSet, replicatedSequelize, statementsSince, type ReplicaSet } from '../support/replicas.js';

const set = await replicaSet('c1ryw');
const skip = 'skip' in set ? set.skip : undefined;
const replicas = 'skip' in set ? undefined : set;
after(() => replicas?.release());

const PAIRS = Number(process.env['FAST_CRUD_RYW_PAIRS'] ?? 200);
const json = { 'content-type': 'application/json' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The statements each server ran for `application` while `work` ran. */
async function statements(set: ReplicaSet, application: string, work: () => Promise<void>) {
  const mark = await logMark(set);
  await work();
  await pause(60);
  return statementsSince(set, mark, application);
}
/** The statements (log lines) that read: a SELECT, or a query string holding some (the fast executor's page and count). */
const selects = (lines: readonly string[]) => lines.filter((line) => /\bSELECT\b/.test(line)).length;

for (const form of FORMS)
  describe(`a search's page and count on two standbys (${form.name} form)`, { skip }, () => {
    let sequelize: Sequelize;
    let server: TestServer;
    const prefix = `rpc${form.initial}`;

    before(async () => {
      const readers = [replicas!.standby, replicas!.delayed];
      sequelize = await replicatedSequelize(replicas!, readers, 'fc_c1_ryw', `c1pc${form.initial}`);
      const Event = sequelize.define(
        `${prefix}Event`,
        { id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true }, n: DataTypes.INTEGER },
        { tableName: `${prefix}_events`, timestamps: false },
      );
      await Event.sync({ force: true });
      await Event.bulkCreate([{ n: 0 }, { n: 0 }]);
      // Both standbys have the table before the executors' probe reads it (the delayed one 300 ms late).
      await pause(800);
      observeExecution(sequelize, {
        force: (ctx) => ((ctx as Context).get('x-path') || undefined) as 'fast' | 'public' | 'instance' | undefined,
      });
      const router = new Router();
      form.register(router, 'events', Event, { policy: { sortable: ['n'] } } as never, { only: ['search'] });
      server = await serve(new Koa().use(router.routes()));
      await server.get('/events');
      // Rows come and go on the primary while the searches run (each test starts its own writer).
      (sequelize as unknown as { Event: typeof Event }).Event = Event;
    });
    after(async () => {
      await server?.close();
      await sequelize?.close();
    });

    for (const path of ['driver', 'fast', 'public', 'instance'] as const)
      it(`${path}: no reply's rows contradict its count while the primary creates and deletes`, async () => {
        const Event = (sequelize as unknown as { Event: ReturnType<Sequelize['define']> }).Event;
        let writing = true;
        const writer = (async () => {
          while (writing) {
            const created = await Event.create({ n: 1 });
            await pause(5);
            await Event.destroy({ where: { id: created.get('id') as number } });
          }
        })();
        const wrong: string[] = [];
        try {
          for (let i = 0; i < 50; i += 1) {
            const headers: Record<string, string> = path === 'driver' ? {} : { 'x-path': path };
            const reply = await server.request('GET', '/events?sort=n&perPage=5', { headers });
            assert.equal(reply.status, 200, reply.text);
            const rows = (reply.body.data as unknown[]).length;
            const { count } = reply.body.meta.pagination as { count: number };
            if (rows !== Math.min(5, count)) wrong.push(`rows=${rows}, count=${count}`);
          }
        } finally {
          writing = false;
          await writer;
        }
        assert.deepEqual(wrong, [], `${wrong.length} of 50 searches contradicted their count`);
      });
  });

for (const form of FORMS)
  describe(`readYourWrites() through a standby 300 ms behind (${form.name} form)`, { skip }, () => {
    let sequelize: Sequelize;
    let server: TestServer;
    const prefix = `ryw${form.initial}`;
    const application = `c1ryw${form.initial}`;

    before(async () => {
      sequelize = await replicatedSequelize(replicas!, [replicas!.delayed], 'fc_c1_ryw', application);
      const define = (name: string) =>
        sequelize.define(
          `${prefix}${name}`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            name: DataTypes.STRING(40),
          },
          { tableName: `${prefix}_${name.toLowerCase()}`, timestamps: false },
        );
      const [Note, Memo, Card, Plain] = ['Notes', 'Memos', 'Cards', 'Plain'].map(define);
      for (const model of [Note, Memo, Card, Plain]) await model!.sync({ force: true });
      await pause(800);
      const policy = { policy: { fillable: 'all', filterable: ['name'] } };
      const router = new Router();
      // The three levels: the resource's own plugins, the crud call's, createFastCrud's.
      // (A class has no plugins of its own: its notes get the plugin from their crud call too.)
      if (form.name === 'resource')
        form.register(router, 'notes', Note!, { ...policy, plugins: [readYourWrites()] } as never);
      else form.register(router, 'notes', Note!, policy as never, { plugins: [readYourWrites()] });
      form.register(router, 'memos', Memo!, policy as never, { plugins: [readYourWrites()] });
      const app = createFastCrud({ plugins: [readYourWrites()] });
      const cards = form.name === 'class' ? controllerOf(Card!, policy as never) : resource(Card!, policy as never);
      app.crud(router, 'cards', cards);
      form.register(router, 'plain', Plain!, policy as never);
      server = await serve(new Koa().use(router.routes()));
      await server.get('/notes');
      await server.get('/plain');
    });
    after(async () => {
      await server?.close();
      await sequelize?.close();
    });

    const create = async (uri: string, name: string) => {
      const reply = await server.request('POST', `/${uri}`, { headers: json, body: JSON.stringify({ name }) });
      assert.equal(reply.status, 201, reply.text);
      return { id: reply.body.data.id as string, token: reply.headers.get('consistency-token'), reply };
    };

    it('gives a committed write a token: the Consistency-Token header and an HttpOnly, SameSite=Lax cookie', async () => {
      const { token, reply } = await create('notes', 'first');
      assert.match(token ?? '', /^x[0-9]+$/, 'PostgreSQL with replicas: the transaction id');
      const cookie = reply.headers.get('set-cookie') ?? '';
      assert.match(
        cookie,
        new RegExp(`^fast-crud-consistency=${token}; path=/; expires=[^;]+; samesite=lax; httponly$`),
      );
      const plain = await server.request('POST', '/plain', { headers: json, body: JSON.stringify({ name: 'x' }) });
      assert.equal(plain.headers.get('consistency-token'), null, 'a resource without the plugin gives none');
    });

    for (const uri of ['notes', 'memos', 'cards'])
      it(`${uri}: ${PAIRS} create → read pairs with the token read no stale record; without it they do`, async () => {
        let stale = 0;
        let staleWithout = 0;
        const ran = await statements(replicas!, application, async () => {
          for (let i = 0; i < PAIRS; i += 1) {
            const { id, token } = await create(uri, `c${i}`);
            const read = await server.request('GET', `/${uri}/${id}`, { headers: { 'consistency-token': token! } });
            if (read.status !== 200 || read.body.data.name !== `c${i}`) stale += 1;
          }
        });
        assert.equal(stale, 0, `${stale} of ${PAIRS} reads with the token were stale`);
        assert.equal(selects(ran.delayed), PAIRS, 'each read checked the standby (pg_visible_in_snapshot) first');
        const without = await statements(replicas!, application, async () => {
          for (let i = 0; i < 20; i += 1) {
            const { id } = await create(uri, `w${i}`);
            const read = await server.get(`/${uri}/${id}`);
            if (read.status !== 200) staleWithout += 1;
          }
        });
        assert.ok(staleWithout >= 18, `without the token ${staleWithout} of 20 reads were stale`);
        assert.equal(selects(without.delayed), 20, 'reads without a token run on the standby');
        console.log(`# ${uri}: stale reads with the token ${stale}/${PAIRS}, without ${staleWithout}/20`);
      });

    it(`${PAIRS} update → search pairs with the token read no stale page or count`, async () => {
      const { id } = await create('notes', 'u');
      await pause(400);
      let stale = 0;
      for (let i = 0; i < PAIRS; i += 1) {
        const body = JSON.stringify({ name: `u${i}` });
        const updated = await server.request('PATCH', `/notes/${id}`, { headers: json, body });
        assert.equal(updated.status, 200, updated.text);
        const token = updated.headers.get('consistency-token')!;
        const found = await server.request('GET', `/notes?filter[name]=u${i}`, {
          headers: { 'consistency-token': token },
        });
        const rows = found.body.data as { id: string }[];
        if (rows.length !== 1 || rows[0]!.id !== id || found.body.meta.pagination.count !== 1) stale += 1;
      }
      assert.equal(stale, 0, `${stale} of ${PAIRS} searches with the token were stale`);
    });

    it('reads a token whose write the standby has replayed on the standby, and with the cookie alone', async () => {
      const { id, reply } = await create('notes', 'later');
      const cookie = (reply.headers.get('set-cookie') ?? '').split(';')[0]!;
      await pause(700);
      const ran = await statements(replicas!, application, async () => {
        const read = await server.request('GET', `/notes/${id}`, { headers: { cookie } });
        assert.equal(read.status, 200, read.text);
        const found = await server.request('GET', '/notes?filter[name]=later', { headers: { cookie } });
        assert.equal(found.body.data.length, 1);
        const options = await server.request('GET', '/notes/options?label=name', { headers: { cookie } });
        assert.equal(options.status, 200, options.text);
      });
      assert.equal(selects(ran.primary), 0, ran.primary.join(' | '));
      // On the standby: each action's visibility check, then read's select, search's page and count, options' select.
      assert.equal(selects(ran.delayed), 2 + 3 + 2, ran.delayed.join(' | '));
    });

    it('reads with the cookie alone, at once, on the primary', async () => {
      const { id, reply } = await create('notes', 'cookie');
      const cookie = (reply.headers.get('set-cookie') ?? '').split(';')[0]!;
      const ran = await statements(replicas!, application, async () => {
        const read = await server.request('GET', `/notes/${id}`, { headers: { cookie } });
        assert.equal(read.status, 200, read.text);
      });
      assert.equal(selects(ran.primary), 1);
      assert.equal(selects(ran.delayed), 1, 'the visibility check');
    });

    it('ignores a malformed or hostile token: the read runs as without one, on the standby', async () => {
      for (const token of ["x1'; DROP TABLE x; --", 'x99999999999999999999', 'lsn', '0/16B3748', "t1' OR 1=1"]) {
        const ran = await statements(replicas!, application, async () => {
          const reply = await server.request('GET', '/notes?perPage=1', { headers: { 'consistency-token': token } });
          assert.equal(reply.status, 200, reply.text);
        });
        assert.equal(selects(ran.primary), 0, token);
        assert.ok(selects(ran.delayed) >= 1, token);
      }
    });

    it('sends a read whose token names a transaction the standby has not seen to the primary', async () => {
      const ran = await statements(replicas!, application, async () => {
        const reply = await server.request('GET', '/notes?perPage=1', {
          headers: { 'consistency-token': 'x9223372036854775807' },
        });
        assert.equal(reply.status, 200, reply.text);
      });
      assert.equal(selects(ran.primary), 1, ran.primary.join(' | '));
      assert.equal(selects(ran.delayed), 1, 'the visibility check');
    });
  });
