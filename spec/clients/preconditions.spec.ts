/**
 * The providers' `preconditions` option (issue #23 item 6): react-admin's update and delete send the `If-Match` of the
 * record the form loaded (`previousData`, matched to the ETag its getOne answered) and, on a version model, its
 * `version`; Refine's send the ETag of the record's last getOne, or `meta.etag`. A write refused because the record
 * changed since is an HttpError with the conflict message and no field errors, and nothing is written. Against the
 * demo app (react-admin through ra-core's `useDataProvider()` proxy, over fetch and fetchUtils.fetchJson), and an app
 * of its own for a version model (`efp_*` tables).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { fetchUtils, type DataProvider } from 'ra-core';
import { DataTypes, Sequelize } from 'sequelize';
import { crud, resource } from 'koa-fast-crud';
import {
  dataProvider,
  HttpError,
  type ReactAdminOptions,
  type RequestInitLike,
  type ResponseLike,
} from 'koa-fast-crud/react-admin';
import { dataProvider as refineProvider, HttpError as RefineHttpError } from 'koa-fast-crud/refine';
import fc from 'fast-check';
import { CONFLICT_MESSAGE, preconditionsFor, TagMemory } from '../../lib/clients/protocol.js';
import { stableId } from '../../docs/examples/demo/seed.js';
import { serveDemoInSuite } from '../support/demo.js';
import { serve, type TestServer } from '../support/http.js';
import { inDevelopmentMode, rejection, throughRaCore } from '../support/ra-core.js';

/** The `If-Match` of every write sent through the returned fetch, in order (`-` when absent). */
function recordingFetch(): { fetch: (url: string, init: RequestInitLike) => Promise<ResponseLike>; sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    fetch: (url, init) => {
      if (init.method !== 'GET') sent.push(init.headers['If-Match'] ?? '-');
      return fetch(url, init);
    },
  };
}

/** The same, for fetchUtils.fetchJson, which gets a Headers object. */
function recordingFetchJson(): { httpClient: NonNullable<ReactAdminOptions['httpClient']>; sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    httpClient: (url, init) => {
      if (init.method !== 'GET') sent.push((init.headers as Headers).get('If-Match') ?? '-');
      return fetchUtils.fetchJson(url, init);
    },
  };
}

describe('TagMemory: the ETag kept for a record content', () => {
  it('finds the tag of a content whatever its key order, and nothing for another content', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (record, other) => {
        const memory = new TagMemory();
        memory.remember('products', 1, record, '"t1"');
        const reordered = Object.fromEntries(Object.entries(record).reverse());
        assert.equal(memory.tagOf('products', 1, reordered), '"t1"');
        assert.equal(memory.tagOf('/products/', 1, record), '"t1"', 'the resource as the providers name it');
        assert.equal(memory.tagOf('products', 2, record), undefined);
        const changed = { ...record, [`${other}!`]: 'changed' };
        assert.equal(memory.tagOf('products', 1, changed), undefined);
      }),
    );
  });

  it('keeps the last four contents of a record, ignores weak and absent tags, forgets a deleted record', () => {
    const memory = new TagMemory();
    for (let n = 1; n <= 5; n += 1) memory.remember('products', 7, { id: 7, n }, `"t${n}"`);
    assert.equal(memory.tagOf('products', 7, { id: 7, n: 1 }), undefined);
    assert.equal(memory.tagOf('products', 7, { n: 2, id: 7 }), '"t2"');
    assert.equal(memory.tagOf('products', 7), '"t5"', 'without a record: the last one kept');
    memory.remember('products', 7, { id: 7, n: 6 }, 'W/"page"');
    memory.remember('products', 7, { id: 7, n: 6 }, undefined);
    assert.equal(memory.tagOf('products', 7, { id: 7, n: 6 }), undefined);
    memory.remember('products', 7, { id: 7, n: 2 }, '"t2b"');
    assert.equal(memory.tagOf('products', 7), '"t2b"', 'a content seen again is the newest, with its new tag');
    memory.forget('products', 7);
    assert.equal(memory.tagOf('products', 7), undefined);
  });

  it('preconditionsFor: true for all, a list by name', () => {
    assert.equal(preconditionsFor({ preconditions: true }, 'any'), true);
    assert.equal(preconditionsFor({ preconditions: ['products'] }, '/products/'), true);
    assert.equal(preconditionsFor({ preconditions: ['products'] }, 'categories'), false);
    assert.equal(preconditionsFor({}, 'products'), false);
  });
});

