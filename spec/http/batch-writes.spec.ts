/**
 * Batch writes over HTTP, on every database and in both forms: create many (array POST), update, delete, soft delete
 * and restore many by filter — atomicity checked in the database, index-prefixed fields, the caps, abilities, the
 * tenant scope, hooks per record and rollback on a hook's throw. Tables `bw*`.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { tenantScope, type CrudOptions, type ResourceHooks, type ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineItem(sequelize: Sequelize, name: string): ModelStatic<Model> {
  return sequelize.define(
    name,
    {
      id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
      sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(40), allowNull: false, validate: { len: [1, 40] } },
      price: { type: DataTypes.INTEGER, allowNull: true, validate: { min: 0 } },
      tenant: { type: DataTypes.STRING(10), allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${name.toLowerCase()}s`, underscored: true },
  );
}

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** What one registration of the items resource records of its hooks. */
interface Calls {
  beforeUpdate: number[];
  afterUpdate: number[];
  beforeCreate: number;
  afterCreate: number;
  beforeDelete: number[];
  beforeSoftDelete: number[];
  afterRestore: number[];
  /** The record id whose afterUpdate (or afterCreate's sku) throws, when set. */
  failOn?: number | string;
}

function hooksOf(calls: Calls): ResourceHooks<Model> {
  return {
    beforeUpdate: (record) => void calls.beforeUpdate.push(record.get('id') as number),
    afterUpdate: (record) => {
      calls.afterUpdate.push(record.get('id') as number);
      if (record.get('id') === calls.failOn) throw Object.assign(new Error('Locked'), { status: 409, expose: true });
    },
    beforeCreate: () => void calls.beforeCreate++,
    afterCreate: (record) => {
      calls.afterCreate++;
      if (record.get('sku') === calls.failOn) throw new Error('afterCreate broke');
    },
    beforeDelete: (record) => void calls.beforeDelete.push(record.get('id') as number),
    beforeSoftDelete: (record) => void calls.beforeSoftDelete.push(record.get('id') as number),
    afterRestore: (record) => void calls.afterRestore.push(record.get('id') as number),
  };
}

