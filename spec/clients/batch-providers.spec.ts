/**
 * The providers' `batch` option against a real batch resource, on every database and in both forms: react-admin's
 * updateMany/deleteMany/softDeleteMany/restoreMany (through ra-core's `useDataProvider()` proxy) and Refine's
 * createMany/updateMany/deleteMany/softDeleteMany/restoreMany send one request per `batchSize` ids (counted by the server), atomically (checked in the database), and keep the
 * per-id fallback for a resource the option does not name. Tables `cb*`.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import type { DataProvider as RefineDataProvider } from '@refinedev/core';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { dataProvider as raProvider, HttpError as RaHttpError } from 'koa-fast-crud/react-admin';
import { dataProvider as refineProvider, HttpError as RefineHttpError } from 'koa-fast-crud/refine';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { inDevelopmentMode, rejection, throughRaCore } from '../support/ra-core.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineItem(sequelize: Sequelize, name: string): ModelStatic<Model> {
  return sequelize.define(
    name,
    {
      id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
      sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(40), allowNull: false, validate: { len: [1, 40] } },
      price: { type: DataTypes.INTEGER, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${name.toLowerCase()}s`, underscored: true },
  );
}

inDevelopmentMode();

for (const db of databases) {
  for (const form of FORMS) {
    describe(`providers' batch option (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const sequelize = db.sequelize!;
      const Item = defineItem(sequelize, `Cb${form.initial}Item`);
      /** The requests the server received, as `METHOD path`. */
      const requests: string[] = [];
      let server: TestServer;
      const spec: ResourceSpec<Model> = { policy: { fillable: ['sku', 'name', 'price'] }, batch: true };
      const config = { global: { find_field_is_uuid: false } };
      const api = () => `${server.url}/api`;
      const skus = async () =>
        (await Item.findAll({ order: [['id', 'ASC']] })).map((row) => `${row.get('sku')}:${row.get('price')}`);
      const ids = async () => (await Item.findAll({ order: [['id', 'ASC']] })).map((row) => row.get('id') as number);
      /** The skus whose deleted-at column is set. */
      const trashed = async () =>
        (await Item.findAll({ order: [['id', 'ASC']] })).flatMap((row) =>
          row.get('deletedAt') === null ? [] : [row.get('sku') as string],
        );

      before(async () => {
        await Item.sync({ force: true });
        const router = new Router({ prefix: '/api' });
        form.register(router, 'items', Item, spec, { config });
        const app = new Koa();
        app.use(async (ctx, next) => {
          requests.push(`${ctx.method} ${ctx.path}`);
          await next();
        });
        app.use(router.routes()).use(router.allowedMethods());
        server = await serve(app);
      });
      after(() => server.close());
      beforeEach(async () => {
        await Item.destroy({ where: {}, truncate: true, force: true });
        await Item.bulkCreate([1, 2, 3].map((n) => ({ sku: `S${n}`, name: `Item ${n}`, price: n * 10 })));
        requests.length = 0;
      });

      it('react-admin: updateMany and deleteMany send one request for a resource named by batch', async () => {
        const ra = throughRaCore(raProvider(api(), { batch: ['items'] }));
        const all = await ids();
        assert.deepEqual((await ra.updateMany('items', { ids: all, data: { price: 7 } })).data, all);
        assert.deepEqual(requests, ['PATCH /api/items']);
        assert.deepEqual(await skus(), ['S1:7', 'S2:7', 'S3:7']);
        requests.length = 0;
        assert.deepEqual((await ra.deleteMany('items', { ids: all.slice(0, 2) })).data, all.slice(0, 2));
        assert.deepEqual(requests, ['DELETE /api/items']);
        assert.deepEqual(await skus(), ['S3:7']);
      });

      it('react-admin: batch: true and batchSize split the ids into one request per group', async () => {
        const ra = throughRaCore(raProvider(api(), { batch: true, batchSize: 2 }));
        const all = await ids();
        await ra.updateMany('items', { ids: all, data: { price: 8 } });
        assert.deepEqual(requests, ['PATCH /api/items', 'PATCH /api/items']);
        assert.deepEqual(await skus(), ['S1:8', 'S2:8', 'S3:8']);
      });

      it('react-admin: one failing record rejects with the field named and writes nothing', async () => {
        const ra = throughRaCore(raProvider(api(), { batch: ['items'] }));
        const all = await ids();
        // The second record's sku clashes with the first's: the whole batch rolls back.
        const error = await rejection(ra.updateMany('items', { ids: all.slice(0, 2), data: { sku: 'SAME' } }));
        assert.ok(error instanceof RaHttpError, String(error));
        assert.equal(error.status, 409);
        assert.deepEqual(Object.keys(error.body?.['errors'] as object), ['sku']);
        assert.deepEqual(requests, ['PATCH /api/items']);
        assert.deepEqual(await skus(), ['S1:10', 'S2:20', 'S3:30']);
      });

      it('react-admin: without the option, one request per id as before', async () => {
        const ra = throughRaCore(raProvider(api(), { batch: ['other'] }));
        const all = await ids();
        await ra.updateMany('items', { ids: all, data: { price: 9 } });
        assert.deepEqual(requests.sort(), all.map((id) => `PATCH /api/items/${id}`).sort());
        requests.length = 0;
        await ra.deleteMany('items', { ids: all });
        assert.deepEqual(requests.sort(), all.map((id) => `DELETE /api/items/${id}`).sort());
        assert.deepEqual(await skus(), []);
      });

      it('react-admin: softDeleteMany and restoreMany send one request each for a resource named by batch', async () => {
        const ra = throughRaCore(raProvider(api(), { batch: ['items'] }));
        const all = await ids();
        const provider = ra as unknown as ReturnType<typeof raProvider>;
        assert.deepEqual((await provider.softDeleteMany('items', { ids: all.slice(0, 2) })).data, all.slice(0, 2));
        assert.deepEqual(requests, ['DELETE /api/items/soft']);
        assert.deepEqual(await trashed(), ['S1', 'S2']);
        requests.length = 0;
        assert.deepEqual((await provider.restoreMany('items', { ids: all.slice(0, 2) })).data, all.slice(0, 2));
        assert.deepEqual(requests, ['PATCH /api/items/restore']);
        assert.deepEqual(await trashed(), []);
      });

      it('react-admin: softDeleteMany and restoreMany without the option send one request per id', async () => {
        const ra = raProvider(api());
        const all = await ids();
        await ra.softDeleteMany('items', { ids: all });
        assert.deepEqual(requests.sort(), all.map((id) => `DELETE /api/items/${id}/soft`).sort());
        assert.deepEqual(await trashed(), ['S1', 'S2', 'S3']);
        requests.length = 0;
        await ra.restoreMany('items', { ids: all });
        assert.deepEqual(requests.sort(), all.map((id) => `PATCH /api/items/${id}/restore`).sort());
        assert.deepEqual(await trashed(), []);
      });

      it('Refine: softDeleteMany and restoreMany send one request each for a batch resource', async () => {
        const refine = refineProvider(api(), { batch: ['items'] });
        const all = await ids();
        const deleted = await refine.softDeleteMany({ resource: 'items', ids: all.slice(1) });
        assert.deepEqual(
          deleted.data.map((row) => [row.id, row['deletedAt'] === null]),
          all.slice(1).map((id) => [id, false]),
        );
        assert.deepEqual(requests, ['DELETE /api/items/soft']);
        assert.deepEqual(await trashed(), ['S2', 'S3']);
        requests.length = 0;
        const restored = await refine.restoreMany({ resource: 'items', ids: all.slice(1) });
        assert.deepEqual(
          restored.data.map((row) => [row.id, row['deletedAt']]),
          all.slice(1).map((id) => [id, null]),
        );
        assert.deepEqual(requests, ['PATCH /api/items/restore']);
        assert.deepEqual(await trashed(), []);
      });

      it('Refine: softDeleteMany and restoreMany without the option send one request per id', async () => {
        const refine = refineProvider(api());
        const all = await ids();
        const deleted = await refine.softDeleteMany({ resource: 'items', ids: all });
        assert.deepEqual(
          deleted.data.map((row) => row.id),
          all,
        );
        assert.deepEqual(requests.sort(), all.map((id) => `DELETE /api/items/${id}/soft`).sort());
        requests.length = 0;
        await refine.restoreMany({ resource: 'items', ids: all });
        assert.deepEqual(requests.sort(), all.map((id) => `PATCH /api/items/${id}/restore`).sort());
        assert.deepEqual(await trashed(), []);
      });

      it('Refine: createMany, updateMany and deleteMany send one request each for a batch resource', async () => {
        const refine: RefineDataProvider = refineProvider(api(), { batch: true });
        const created = await refine.createMany!({
          resource: 'items',
          variables: [
            { sku: 'N1', name: 'New 1', price: 1 },
            { sku: 'N2', name: 'New 2', price: 2 },
          ],
        });
        assert.deepEqual(
          created.data.map((row) => row['sku']),
          ['N1', 'N2'],
        );
        assert.deepEqual(requests, ['POST /api/items']);
        const newIds = created.data.map((row) => row.id as number);
        requests.length = 0;
        const updated = await refine.updateMany!({ resource: 'items', ids: newIds, variables: { price: 5 } });
        assert.deepEqual(
          updated.data.map((row) => [row.id, row['price']]),
          newIds.map((id) => [id, 5]),
        );
        assert.deepEqual(requests, ['PATCH /api/items']);
        requests.length = 0;
        const deleted = await refine.deleteMany!({ resource: 'items', ids: newIds });
        assert.deepEqual(
          deleted.data.map((row) => row.id),
          newIds,
        );
        assert.deepEqual(requests, ['DELETE /api/items']);
        assert.deepEqual(await skus(), ['S1:10', 'S2:20', 'S3:30']);
      });

      it('Refine: one bad item of createMany rejects with its index-prefixed field and writes nothing', async () => {
        const refine: RefineDataProvider = refineProvider(api(), { batch: ['items'] });
        const error = await rejection(
          refine.createMany!({
            resource: 'items',
            variables: [
              { sku: 'N1', name: 'New 1', price: 1 },
              { sku: 'N2', name: '', price: 2 },
            ],
          }),
        );
        assert.ok(error instanceof RefineHttpError, String(error));
        assert.equal(error.statusCode, 400);
        assert.deepEqual(Object.keys(error.errors ?? {}), ['1.name']);
        assert.deepEqual(requests, ['POST /api/items']);
        assert.deepEqual(await skus(), ['S1:10', 'S2:20', 'S3:30']);
      });

      it('Refine: without the option, one request per record or id as before', async () => {
        const refine: RefineDataProvider = refineProvider(api());
        await refine.createMany!({
          resource: 'items',
          variables: [
            { sku: 'N1', name: 'New 1', price: 1 },
            { sku: 'N2', name: 'New 2', price: 2 },
          ],
        });
        assert.deepEqual(requests, ['POST /api/items', 'POST /api/items']);
        const all = await ids();
        requests.length = 0;
        await refine.updateMany!({ resource: 'items', ids: all, variables: { price: 3 } });
        assert.equal(requests.length, all.length);
        requests.length = 0;
        await refine.deleteMany!({ resource: 'items', ids: all });
        assert.deepEqual(requests.sort(), all.map((id) => `DELETE /api/items/${id}`).sort());
      });
    });
  }
}