const pan = stableId('product:KT-001');
const spade = stableId('product:GD-001');
const train = stableId('product:TY-001');

inDevelopmentMode();

for (const transport of ['fetch', 'fetchUtils.fetchJson'] as const) {
  describe(`react-admin's conditional edits (preconditions), over ${transport}`, () => {
    const demo = serveDemoInSuite();
    /** One browser tab: a provider of its own (its own ETags), through ra-core, and the If-Match headers it sent. */
    const tab = (extra: ReactAdminOptions = { preconditions: ['products'] }) => {
      const recorder = transport === 'fetch' ? recordingFetch() : recordingFetchJson();
      const transportOption = 'fetch' in recorder ? { fetch: recorder.fetch } : { httpClient: recorder.httpClient };
      const ra = throughRaCore(dataProvider(`${demo().url}/api`, { ...extra, ...transportOption }) as DataProvider);
      return { ra, sent: recorder.sent };
    };
    const stored = async (id: string) => (await demo().get(`/api/products/${id}`)).body.data;

    it('update sends the ETag getOne answered for the record in previousData, and keeps the one update answers', async () => {
      const { ra, sent } = tab();
      const { data: loaded } = await ra.getOne('products', { id: pan });
      const etag = (await demo().get(`/api/products/${pan}`)).headers.get('etag');
      const { data: saved } = await ra.update('products', { id: pan, data: { price: 55 }, previousData: loaded });
      assert.equal(saved.price, 55);
      const next = (await demo().get(`/api/products/${pan}`)).headers.get('etag');
      const { data: again } = await ra.update('products', { id: pan, data: { price: 56 }, previousData: saved });
      assert.equal(again.price, 56);
      assert.match(etag!, /^"[\w-]+"$/);
      assert.notEqual(next, etag);
      assert.deepEqual(sent, [etag, next], 'the second update sends the ETag the first answered');
    });

    it('two tabs save the same product: the second is refused with the conflict message, and nothing is overwritten', async () => {
      const first = tab();
      const second = tab();
      const { data: inFirst } = await first.ra.getOne('products', { id: spade });
      const { data: inSecond } = await second.ra.getOne('products', { id: spade });
      await first.ra.update('products', { id: spade, data: { name: 'Spade, first' }, previousData: inFirst });
      const error = await rejection(
        second.ra.update('products', { id: spade, data: { name: 'Spade, second' }, previousData: inSecond }),
      );
      assert.ok(error instanceof HttpError, String(error));
      assert.equal(error.status, 412);
      assert.equal(error.message, CONFLICT_MESSAGE);
      assert.equal(error.body?.['errors'], undefined, 'no field errors: react-admin notifies the message');
      assert.equal((await stored(spade)).name, 'Spade, first');
      const deleted = await rejection(second.ra.delete('products', { id: spade, previousData: inSecond }));
      assert.ok(deleted instanceof HttpError && deleted.status === 412, String(deleted));
      assert.equal((await stored(spade)).name, 'Spade, first', 'the stale delete deleted nothing');
      assert.equal(second.sent.length, 2);
      assert.ok(second.sent.every((sent) => sent !== '-'));
    });

    it('delete sends the ETag of previousData, and goes through while the record is unchanged', async () => {
      const { ra, sent } = tab();
      const { data: loaded } = await ra.getOne('products', { id: train });
      await ra.delete('products', { id: train, previousData: loaded });
      assert.equal((await demo().get(`/api/products/${train}`)).status, 404);
      assert.match(sent[0]!, /^"[\w-]+"$/);
    });

    it('without the option, or for a record getOne did not answer, nothing is sent: the last save wins as before', async () => {
      const plain = tab({});
      const other = tab();
      const { data: loaded } = await plain.ra.getOne('products', { id: pan });
      await other.ra.update('products', { id: pan, data: { price: 60 }, previousData: loaded });
      await plain.ra.update('products', { id: pan, data: { price: 61 }, previousData: loaded });
      assert.equal((await stored(pan)).price, 61);
      const { data: listed } = await other.ra.getList('products', {
        filter: { sku: 'BK-001' },
        pagination: { page: 1, perPage: 1 },
        sort: { field: 'id', order: 'ASC' },
      });
      await other.ra.update('products', { id: listed[0].id, data: { price: 40 }, previousData: listed[0] });
      assert.deepEqual(plain.sent, ['-']);
      assert.deepEqual(other.sent.slice(1), ['-'], 'a record from a list has no ETag of its own');
    });
  });
}

