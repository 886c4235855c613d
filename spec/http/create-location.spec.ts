import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Tables `cloc<form>_items` (UUID key, a unique slug) and `cloc<form>_orders` (integer key). */
function defineModels(sequelize: Sequelize, prefix: string) {
  const Item = sequelize.define(
    `${prefix}Item`,
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      name: { type: DataTypes.STRING(60), allowNull: false },
      slug: { type: DataTypes.STRING(60), allowNull: false, unique: true },
    },
    { tableName: `${prefix}_items`, underscored: true, timestamps: false },
  );
  const Order = sequelize.define(
    `${prefix}Order`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      reference: { type: DataTypes.STRING(20), allowNull: false },
    },
    { tableName: `${prefix}_orders`, underscored: true, timestamps: false },
  );
  return { Item, Order };
}

const items: ResourceSpec<Model> = { policy: { fillable: ['name', 'slug'] } };
const orders: ResourceSpec<Model> = { policy: { fillable: ['reference'] } };
const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const anyKey = { global: { find_field_is_uuid: false } };

for (const db of databases)
  for (const form of FORMS) {
    describe(`create's Location header (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `cloc${form.initial}`;
      let server: TestServer;
      const errors: unknown[] = [];

      before(async () => {
        const { Item, Order } = defineModels(db.sequelize!, prefix);
        await Item.sync({ force: true });
        await Order.sync({ force: true });
        const api = new Router({ prefix: '/api' });
        form.register(api, 'items', Item, items);
        form.register(api, 'catalog/by-slug', Item, items, { config: { ...anyKey, read: { find_field: 'slug' } } });
        form.register(api, 'orders', Order, orders, { config: anyKey });
        form.register(api, 'write-only', Item, items, { except: ['read'] });
        // A router mounted under another: the Location keeps both prefixes.
        const inner = new Router({ prefix: '/shop' });
        form.register(inner, 'items', Item, items);
        const outer = new Router();
        outer.use('/v1', inner.routes());
        server = await serve(new Koa().use(api.routes()).use(outer.routes()), errors);
      });
      after(() => server?.close());

      it('answers 201 with Location: the router prefix, the uri and the new key, which read answers', async () => {
        const res = await server.request('POST', '/api/items', json({ name: 'Lamp', slug: 'lamp' }));
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), `/api/items/${res.body.data.id}`);
        const read = await server.get(res.headers.get('location')!);
        assert.equal(read.status, 200);
        assert.deepEqual(read.body.data, res.body.data);
      });

      it("names the record by read's find field, percent-encoded, under a uri of several segments", async () => {
        const res = await server.request(
          'POST',
          '/api/catalog/by-slug/',
          json({ name: 'Blue chair', slug: 'blue chair/2' }),
        );
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), '/api/catalog/by-slug/blue%20chair%2F2');
        const read = await server.get(res.headers.get('location')!);
        assert.equal(read.status, 200);
        assert.equal(read.body.data.id, res.body.data.id);
      });

      it('names an integer key as a number', async () => {
        const res = await server.request('POST', '/api/orders?source=test', json({ reference: 'A-1' }));
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), `/api/orders/${res.body.data.id}`);
        assert.equal((await server.get(res.headers.get('location')!)).body.data.reference, 'A-1');
      });

      it('keeps the prefixes of nested routers', async () => {
        const res = await server.request('POST', '/v1/shop/items', json({ name: 'Desk', slug: 'desk' }));
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), `/v1/shop/items/${res.body.data.id}`);
        assert.equal((await server.get(res.headers.get('location')!)).status, 200);
      });

      it('sends no Location when read is not registered, nor with a fail', async () => {
        const created = await server.request('POST', '/api/write-only', json({ name: 'Stool', slug: 'stool' }));
        assert.equal(created.status, 201);
        assert.equal(created.headers.get('location'), null);
        const refused = await server.request('POST', '/api/items', json({ slug: 'no-name' }));
        assert.equal(refused.status, 400);
        assert.equal(refused.headers.get('location'), null);
        assert.deepEqual(errors, []);
      });
    });
  }
