// A write's reply is the record read back inside the write's transaction: what a read returns, every column present.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const spec: ResourceSpec<Model> = { policy: { fillable: ['title', 'body', 'active', 'stamp'] } };

for (const db of databases)
  for (const form of FORMS) {
    describe(`a write's reply, read back (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `rb${form.initial}`;
      let server: TestServer;
      const errors: unknown[] = [];

      before(async () => {
        const Note = db.sequelize!.define(
          `${prefix}Note`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            title: { type: DataTypes.STRING(40), allowNull: false },
            body: { type: DataTypes.TEXT, allowNull: true },
            active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
            stamp: { type: DataTypes.DATE, allowNull: true },
            deletedAt: { type: DataTypes.DATE, allowNull: true },
          },
          { tableName: `${prefix}_notes`, underscored: true, defaultScope: { where: { active: true } } },
        );
        await Note.sync({ force: true });
        const router = new Router();
        form.register(router, 'notes', Note, spec);
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      const send = (verb: string, path: string, body: unknown) =>
        server.request(verb, path, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

      it('returns from create and update exactly what a read returns: a column the body left out as null, a time at the stored precision', async () => {
        const created = await send('POST', '/notes', { title: 'Draft', stamp: '2024-02-29T10:00:00.123Z' });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as string;
        assert.equal(created.body.data.body, null);
        assert.deepEqual(created.body.data, (await server.get(`/notes/${id}`)).body.data);
        const updated = await send('PATCH', `/notes/${id}`, { stamp: '2024-03-01T08:30:00.987Z', body: 'text' });
        assert.equal(updated.status, 200, updated.text);
        const read = (await server.get(`/notes/${id}`)).body.data;
        assert.deepEqual(updated.body.data, read);
        // MariaDB's DATETIME keeps whole seconds; the reply says so rather than echo the milliseconds sent.
        assert.equal(read.stamp, db.dialect === 'mariadb' ? '2024-03-01T08:30:00.000Z' : '2024-03-01T08:30:00.987Z');
        assert.deepEqual(errors, []);
      });

      it('returns the written record when the default scope no longer finds it', async () => {
        const created = await send('POST', '/notes', { title: 'Hidden soon' });
        const id = created.body.data.id as string;
        const updated = await send('PATCH', `/notes/${id}`, { active: false });
        assert.equal(updated.status, 200, updated.text);
        assert.deepEqual([updated.body.data.id, updated.body.data.active], [id, false]);
        assert.equal((await server.get(`/notes/${id}`)).status, 404);
        assert.deepEqual(errors, []);
      });
    });
  }