describe('react-admin and Refine on a version model (preconditions)', () => {
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const Member = sequelize.define(
    'EfpMember',
    { id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true }, name: DataTypes.STRING },
    { tableName: 'efp_members', version: true },
  );
  let server: TestServer;
  before(async () => {
    await sequelize.sync();
    await Member.bulkCreate([{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cy' }]);
    const router = new Router({ prefix: '/api' });
    crud(router, 'members', resource(Member, { policy: { fillable: ['name'] } }), {
      config: { global: { find_field_is_uuid: false } },
    });
    server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()));
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });
  const name = async (id: number) => (await server.get(`/api/members/${id}`)).body.data.name;

  it('react-admin sends the version of previousData, even for a record from a list: a stale one is a 409 conflict', async () => {
    const options = { preconditions: true } as const;
    const first = throughRaCore(dataProvider(`${server.url}/api`, options) as DataProvider);
    const second = throughRaCore(dataProvider(`${server.url}/api`, options) as DataProvider);
    const list = { pagination: { page: 1, perPage: 10 }, sort: { field: 'id', order: 'ASC' as const }, filter: {} };
    const [ann] = (await first.getList('members', list)).data;
    const [annToo] = (await second.getList('members', list)).data;
    const saved = await first.update('members', { id: ann.id, data: { name: 'Ann B' }, previousData: ann });
    assert.equal(saved.data.version, 1);
    const error = await rejection(
      second.update('members', { id: annToo.id, data: { name: 'Ann C' }, previousData: annToo }),
    );
    assert.ok(error instanceof HttpError, String(error));
    assert.equal(error.status, 409);
    assert.equal(error.message, CONFLICT_MESSAGE);
    assert.equal(error.body?.['errors'], undefined, 'not a field error on a version field the form does not show');
    assert.equal(await name(ann.id), 'Ann B');
  });

  it('versionField: false sends no version', async () => {
    const stale = throughRaCore(
      dataProvider(`${server.url}/api`, { preconditions: true, versionField: false }) as DataProvider,
    );
    await stale.update('members', { id: 2, data: { name: 'Bob B' }, previousData: { id: 2, name: 'Bob', version: 7 } });
    assert.equal(await name(2), 'Bob B');
  });

  it("Refine sends the ETag of the record's last getOne, or meta.etag; a stale one is the conflict HttpError", async () => {
    const first = refineProvider(`${server.url}/api`, { preconditions: ['members'] });
    const second = refineProvider(`${server.url}/api`, { preconditions: ['members'] });
    await first.getOne({ resource: 'members', id: 3 });
    const { data: loaded } = await second.getOne({ resource: 'members', id: 3 });
    await first.update({ resource: 'members', id: 3, variables: { name: 'Cy B' } });
    const error = await rejection(second.update({ resource: 'members', id: 3, variables: { name: 'Cy C' } }));
    assert.ok(error instanceof RefineHttpError, String(error));
    assert.equal(error.statusCode, 412);
    assert.equal(error.message, CONFLICT_MESSAGE);
    assert.equal(error.errors, undefined);
    assert.equal(await name(3), 'Cy B');
    const plain = refineProvider(`${server.url}/api`);
    const explicit = await rejection(
      plain.update({
        resource: 'members',
        id: 3,
        variables: { name: 'Cy D' },
        meta: { etag: `"v${loaded['version']}"` },
      }),
    );
    assert.ok(explicit instanceof RefineHttpError && explicit.statusCode === 412, String(explicit));
    const deleted = await rejection(second.deleteOne({ resource: 'members', id: 3 }));
    assert.ok(deleted instanceof RefineHttpError && deleted.statusCode === 412, String(deleted));
    assert.equal(await name(3), 'Cy B');
    await plain.update({ resource: 'members', id: 3, variables: { name: 'Cy E' }, meta: { etag: '"v1"' } });
    assert.equal(await name(3), 'Cy E');
  });
});
