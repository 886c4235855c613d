// ETags and preconditions over HTTP: If-None-Match → 304, If-Match → 412 with the row unchanged, 428 where a write must
// be conditional, Sequelize's `version` column (409 staleVersion), and ETags made only of what the client may see.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
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
const bookSpec: ResourceSpec<Model> = {
  actions: [...ACTIONS],
  policy: { fillable: ['title', 'pages', 'secret'], hidden: ['secret'] },
};
const memberSpec: ResourceSpec<Model> = { actions: [...ACTIONS], policy: { fillable: ['name'] } };

for (const db of databases)
  for (const form of FORMS) {
    describe(`conditional requests (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `cond${form.initial}`;
      let server: TestServer;
      let Book: ModelStatic<Model>;
      let Member: ModelStatic<Model>;
      let Note: ModelStatic<Model>;
      const errors: unknown[] = [];

      before(async () => {
        const sequelize = db.sequelize!;
        Book = sequelize.define(
          `${prefix}Book`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            title: { type: DataTypes.STRING(60), allowNull: false },
            pages: { type: DataTypes.INTEGER, allowNull: true },
            secret: { type: DataTypes.STRING(60), allowNull: true },
            deleted_at: { type: DataTypes.DATE, allowNull: true },
          },
          { tableName: `${prefix}_books`, timestamps: false },
        );
        Member = sequelize.define(
          `${prefix}Member`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            name: { type: DataTypes.STRING(60), allowNull: false },
            deleted_at: { type: DataTypes.DATE, allowNull: true },
          },
          { tableName: `${prefix}_members`, timestamps: false, version: 'rev' },
        );
        Note = sequelize.define(
          `${prefix}Note`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            title: { type: DataTypes.STRING(60), allowNull: false },
            meta: { type: DataTypes.JSON, allowNull: true },
          },
          { tableName: `${prefix}_notes`, timestamps: false },
        );
        await Note.sync({ force: true });
        await Book.sync({ force: true });
        await Member.sync({ force: true });
        const router = new Router();
        form.register(router, 'books', Book, bookSpec);
        form.register(router, 'members', Member, memberSpec);
        form.register(router, 'strict-books', Book, bookSpec, {
          config: {
            update: { require_if_match: true },
            delete: { require_if_match: true },
            restore: { require_if_match: true },
          },
        });
        form.register(
          router,
          'notes',
          Note,
          { actions: ['read', 'update'], policy: { fillable: ['title'] } },
          {
            config: { global: { max_depth: 2 } },
          },
        );
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      const send = (verb: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        server.request(verb, path, {
          headers: { 'content-type': 'application/json', ...headers },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      const book = async (fields: Record<string, unknown> = {}) => {
        const created = await send('POST', '/books', { title: 'Dune', pages: 412, ...fields });
        assert.equal(created.status, 201, created.text);
        return { id: created.body.data.id as string, etag: created.headers.get('etag')! };
      };
      const stored = async (id: string) => (await Book.findByPk(id))!.get({ plain: true }) as Record<string, unknown>;

      it('sends a strong ETag on read and on every write that answers a record, the one a read then sends', async () => {
        const { id, etag } = await book();
        assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
        const read = await server.get(`/books/${id}`);
        assert.equal(read.headers.get('etag'), etag);
        const updated = await send('PATCH', `/books/${id}`, { pages: 500 });
        assert.notEqual(updated.headers.get('etag'), etag);
        assert.equal((await server.get(`/books/${id}`)).headers.get('etag'), updated.headers.get('etag'));
        const soft = await send('DELETE', `/books/${id}/soft`);
        assert.equal(soft.status, 200, soft.text);
        assert.match(soft.headers.get('etag') ?? '', /^"/);
        const restored = await send('PATCH', `/books/${id}/restore`);
        assert.equal(restored.headers.get('etag'), updated.headers.get('etag'));
        assert.deepEqual(errors, []);
      });

      it('answers 304 without a body to a read or a search whose If-None-Match names the current ETag', async () => {
        const { id, etag } = await book();
        const cached = await send('GET', `/books/${id}`, undefined, { 'if-none-match': `W/"x", ${etag}` });
        assert.equal(cached.status, 304);
        assert.equal(cached.text, '');
        assert.equal(cached.headers.get('etag'), etag);
        assert.equal((await send('GET', `/books/${id}`, undefined, { 'if-none-match': '"other"' })).status, 200);
        const page = await server.get('/books?sort=title');
        const weak = page.headers.get('etag')!;
        assert.match(weak, /^W\/"/);
        const again = await send('GET', '/books?sort=title', undefined, { 'if-none-match': weak });
        assert.equal(again.status, 304);
        assert.equal(again.text, '');
        await book({ title: 'Emma' });
        assert.equal((await send('GET', '/books?sort=title', undefined, { 'if-none-match': weak })).status, 200);
        assert.deepEqual(errors, []);
      });

      it('answers 404, not 304 or 412, for a missing record, even with If-Match: *', async () => {
        const missing = '00000000-0000-4000-8000-000000000000';
        for (const verb of ['PATCH', 'DELETE'])
          assert.equal((await send(verb, `/books/${missing}`, { pages: 1 }, { 'if-match': '*' })).status, 404);
        assert.equal((await send('GET', `/books/${missing}`, undefined, { 'if-none-match': '*' })).status, 404);
      });

      it('refuses a write with a stale If-Match with 412 preconditionFailed, the row unchanged in the database', async () => {
        const { id, etag } = await book();
        const stale = '"stale"';
        const before = await stored(id);
        const patch = await send('PATCH', `/books/${id}`, { pages: 1 }, { 'if-match': stale });
        assert.equal(patch.status, 412, patch.text);
        assert.deepEqual(
          patch.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
          [['If-Match', 'preconditionFailed']],
        );
        for (const [verb, path] of [
          ['PUT', `/books/${id}`],
          ['POST', `/books/${id}`],
          ['DELETE', `/books/${id}`],
          ['DELETE', `/books/${id}/soft`],
        ] as const)
          assert.equal((await send(verb, path, { pages: 1 }, { 'if-match': stale })).status, 412, `${verb} ${path}`);
        // A weak tag never matches If-Match, which compares strongly.
        assert.equal((await send('PATCH', `/books/${id}`, { pages: 1 }, { 'if-match': `W/${etag}` })).status, 412);
        assert.deepEqual(await stored(id), before);
        const ok = await send('PATCH', `/books/${id}`, { pages: 2 }, { 'if-match': `"a", ${etag}` });
        assert.equal(ok.status, 200, ok.text);
        assert.equal((await stored(id))['pages'], 2);
        const star = await send('PATCH', `/books/${id}`, { pages: 3 }, { 'if-match': '*' });
        assert.equal(star.status, 200, star.text);
        // Restore and delete check it too.
        const soft = await send('DELETE', `/books/${id}/soft`, undefined, { 'if-match': star.headers.get('etag')! });
        assert.equal(soft.status, 200, soft.text);
        assert.equal((await send('PATCH', `/books/${id}/restore`, undefined, { 'if-match': stale })).status, 412);
        assert.notEqual((await stored(id))['deleted_at'], null);
        const restore = await send('PATCH', `/books/${id}/restore`, undefined, {
          'if-match': soft.headers.get('etag')!,
        });
        assert.equal(restore.status, 200, restore.text);
        const gone = await send('DELETE', `/books/${id}`, undefined, { 'if-match': restore.headers.get('etag')! });
        assert.equal(gone.status, 200, gone.text);
        assert.equal(await Book.findByPk(id), null);
        assert.deepEqual(errors, []);
      });

      it('lets exactly one of two racing PATCHes with the same ETag through; the other is a 412', async () => {
        for (let round = 0; round < 5; round += 1) {
          const { id, etag } = await book();
          const replies = await Promise.all(
            [10, 20].map((pages) => send('PATCH', `/books/${id}`, { pages }, { 'if-match': etag })),
          );
          const statuses = replies.map((reply) => reply.status).sort();
          assert.deepEqual(statuses, [200, 412], replies.map((reply) => reply.text).join('\n'));
          const winner = replies.find((reply) => reply.status === 200)!;
          assert.equal((await stored(id))['pages'], winner.body.data.pages);
        }
        assert.deepEqual(errors, []);
      });

      it('answers 428 preconditionRequired to a write without If-Match where require_if_match is on', async () => {
        const { id, etag } = await book();
        for (const [verb, path] of [
          ['PATCH', `/strict-books/${id}`],
          ['DELETE', `/strict-books/${id}`],
          ['DELETE', `/strict-books/${id}/soft`],
          ['PUT', `/strict-books/${id}/restore`],
        ] as const) {
          const reply = await send(verb, path, { pages: 9 });
          assert.equal(reply.status, 428, `${verb} ${path}: ${reply.text}`);
          assert.deepEqual([reply.body.data[0].field, reply.body.data[0].error], ['If-Match', 'preconditionRequired']);
        }
        assert.equal((await stored(id))['pages'], 412);
        const ok = await send('PATCH', `/strict-books/${id}`, { pages: 9 }, { 'if-match': etag });
        assert.equal(ok.status, 200, ok.text);
        assert.equal((await send('PATCH', `/books/${id}`, { pages: 10 })).status, 200);
      });

      it('never lets a hidden field change or show in an ETag', async () => {
        const a = await book({ title: 'Same', pages: 1, secret: 'alpha' });
        const b = await book({ title: 'Same', pages: 1, secret: 'beta' });
        const readA = await server.get(`/books/${a.id}`);
        const readB = await server.get(`/books/${b.id}`);
        // Rewriting B's secret, behind the API or through it, leaves its tag as it was.
        await Book.update({ secret: 'gamma' }, { where: { id: b.id } });
        assert.equal((await server.get(`/books/${b.id}`)).headers.get('etag'), readB.headers.get('etag'));
        const same = await send(
          'PATCH',
          `/books/${b.id}`,
          { secret: 'delta' },
          { 'if-match': readB.headers.get('etag')! },
        );
        assert.equal(same.status, 200, same.text);
        assert.equal(same.headers.get('etag'), readB.headers.get('etag'));
        // The tag is a hash of exactly the record the client received: nothing else goes in.
        for (const read of [readA, readB])
          assert.equal(
            read.headers.get('etag'),
            `"${createHash('sha1').update(JSON.stringify(read.body.data)).digest('base64url')}"`,
          );
        assert.equal(readA.body.data.secret, undefined);
        for (const tag of [readA.headers.get('etag')!, readB.headers.get('etag')!])
          for (const secret of ['alpha', 'beta', 'gamma', 'delta']) assert.ok(!tag.includes(secret));
        assert.deepEqual(errors, []);
      });

      it("derives a version model's ETag from its version, and refuses a stale version with 409 staleVersion", async () => {
        const created = await send('POST', '/members', { name: 'Ann' });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as string;
        assert.equal(created.body.data.rev, 0);
        assert.equal(created.headers.get('etag'), '"v0"');
        const first = await send('PATCH', `/members/${id}`, { name: 'Bea', rev: 0 });
        assert.equal(first.status, 200, first.text);
        assert.deepEqual([first.body.data.rev, first.headers.get('etag')], [1, '"v1"']);
        const second = await send('PATCH', `/members/${id}`, { name: 'Cid', rev: 0 });
        assert.equal(second.status, 409, second.text);
        assert.deepEqual([second.body.data[0].field, second.body.data[0].error], ['rev', 'staleVersion']);
        const row = (await Member.findByPk(id))!.get({ plain: true }) as Record<string, unknown>;
        assert.deepEqual([row['name'], row['rev']], ['Bea', 1]);
        // The body's version is compared, never written; a form's "1" is the integer 1.
        const form = await server.request('PATCH', `/members/${id}`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'name=Dee&rev=1',
        });
        assert.equal(form.status, 200, form.text);
        assert.equal(form.body.data.rev, 2);
        const without = await send('PATCH', `/members/${id}`, { name: 'Eve' });
        assert.deepEqual([without.status, without.body.data.rev], [200, 3]);
        assert.equal((await send('GET', `/members/${id}`, undefined, { 'if-none-match': '"v3"' })).status, 304);
        assert.equal((await send('PATCH', `/members/${id}`, { name: 'Fay' }, { 'if-match': '"v2"' })).status, 412);
        assert.equal((await send('PATCH', `/members/${id}`, { name: 'Fay' }, { 'if-match': '"v3"' })).status, 200);
        assert.deepEqual(errors, []);
      });

      it('checks If-Match on a record with a withheld value without withholding it from the write or noting it twice', async () => {
        const deep = { a: { b: { c: 1 } } };
        const note = await Note.create({ title: 'Deep', meta: deep });
        const id = note.get('id') as string;
        const read = await server.get(`/notes/${id}`);
        assert.deepEqual([read.body.data.meta, read.body.meta.withheld.length], [null, 1]);
        const patch = await send(
          'PATCH',
          `/notes/${id}`,
          { title: 'Deeper' },
          { 'if-match': read.headers.get('etag')! },
        );
        assert.equal(patch.status, 200, patch.text);
        assert.equal(patch.body.meta.withheld.length, 1);
        const row = (await Note.findByPk(id))!;
        assert.deepEqual([row.get('title'), row.get('meta')], ['Deeper', deep]);
        assert.deepEqual(errors, []);
      });
    });
  }
