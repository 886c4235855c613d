/**
 * The change feed (`live: true`, `GET <uri>/changes`), read with a plain HTTP client on every database and in both
 * forms: the stream's headers and retry hint, each kind of event, a batch as one event, nothing on rollback, order,
 * `?ids=`, `Last-Event-ID` across a server restart (and its reset and its 400), abilities, tenant isolation, a slow
 * subscriber dropped, `live.max_subscribers`, heartbeats, the request deadline, and a client's leaving.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { crud, tenantScope, type CrudOptions, type FastCrudConfigInput, type ResourceSpec } from '../../lib/index.js';
import { openStreams } from '../../lib/execute/live-hub.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS, controllerOf, type Form } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { idsOf, openStream, type SseEvent, type SseStream } from '../support/sse.js';
import { resource } from '../../lib/index.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineItem(sequelize: Sequelize, form: Form): ModelStatic<Model> {
  return sequelize.define(
    `lv${form.initial}Item`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(200), allowNull: false },
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `lv${form.initial}_items`, timestamps: false },
  );
}

function defineNote(sequelize: Sequelize, form: Form): ModelStatic<Model> {
  return sequelize.define(
    `lv${form.initial}Note`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      tenant: { type: DataTypes.STRING(20), allowNull: false },
      title: { type: DataTypes.STRING(60), allowNull: false },
    },
    { tableName: `lv${form.initial}_notes`, timestamps: false },
  );
}

/** The items spec: a hook that fails a write whose name says so, after the row was written. */
const ITEMS: ResourceSpec<Model> = {
  policy: { fillable: ['name'] },
  batch: true,
  live: true,
  hooks: {
    afterCreate: (record) => {
      if (String(record.get('name')).startsWith('boom')) throw new Error('the hook refuses');
    },
    afterUpdate: (record) => {
      if (String(record.get('name')).startsWith('boom')) throw new Error('the hook refuses');
    },
  },
};

const CONFIG: FastCrudConfigInput = {
  global: { find_field_is_uuid: false, timeout_ms: 300 },
  live: { heartbeat_s: 1, max_subscribers: 6 },
};

/** An app serving the form's items (live), its notes (live, tenant-scoped) and a guarded copy of the items. */
function appOf(form: Form, Item: ModelStatic<Model>, Note: ModelStatic<Model>, config = CONFIG) {
  const router = new Router();
  const options: CrudOptions = { config };
  form.register(router, 'items', Item, ITEMS, options);
  form.register(
    router,
    'notes',
    Note,
    { policy: { fillable: ['title'] }, live: true },
    {
      config,
      plugins: [tenantScope('tenant', (ctx) => ctx.get('x-tenant') || undefined)],
    },
  );
  form.register(router, 'guarded', Item, ITEMS, {
    config,
    moduleName: 'shop',
    can: (ctx, ability) => ctx.get('x-can') === ability,
  });
  return new Koa().use(router.routes());
}

/** The stream's first event that names `id`, once it comes (events of earlier writes may come before it). */
async function eventNaming(stream: SseStream, id: string): Promise<SseEvent> {
  for (let count = 1; ; count++) {
    const found = (await stream.waitFor(count)).find((event) => idsOf(event).includes(id));
    if (found !== undefined) return found;
  }
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
});

