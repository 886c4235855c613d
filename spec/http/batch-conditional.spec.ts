/**
 * Batch writes under preconditions, on every database and in both forms: `If-Match` on update, delete, soft delete and
 * restore many is checked on every matched record (412, nothing written, checked in the database), `*` and a list of
 * current ETags pass, `require_if_match` answers 428 on the batch routes too, and a `version` in a batch PATCH body is
 * compared on every record of a version model (409 `staleVersion`, versions unchanged). Rows have ids 101-103, so the id
 * PostgreSQL's sequence gives a created record (1) never clashes. Tables `bcond*`.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const ACTIONS = ['search', 'read', 'create', 'update', 'delete', 'softDelete', 'restore'] as const;
const spec: ResourceSpec<Model> = { actions: [...ACTIONS], policy: { fillable: ['name'] }, batch: true };
const config = { global: { find_field_is_uuid: false } };
const STRICT = {
  update: { require_if_match: true },
  delete: { require_if_match: true },
  restore: { require_if_match: true },
};

for (const db of databases)
  for (const form of FORMS) {
    describe(`batch writes under preconditions (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `bcond${form.initial}`;
      const sequelize = db.sequelize!;
      const attributes = {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        name: { type: DataTypes.STRING(40), allowNull: false },
        deleted_at: { type: DataTypes.DATE, allowNull: true },
      };
      const Doc: ModelStatic<Model> = sequelize.define(`${prefix}Doc`, attributes, {
        tableName: `${prefix}_docs`,
        timestamps: false,
      });
      const Rev: ModelStatic<Model> = sequelize.define(`${prefix}Rev`, attributes, {
        tableName: `${prefix}_revs`,
        timestamps: false,
        version: true,
      });
      const errors: unknown[] = [];
      let server: TestServer;
      let hooked = 0;

      before(async () => {
        await Doc.sync({ force: true });
        await Rev.sync({ force: true });
        const router = new Router();
        form.register(router, 'docs', Doc, spec, { config });
        form.register(router, 'strict', Doc, spec, { config: { ...config, ...STRICT } });
        form.register(router, 'revs', Rev, spec, { config });
        const hooks = { beforeUpdate: () => void hooked++ };
        form.register(router, 'hooked', Doc, { ...spec, hooks }, { config });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());
      beforeEach(async () => {
        for (const model of [Doc, Rev]) {
          await model.destroy({ where: {}, truncate: true, force: true });
          await model.bulkCreate([1, 2, 3].map((n) => ({ id: 100 + n, name: `Doc ${n}` })));
        }
        await Doc.update({ deleted_at: new Date() }, { where: { id: 103 } });
        errors.length = 0;
      });

      const send = (verb: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        server.request(verb, path, {
          headers: { 'content-type': 'application/json', ...headers },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      const etagOf = async (path: string) => {
        const read = await send('GET', path);
        assert.equal(read.status, 200, read.text);
        return read.headers.get('etag')!;
      };
      const stored = async (model: ModelStatic<Model>) =>
        (await model.findAll({ order: [['id', 'ASC']], paranoid: false })).map((row) => ({
          id: row.get('id'),
          name: row.get('name'),
          trashed: row.get('deleted_at') !== null,
          ...(model === Rev && { version: row.get('version') }),
        }));
      const ACTIVE = 'filter[id][in]=101,102';

      it('updates many when If-Match lists the ETag of every matched record, or is *', async () => {
        const tags = [await etagOf('/docs/101'), await etagOf('/docs/102')];
        const res = await send('PATCH', `/docs?${ACTIVE}`, { name: 'Both' }, { 'if-match': tags.join(', ') });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          (await stored(Doc)).map((row) => row.name),
          ['Both', 'Both', 'Doc 3'],
        );
        const star = await send('PATCH', `/docs?${ACTIVE}`, { name: 'Star' }, { 'if-match': '*' });
        assert.equal(star.status, 200, star.text);
        assert.deepEqual(
          (await stored(Doc)).map((row) => row.name),
          ['Star', 'Star', 'Doc 3'],
        );
      });

      it('refuses an update many with 412 and writes nothing when one matched record changed since its ETag', async () => {
        const tags = [await etagOf('/docs/101'), await etagOf('/docs/102')];
        await Doc.update({ name: 'Changed' }, { where: { id: 102 } });
        const before = await stored(Doc);
        const res = await send('PATCH', `/docs?${ACTIVE}`, { name: 'Both' }, { 'if-match': tags.join(', ') });
        assert.equal(res.status, 412, res.text);
        assert.equal(res.body.status, 'fail');
        assert.deepEqual(
          res.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
          [['If-Match', 'preconditionFailed']],
        );
        assert.match(res.body.data[0].message, /^Record 102: /);
        assert.deepEqual(await stored(Doc), before);
        assert.deepEqual(errors, []);
      });

      it('refuses a stale If-Match on the per-record path too, before any beforeUpdate hook runs', async () => {
        const tags = [await etagOf('/hooked/101'), await etagOf('/hooked/102')];
        await Doc.update({ name: 'Changed' }, { where: { id: 101 } });
        const before = await stored(Doc);
        hooked = 0;
        const res = await send('PATCH', `/hooked?${ACTIVE}`, { name: 'Both' }, { 'if-match': tags.join(', ') });
        assert.equal(res.status, 412, res.text);
        assert.match(res.body.data[0].message, /^Record 101: /);
        assert.equal(hooked, 0);
        assert.deepEqual(await stored(Doc), before);
      });

      it('lets exactly one of two batch PATCHes sent with the same ETags through', async () => {
        const tags = [await etagOf('/docs/101'), await etagOf('/docs/102')].join(', ');
        const replies = await Promise.all(
          ['First', 'Second'].map((name) => send('PATCH', `/docs?${ACTIVE}`, { name }, { 'if-match': tags })),
        );
        assert.deepEqual(replies.map((reply) => reply.status).sort(), [200, 412], replies.map((r) => r.text).join());
        const winner = replies.find((reply) => reply.status === 200)!.body.data[0].name as string;
        assert.deepEqual(
          (await stored(Doc)).map((row) => row.name),
          [winner, winner, 'Doc 3'],
        );
        assert.deepEqual(errors, []);
      });

      it('checks If-Match on every record of delete, soft delete and restore many: 412 and nothing changes', async () => {
        const tags = [await etagOf('/docs/101'), await etagOf('/docs/102')];
        const before = await stored(Doc);
        const stale = { 'if-match': tags[0]! };
        for (const [verb, path] of [
          ['DELETE', `/docs?${ACTIVE}`],
          ['DELETE', `/docs/soft?${ACTIVE}`],
        ] as const) {
          const res = await send(verb, path, undefined, stale);
          assert.equal(res.status, 412, `${verb} ${path}: ${res.text}`);
          assert.match(res.body.data[0].message, /^Record 102: /);
          assert.deepEqual(await stored(Doc), before);
        }
        const soft = await send('DELETE', `/docs/soft?${ACTIVE}`, undefined, { 'if-match': tags.join(',') });
        assert.equal(soft.status, 200, soft.text);
        assert.deepEqual(
          (await stored(Doc)).map((row) => row.trashed),
          [true, true, true],
        );
        // A trashed record's ETag is the one its soft delete answered: restore it and soft-delete it again to learn it.
        const trashedTags: string[] = [];
        for (const id of [101, 102]) {
          assert.equal((await send('PATCH', `/docs/${id}/restore`)).status, 200);
          trashedTags.push((await send('DELETE', `/docs/${id}/soft`)).headers.get('etag')!);
        }
        const trashed = await stored(Doc);
        // Restore matches the soft-deleted records 101, 102 and 103; `If-Match` names the ETags of 101 and 102 only.
        const restore = await send('PATCH', '/docs/restore?filter[id][in]=101,102,103', undefined, {
          'if-match': trashedTags.join(','),
        });
        assert.equal(restore.status, 412, restore.text);
        assert.deepEqual(
          restore.body.data.map((item: { message: string }) => item.message.split(':')[0]),
          ['Record 103'],
        );
        assert.deepEqual(await stored(Doc), trashed);
        const restored = await send('PATCH', `/docs/restore?${ACTIVE}`, undefined, {
          'if-match': trashedTags.join(','),
        });
        assert.equal(restored.status, 200, restored.text);
        assert.deepEqual(
          (await stored(Doc)).map((row) => row.trashed),
          [false, false, true],
        );
        const removed = await send('DELETE', `/docs?${ACTIVE}`, undefined, { 'if-match': tags.join(',') });
        assert.equal(removed.status, 200, removed.text);
        assert.deepEqual(
          (await stored(Doc)).map((row) => row.id),
          [103],
        );
      });

      it('answers 428 on every batch route when require_if_match is on, and writes nothing', async () => {
        const before = await stored(Doc);
        for (const [verb, path, body] of [
          ['PATCH', `/strict?${ACTIVE}`, { name: 'x' }],
          ['DELETE', `/strict?${ACTIVE}`, undefined],
          ['DELETE', `/strict/soft?${ACTIVE}`, undefined],
          ['PATCH', '/strict/restore?filter[id]=103', undefined],
        ] as const) {
          const res = await send(verb, path, body);
          assert.equal(res.status, 428, `${verb} ${path}: ${res.text}`);
          assert.equal(res.body.data[0].field, 'If-Match');
          assert.equal(res.body.data[0].error, 'preconditionRequired');
        }
        assert.deepEqual(await stored(Doc), before);
        const res = await send('PATCH', `/strict?${ACTIVE}`, { name: 'x' }, { 'if-match': '*' });
        assert.equal(res.status, 200, res.text);
      });

      it('compares a version in a batch PATCH body with every matched record of a version model (409)', async () => {
        await Rev.findByPk(102).then((row) => row!.update({ name: 'Moved on' }));
        const before = await stored(Rev);
        assert.deepEqual(
          before.map((row) => row.version),
          [0, 1, 0],
        );
        const stale = await send('PATCH', `/revs?${ACTIVE}`, { name: 'Both', version: 0 });
        assert.equal(stale.status, 409, stale.text);
        assert.deepEqual(
          stale.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
          [['version', 'staleVersion']],
        );
        assert.match(stale.body.data[0].message, /^Record 102: /);
        assert.deepEqual(await stored(Rev), before);
        // The version is compared, never written: each record's own version is incremented.
        const ok = await send('PATCH', '/revs?filter[id][in]=101,103', { name: 'Both', version: 0 });
        assert.equal(ok.status, 200, ok.text);
        assert.deepEqual(
          ok.body.data.map((row: { version: number }) => row.version),
          [1, 1],
        );
        assert.deepEqual(
          (await stored(Rev)).map((row) => [row.name, row.version]),
          [
            ['Both', 1],
            ['Moved on', 1],
            ['Both', 1],
          ],
        );
      });

      it('creates many as create does: no precondition, and a version in an item is not fillable', async () => {
        const res = await send('POST', '/revs', [{ name: 'New', version: 7 }], { 'if-match': '"nope"' });
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(
          res.body.data.map((row: { name: string; version: number }) => [row.name, row.version]),
          [['New', 0]],
        );
      });
    });
  }