for (const db of databases) {
  for (const form of FORMS) {
    describe(`batch writes (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const sequelize = db.sequelize!;
      const Item = defineItem(sequelize, `Bw${form.initial}Item`);
      // A tenant scope holds for every resource of its model: the scoped resource has a model of its own.
      const Scoped = defineItem(sequelize, `Bw${form.initial}Scoped`);
      const calls: Calls = {
        beforeUpdate: [],
        afterUpdate: [],
        beforeCreate: 0,
        afterCreate: 0,
        beforeDelete: [],
        beforeSoftDelete: [],
        afterRestore: [],
      };
      const errors: unknown[] = [];
      let server: TestServer;
      const spec: ResourceSpec<Model> = {
        policy: { fillable: ['sku', 'name', 'price'] },
        batch: true,
        hooks: hooksOf(calls),
      };
      const config = { global: { find_field_is_uuid: false }, batch: { max_records: 5 } };
      const register = (router: Router, uri: string, s: ResourceSpec<Model>, options: CrudOptions = {}) =>
        form.register(router, uri, Item, s, { config, ...options });

      before(async () => {
        await Item.sync({ force: true });
        await Scoped.sync({ force: true });
        const router = new Router({ prefix: '/api' });
        register(router, 'items', spec);
        register(router, 'plain', { ...spec, batch: false });
        register(router, 'guarded', spec, {
          moduleName: 'shop',
          can: (ctx, ability) => ability !== 'shop.access.update' || ctx.get('x-can') === 'yes',
        });
        form.register(router, 'tenants', Scoped, spec, {
          config,
          plugins: [tenantScope('tenant', (ctx) => ctx.get('x-tenant') || null)],
        });
        const app = new Koa();
        app.use(router.routes()).use(router.allowedMethods());
        server = await serve(app, errors);
      });
      after(() => server.close());
      beforeEach(async () => {
        await Item.destroy({ where: {}, truncate: true, force: true });
        const rows = [1, 2, 3, 4].map((n) => ({ sku: `S${n}`, name: `Item ${n}`, price: n * 10, tenant: 'a' }));
        await Item.bulkCreate([...rows, { sku: 'B1', name: 'Other', price: 5, tenant: 'b' }]);
        await Scoped.destroy({ where: {}, truncate: true, force: true });
        await Scoped.bulkCreate([...rows, { sku: 'B1', name: 'Other', price: 5, tenant: 'b' }]);
        Object.assign(calls, {
          beforeUpdate: [],
          afterUpdate: [],
          beforeCreate: 0,
          afterCreate: 0,
          beforeDelete: [],
          beforeSoftDelete: [],
          afterRestore: [],
          failOn: undefined,
        });
        errors.length = 0;
      });

      const skus = async () => (await Item.findAll({ order: [['id', 'ASC']] })).map((r) => r.get('sku'));
      const scopedIds = async (where: Record<string, unknown>) =>
        (await Scoped.findAll({ where, order: [['id', 'ASC']] })).map((r) => r.get('id') as number);
      const ids = async (where: Record<string, unknown>) =>
        (await Item.findAll({ where, order: [['id', 'ASC']] })).map((r) => r.get('id') as number);

      it('creates every item of an array body in one request, in request order (201)', async () => {
        const sent = [
          { sku: 'N2', name: 'Second', price: 2 },
          { sku: 'N1', name: 'First', price: 1 },
        ];
        const res = await server.request('POST', '/api/items', json(sent));
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(
          res.body.data.map((r: Record<string, unknown>) => [r['sku'], r['name'], r['price']]),
          [
            ['N2', 'Second', 2],
            ['N1', 'First', 1],
          ],
        );
        assert.equal(typeof res.body.data[0].id, 'number');
        assert.deepEqual([calls.beforeCreate, calls.afterCreate], [2, 2]);
        assert.deepEqual((await skus()).slice(-2), ['N2', 'N1']);
      });

      it("writes nothing when one item fails, naming the field after the item's index", async () => {
        const before = await skus();
        const res = await server.request(
          'POST',
          '/api/items',
          json([
            { sku: 'N1', name: 'Fine', price: 1 },
            { sku: 'N2', name: 'Bad', price: 'many' },
            { sku: 'N3', name: 'Fine too' },
          ]),
        );
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(
          res.body.data.map((item: { field: string }) => item.field),
          ['1.price'],
        );
        assert.deepEqual(await skus(), before);
      });

      it('names a model validation failure of an item after its index, and writes nothing', async () => {
        const before = await skus();
        const res = await server.request(
          'POST',
          '/api/items',
          json([
            { sku: 'N1', name: 'Fine' },
            { sku: 'N2', name: 'Fine' },
            { sku: 'N3', name: 'Bad', price: -4 },
          ]),
        );
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(
          res.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
          [['2.price', 'min']],
        );
        // The multi-row INSERT was refused and the items went one by one: each create hook ran once per item.
        assert.deepEqual([calls.beforeCreate, calls.afterCreate], [3, 0]);
        assert.deepEqual(await skus(), before);
      });

      it("names a unique clash with a stored row or an earlier item after the item's index (409)", async () => {
        const before = await skus();
        const stored = await server.request(
          'POST',
          '/api/items',
          json([
            { sku: 'N1', name: 'a' },
            { sku: 'S2', name: 'b' },
          ]),
        );
        assert.equal(stored.status, 409, stored.text);
        assert.deepEqual(stored.body.data[0].field, '1.sku');
        assert.deepEqual(stored.body.data[0].error, 'unique');
        const inBatch = await server.request(
          'POST',
          '/api/items',
          json([
            { sku: 'N1', name: 'a' },
            { sku: 'N2', name: 'b' },
            { sku: 'N1', name: 'c' },
          ]),
        );
        assert.equal(inBatch.status, 409, inBatch.text);
        assert.deepEqual(inBatch.body.data[0].field, '2.sku');
        // Both multi-row INSERTs were refused and their items went one by one: each hook ran once per item.
        assert.deepEqual([calls.beforeCreate, calls.afterCreate], [2 + 3, 0]);
        assert.deepEqual(await skus(), before);
      });

      it("rolls every item back when an item's afterCreate hook throws", async () => {
        const before = await skus();
        calls.failOn = 'N2';
        const res = await server.request(
          'POST',
          '/api/items',
          json([
            { sku: 'N1', name: 'a' },
            { sku: 'N2', name: 'b' },
          ]),
        );
        assert.equal(res.status, 500, res.text);
        assert.equal(errors.length, 1);
        assert.deepEqual(await skus(), before);
      });

      it('answers an empty array with 400 emptyPayload and one past batch.max_records with 400 tooManyRows', async () => {
        const empty = await server.request('POST', '/api/items', json([]));
        assert.equal(empty.status, 400);
        assert.equal(empty.body.data[0].error, 'emptyPayload');
        const before = await skus();
        const six = Array.from({ length: 6 }, (_, i) => ({ sku: `M${i}`, name: 'm' }));
        const tooMany = await server.request('POST', '/api/items', json(six));
        assert.equal(tooMany.status, 400);
        assert.deepEqual([tooMany.body.data[0].field, tooMany.body.data[0].error], ['body', 'tooManyRows']);
        assert.deepEqual(await skus(), before);
      });

      it('keeps an array body a 400 emptyPayload and the 12 routes when batch is off', async () => {
        const res = await server.request('POST', '/api/plain', json([{ sku: 'N1', name: 'a' }]));
        assert.equal(res.status, 400);
        assert.equal(res.body.data[0].error, 'emptyPayload');
        const patch = await server.request('PATCH', '/api/plain?filter[price][gte]=0', json({ name: 'x' }));
        assert.equal(patch.status, 405);
        const soft = await server.request('DELETE', '/api/plain/soft?filter[price][gte]=0');
        assert.notEqual(soft.status, 200);
      });

      it('updates every record the filter matches, with hooks per record, in one transaction', async () => {
        const matched = await ids({ price: [20, 30] });
        const res = await server.request('PATCH', '/api/items?filter[price][in]=20,30', json({ name: 'Renamed' }));
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          res.body.data.map((r: Record<string, unknown>) => [r['id'], r['name']]),
          matched.map((id) => [id, 'Renamed']),
        );
        assert.deepEqual(calls.beforeUpdate, matched);
        assert.deepEqual(calls.afterUpdate, matched);
        assert.deepEqual(await ids({ name: 'Renamed' }), matched);
      });

      it("rolls every record back when a record's afterUpdate hook throws", async () => {
        const matched = await ids({ tenant: 'a' });
        calls.failOn = matched[2];
        const res = await server.request('PATCH', '/api/items?filter[tenant]=a', json({ name: 'Renamed' }));
        assert.equal(res.status, 409, res.text);
        assert.deepEqual(await ids({ name: 'Renamed' }), []);
      });

      it('refuses an update or delete by filter without a filter (400 filterRequired), changing nothing', async () => {
        const patch = await server.request('PATCH', '/api/items', json({ name: 'All' }));
        assert.equal(patch.status, 400, patch.text);
        assert.deepEqual([patch.body.data[0].field, patch.body.data[0].error], ['filter', 'filterRequired']);
        for (const [method, path] of [
          ['DELETE', '/api/items'],
          ['DELETE', '/api/items/soft'],
          ['PATCH', '/api/items/restore'],
        ] as const) {
          const res = await server.request(method, path);
          assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
          assert.equal(res.body.data[0].error, 'filterRequired');
        }
        assert.equal(await Item.count(), 5);
        assert.deepEqual(await ids({ name: 'All' }), []);
      });

      it('refuses a filter whose every value is blank (400 filterRequired), changing nothing', async () => {
        for (const query of ['filter[name]=', 'filter[price][gte]=&filter[name]=', 'filter[$or][0][name]=']) {
          const patch = await server.request('PATCH', `/api/items?${query}`, json({ name: 'All' }));
          assert.equal(patch.status, 400, `${query}: ${patch.text}`);
          assert.equal(patch.body.data[0].error, 'filterRequired');
          const res = await server.request('DELETE', `/api/items?${query}`);
          assert.equal(res.status, 400, `${query}: ${res.text}`);
        }
        assert.equal(await Item.count(), 5);
        assert.deepEqual(await ids({ name: 'All' }), []);
      });

      it('refuses a filter matching more than batch.max_records (400 tooManyRows), changing nothing', async () => {
        await Item.create({ sku: 'S5', name: 'Item 5', price: 50 });
        const res = await server.request('PATCH', '/api/items?filter[price][gte]=0', json({ name: 'All' }));
        assert.equal(res.status, 400, res.text);
        assert.deepEqual([res.body.data[0].field, res.body.data[0].error], ['filter', 'tooManyRows']);
        assert.deepEqual(await ids({ name: 'All' }), []);
        const del = await server.request('DELETE', '/api/items?filter[price][gte]=0');
        assert.equal(del.status, 400);
        assert.equal(await Item.count(), 6);
      });

      it('checks an update body once, as update does, and changes nothing when it fails', async () => {
        const res = await server.request('PATCH', '/api/items?filter[tenant]=a', json({ price: -1 }));
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.data[0].field, 'price');
        assert.equal(await Item.count({ where: { price: -1 } }), 0);
      });

      it('deletes every matching record, answering their find-field values, and keeps the others', async () => {
        const matched = await ids({ price: [10, 40] });
        const res = await server.request('DELETE', '/api/items?filter[price][in]=10,40');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data, matched);
        assert.deepEqual(calls.beforeDelete, matched);
        assert.equal(await Item.count({ where: { id: matched } }), 0);
        assert.equal(await Item.count(), 3);
      });

      it('soft-deletes and restores every matching record (DELETE /soft, PATCH /restore)', async () => {
        const matched = await ids({ price: [20, 30] });
        const soft = await server.request('DELETE', '/api/items/soft?filter[price][in]=20,30');
        assert.equal(soft.status, 200, soft.text);
        assert.deepEqual(
          soft.body.data.map((r: Record<string, unknown>) => r['id']),
          matched,
        );
        assert.ok(soft.body.data.every((r: Record<string, unknown>) => r['deletedAt'] !== null));
        assert.deepEqual(calls.beforeSoftDelete, matched);
        assert.equal(await Item.count({ where: { deletedAt: null } }), 3);
        // Soft-deleted rows are out of an update by filter, as out of search.
        const patch = await server.request('PATCH', '/api/items?filter[price][in]=20,30', json({ name: 'x' }));
        assert.deepEqual(patch.body.data, []);
        const restored = await server.request('PATCH', '/api/items/restore?filter[price][gte]=0');
        assert.equal(restored.status, 200, restored.text);
        assert.deepEqual(
          restored.body.data.map((r: Record<string, unknown>) => [r['id'], r['deletedAt']]),
          matched.map((id) => [id, null]),
        );
        assert.deepEqual(calls.afterRestore, matched);
        assert.equal(await Item.count({ where: { deletedAt: null } }), 5);
      });

      it('keeps the single routes of a batch resource: one object POST, PATCH, DELETE and /soft of an {id}', async () => {
        const one = await server.request('POST', '/api/items', json({ sku: 'O1', name: 'One' }));
        assert.equal(one.status, 201, one.text);
        assert.equal(one.body.data.sku, 'O1');
        const id = one.body.data.id as number;
        const patched = await server.request('PATCH', `/api/items/${id}`, json({ name: 'Uno' }));
        assert.deepEqual([patched.status, patched.body.data.name], [200, 'Uno']);
        const soft = await server.request('DELETE', `/api/items/${id}/soft`);
        assert.equal(soft.status, 200, soft.text);
        const gone = await server.request('DELETE', `/api/items/${id}`);
        assert.deepEqual([gone.status, gone.body.data], [200, null]);
        assert.equal(await Item.count({ where: { id } }), 0);
      });

      it('never updates or soft-deletes a soft-deleted record, even when the filter names deletedAt', async () => {
        const [first] = await ids({ price: 10 });
        await Item.update({ deletedAt: new Date() }, { where: { id: first } });
        const patch = await server.request('PATCH', '/api/items?filter[deletedAt][nn]', json({ name: 'Ghost' }));
        assert.equal(patch.status, 200, patch.text);
        assert.deepEqual(patch.body.data, []);
        const soft = await server.request('DELETE', '/api/items/soft?filter[deletedAt][nn]');
        assert.deepEqual(soft.body.data, []);
        assert.equal(await Item.count({ where: { name: 'Ghost' } }), 0);
        // Restore finds only soft-deleted records, whatever the filter says.
        const restored = await server.request('PATCH', '/api/items/restore?filter[price][gte]=0');
        assert.deepEqual(
          restored.body.data.map((r: Record<string, unknown>) => r['id']),
          [first],
        );
      });

      it("guards each batch route with its single action's ability", async () => {
        const refused = await server.request('PATCH', '/api/guarded?filter[tenant]=a', json({ name: 'x' }));
        assert.equal(refused.status, 403, refused.text);
        assert.match(refused.body.data[0].message, /shop\.access\.update/);
        const allowed = await server.request('PATCH', '/api/guarded?filter[tenant]=a', {
          ...json({ name: 'x' }),
          headers: { 'content-type': 'application/json', 'x-can': 'yes' },
        });
        assert.equal(allowed.status, 200, allowed.text);
        assert.equal(await Item.count({ where: { name: 'x' } }), 4);
      });

      it("keeps a batch within the tenant scope: another tenant's rows never match", async () => {
        const headers = { 'content-type': 'application/json', 'x-tenant': 'b' };
        const res = await server.request('PATCH', '/api/tenants?filter[price][gte]=0', {
          headers,
          body: JSON.stringify({ name: 'Mine' }),
        });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(await scopedIds({ name: 'Mine' }), await scopedIds({ tenant: 'b' }));
        const del = await server.request('DELETE', '/api/tenants?filter[price][gte]=0', { headers });
        assert.equal(del.body.data.length, 1);
        assert.equal(await Scoped.count({ where: { tenant: 'a' } }), 4);
        const created = await server.request('POST', '/api/tenants', {
          headers,
          body: JSON.stringify([
            { sku: 'T1', name: 't' },
            { sku: 'T2', name: 't' },
          ]),
        });
        assert.equal(created.status, 201, created.text);
        assert.equal(await Scoped.count({ where: { tenant: 'b', name: 't' } }), 2);
      });
    });
  }
}