for (const db of databases) {
  for (const form of FORMS) {
    describe(`the change feed (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let Item: ModelStatic<Model>;
      let Note: ModelStatic<Model>;
      let server: TestServer;
      const errors: unknown[] = [];
      const streams: SseStream[] = [];
      const open = async (path: string, headers: Record<string, string> = {}) => {
        const stream = await openStream(server.url + path, headers);
        streams.push(stream);
        return stream;
      };
      /**
       * Returns once the feed has passed every write made so far (a probe hears of a marker written after them), so a
       * stream opened next starts after them: on a loaded machine the feed may still be reading an earlier test's events.
       */
      const settled = async () => {
        const probe = await open('/items/changes');
        const marker = await server.request('POST', '/items', json({ name: 'marker' }));
        await eventNaming(probe, String(marker.body.data.id));
        probe.close();
      };

      before(async () => {
        const sequelize = db.sequelize!;
        Item = defineItem(sequelize, form);
        Note = defineNote(sequelize, form);
        server = await serve(appOf(form, Item, Note), errors);
        await Item.sync({ force: true });
        await Note.sync({ force: true });
        await sequelize.models['FastCrudChange']!.sync({ force: true });
      });
      after(async () => {
        for (const stream of streams) stream.close();
        await server.close();
      });

      it('is planned only with live: the route table is otherwise the spec’s', () => {
        const router = new Router();
        const options = { config: CONFIG };
        const without = form.register(router, 'plain', Item, { ...ITEMS, live: false, batch: false }, options);
        assert.ok(!without.some((def) => def.path.endsWith('/changes')));
        const plan = form.register(router, 'plain-live', Item, { ...ITEMS, batch: false }, options);
        const at = plan.findIndex((def) => def.method === 'changes');
        assert.deepEqual(plan[at], {
          verb: 'get',
          path: 'plain-live/changes',
          method: 'changes',
          permission: 'search',
          ability: null,
        });
        assert.ok(at < plan.findIndex((def) => def.path.includes('{id')));
      });

      it('answers text/event-stream at once with a retry hint, then one event per committed write, in order', async () => {
        const stream = await open('/items/changes');
        assert.equal(stream.status, 200);
        assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
        assert.equal(stream.headers['cache-control'], 'no-cache, no-transform');
        const created = await server.request('POST', '/items', json({ name: 'first' }));
        assert.equal(created.status, 201, created.text);
        const id = String(created.body.data.id);
        assert.equal((await server.request('PATCH', `/items/${id}`, json({ name: 'renamed' }))).status, 200);
        assert.equal((await server.request('DELETE', `/items/${id}/soft`)).status, 200);
        assert.equal((await server.request('PATCH', `/items/${id}/restore`)).status, 200);
        assert.equal((await server.request('DELETE', `/items/${id}`)).status, 200);
        const many = await server.request('POST', '/items', json([{ name: 'a' }, { name: 'b' }, { name: 'c' }]));
        assert.equal(many.status, 201, many.text);
        const events = await stream.waitFor(6);
        assert.deepEqual(stream.retries, [3000]);
        assert.deepEqual(
          events.map((event) => event.event),
          ['created', 'updated', 'softDeleted', 'restored', 'deleted', 'created'],
        );
        for (const event of events.slice(0, 5)) assert.deepEqual(idsOf(event), [id]);
        assert.deepEqual(
          idsOf(events[5]!),
          (many.body.data as { id: number }[]).map((row) => String(row.id)),
        );
        const eventIds = events.map((event) => BigInt(event.id!));
        assert.deepEqual(
          eventIds,
          [...eventIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
        );
        assert.equal(new Set(eventIds).size, eventIds.length);
        // Only ids travel: no field data.
        for (const event of events) assert.deepEqual(Object.keys(JSON.parse(event.data)), ['ids']);
      });

      it('emits nothing for a write that rolled back (a hook threw), nor for a 404', async () => {
        await settled();
        const stream = await open('/items/changes');
        assert.equal((await server.request('POST', '/items', json({ name: 'boom' }))).status, 500);
        assert.equal((await server.request('PATCH', '/items/999999', json({ name: 'x' }))).status, 404);
        const created = await server.request('POST', '/items', json({ name: 'after' }));
        const [event] = await stream.waitFor(1);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(stream.events.length, 1);
        assert.deepEqual(idsOf(event!), [String(created.body.data.id)]);
        assert.equal(event!.event, 'created');
      });

      it('narrows to ?ids=, trimming a batch event to them', async () => {
        const rows = (await server.request('POST', '/items', json([{ name: 'n1' }, { name: 'n2' }]))).body.data as {
          id: number;
        }[];
        const [one, two] = rows.map((row) => String(row.id));
        // A subscription starts where the feed is: let it pass the creation.
        await settled();
        const stream = await open(`/items/changes?ids=${one},12345678`);
        await server.request('PATCH', `/items/${two}`, json({ name: 'other' }));
        await server.request('PATCH', `/items?filter[name][in]=n1,other`, json({ name: 'both' }));
        const [event] = await stream.waitFor(1);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(stream.events.length, 1);
        assert.deepEqual(idsOf(event!), [one]);
        const bad = await open('/items/changes?ids=');
        assert.equal(bad.status, 400);
        await bad.ended;
        assert.deepEqual(JSON.parse(bad.text()).data[0].field, 'ids');
      });

      it('resumes from Last-Event-ID across a server restart; an unknown id gets one reset; a malformed one a 400', async () => {
        await settled();
        const stream = await open('/items/changes');
        const a = await server.request('POST', '/items', json({ name: 'r1' }));
        const first = await eventNaming(stream, String(a.body.data.id));
        stream.close();
        await server.close();
        // A new server on the same database, written to before the client comes back.
        server = await serve(appOf(form, Item, Note), errors);
        const c = await server.request('POST', '/items', json({ name: 'r3' }));
        const resumed = await open('/items/changes', { 'last-event-id': first.id! });
        const d = await server.request('POST', '/items', json({ name: 'r4' }));
        const events = await resumed.waitFor(2);
        assert.deepEqual(
          events.map((event) => idsOf(event)[0]),
          [c, d].map((reply) => String(reply.body.data.id)),
        );
        assert.ok(a.status === 201 && BigInt(events[0]!.id!) > BigInt(first.id!));
        const unknown = await open('/items/changes', { 'last-event-id': '99999999999' });
        const [reset] = await unknown.waitFor(1);
        assert.equal(reset!.event, 'reset');
        const malformed = await open('/items/changes', { 'last-event-id': 'abc' });
        assert.equal(malformed.status, 400);
        await malformed.ended;
        assert.equal(JSON.parse(malformed.text()).data[0].field, 'Last-Event-ID');
      });

      it('checks the search ability at subscribe time', async () => {
        const refused = await open('/guarded/changes', { 'x-can': 'shop.access.view' });
        assert.equal(refused.status, 403);
        const allowed = await open('/guarded/changes', { 'x-can': 'shop.access.search' });
        assert.equal(allowed.status, 200);
      });

      it("carries only the subscriber's tenant's events; a subscriber without a tenant gets the scope's 403", async () => {
        const none = await open('/notes/changes');
        assert.equal(none.status, 403);
        const a = await open('/notes/changes', { 'x-tenant': 'A' });
        const b = await open('/notes/changes', { 'x-tenant': 'B' });
        const noteA = await server.request('POST', '/notes', json({ title: 'a' }, { 'x-tenant': 'A' }));
        const noteB = await server.request('POST', '/notes', json({ title: 'b' }, { 'x-tenant': 'B' }));
        const [eventA] = await a.waitFor(1);
        const [eventB] = await b.waitFor(1);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual([a.events.length, b.events.length], [1, 1]);
        assert.deepEqual(idsOf(eventA!), [String(noteA.body.data.id)]);
        assert.deepEqual(idsOf(eventB!), [String(noteB.body.data.id)]);
      });

      it('outlives the request deadline, sends heartbeats, and frees everything when the client leaves', async () => {
        const before = openStreams();
        const stream = await open('/items/changes');
        assert.equal(openStreams(), before + 1);
        await new Promise((resolve) => setTimeout(resolve, 1300));
        assert.ok(stream.comments.includes('heartbeat'), JSON.stringify(stream.comments));
        const created = await server.request('POST', '/items', json({ name: 'late' }));
        const [event] = await stream.waitFor(1);
        assert.deepEqual(idsOf(event!), [String(created.body.data.id)]);
        stream.close();
        for (let i = 0; i < 50 && openStreams() > before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(openStreams(), before);
      });

      it('refuses a stream past live.max_subscribers with a 503', async () => {
        for (const stream of streams) stream.close();
        for (let i = 0; i < 50 && openStreams() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        const held: SseStream[] = [];
        for (let i = 0; i < 6; i++) held.push(await open('/items/changes'));
        assert.ok(held.every((stream) => stream.status === 200));
        const refused = await open('/items/changes');
        assert.equal(refused.status, 503);
        await refused.ended;
        assert.equal(JSON.parse(refused.text()).code, 'tooManySubscribers');
        for (const stream of held) stream.close();
        for (let i = 0; i < 50 && openStreams() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      });

      it('drops a subscriber that stops reading before it holds more than live.max_buffered_events', async () => {
        // Long find-field values make large events: the socket's buffers fill after a few, then the server's.
        const Code = db.sequelize!.define(
          `lv${form.initial}Code`,
          {
            id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
            code: { type: DataTypes.STRING(250), allowNull: false, unique: true },
          },
          { tableName: `lv${form.initial}_codes`, timestamps: false },
        );
        await Code.sync({ force: true });
        const spec: ResourceSpec<Model> = { policy: { fillable: ['code'] }, batch: true, live: true };
        const router = new Router();
        const config = {
          ...CONFIG,
          global: { find_field: 'code', find_field_is_uuid: false },
          live: { max_buffered_events: 3 },
        };
        crud(router, 'codes', form.name === 'class' ? controllerOf(Code, spec) : resource(Code, spec), { config });
        const slowServer = await serve(new Koa().use(router.routes()), errors);
        try {
          const before = openStreams();
          // A client that never reads: a socket left paused from the start.
          const slow = connect(Number(new URL(slowServer.url).port), '127.0.0.1');
          slow.pause();
          slow.write('GET /codes/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n');
          const fast = await openStream(`${slowServer.url}/codes/changes`);
          for (let i = 0; i < 50 && openStreams() < before + 2; i++)
            await new Promise((resolve) => setTimeout(resolve, 20));
          assert.equal(openStreams(), before + 2);
          let n = 0;
          const rows = () => Array.from({ length: 1000 }, () => ({ code: `${n++}`.padStart(240, 'x') }));
          let rounds = 0;
          // Each event carries 1,000 ids of 240 characters: the kernel's buffers fill after some, then the server's.
          for (; rounds < 100 && openStreams() === before + 2; rounds++) {
            const reply = await slowServer.request('POST', '/codes', json(rows()));
            assert.equal(reply.status, 201, reply.text);
          }
          assert.equal(openStreams(), before + 1, `the slow stream is still open after ${rounds} events`);
          const closed = new Promise((resolve) => slow.once('close', resolve));
          slow.resume();
          await closed;
          await fast.waitFor(rounds);
          fast.close();
        } finally {
          await slowServer.close();
        }
      });
    });
  }
}
