// The 304 path and the 200 path give one tag for one state (issue #23, "the 304's cost"): for any record and any page
// of records (fast-check), a read and a search answer 200 with an ETag; the same request with that ETag in
// If-None-Match answers 304, with no body and the same ETag; with any other tag it answers the 200 again, body and ETag
// unchanged; the tag in a list and `*` are 304s too, and `If-Match` of the 200's strong tag is that 200 again (a weak
// tag or another tag a 412). After a write the old tag is a 200 with the new tag, never a 304. On each database, in both forms
// (`efp*` tables).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import fc from 'fast-check';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Values every database stores and gives back as sent: no float rounding, text within the column. */
const record = fc.record({
  title: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')),
  pages: fc.option(fc.integer({ min: -1_000_000, max: 1_000_000 }), { nil: null }),
  secret: fc.option(
    fc.string({ maxLength: 20 }).filter((s) => !s.includes('\u0000')),
    { nil: null },
  ),
});

for (const db of databases)
  for (const form of FORMS) {
    describe(`the 304 and the 200 give one ETag (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `efp${form.initial}`;
      let server: TestServer;
      let Book: ModelStatic<Model>;
      before(async () => {
        Book = db.sequelize!.define(
          `${prefix}Book`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            title: { type: DataTypes.STRING(60), allowNull: false },
            pages: { type: DataTypes.INTEGER, allowNull: true },
            secret: { type: DataTypes.STRING(60), allowNull: true },
          },
          { tableName: `${prefix}_books`, timestamps: false },
        );
        await Book.sync({ force: true });
        const router = new Router();
        form.register(router, 'books', Book, {
          actions: ['search', 'read', 'update'],
          policy: { fillable: ['title', 'pages', 'secret'], hidden: ['secret'] },
        });
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      const get = (path: string, tag?: string) =>
        server.request('GET', path, tag === undefined ? {} : { headers: { 'if-none-match': tag } });

      /** The 200 of `path`, then the same request with its tag (304) and with another tag (200, the same reply). */
      async function samePaths(path: string): Promise<string> {
        const full = await get(path);
        assert.equal(full.status, 200, full.text);
        const tag = full.headers.get('etag');
        assert.ok(tag !== null, `${path}: no ETag`);
        const cached = await get(path, tag);
        assert.deepEqual([cached.status, cached.headers.get('etag'), cached.text], [304, tag, '']);
        const other = await get(path, tag.startsWith('W/') ? '"another"' : 'W/"another"');
        assert.deepEqual([other.status, other.headers.get('etag'), other.text], [200, tag, full.text]);
        // The tag among others, and `*`, are 304s with the same tag too.
        for (const list of [`"another", ${tag}`, '*']) {
          const listed = await get(path, list);
          assert.deepEqual([listed.status, listed.headers.get('etag'), listed.text], [304, tag, ''], list);
        }
        // If-Match compares strongly: the 200's own strong tag is the 200 again; a weak one, or another, a 412.
        const ifMatch = (value: string) => server.request('GET', path, { headers: { 'if-match': value } });
        const own = await ifMatch(tag);
        if (tag.startsWith('W/')) assert.equal(own.status, 412, own.text);
        else assert.deepEqual([own.status, own.headers.get('etag'), own.text], [200, tag, full.text]);
        assert.equal((await ifMatch('"another"')).status, 412);
        return tag;
      }

      it('a read: 304 exactly for the tag the 200 sends, for any record; a write makes the old tag a 200', async () => {
        await fc.assert(
          fc.asyncProperty(record, record, async (first, second) => {
            const row = await Book.create(first);
            const path = `/books/${String(row.get('id'))}`;
            const tag = await samePaths(path);
            const changed = await server.request('PATCH', path, {
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(second),
            });
            assert.equal(changed.status, 200, changed.text);
            const shown = (value: typeof first) => ({ title: value.title, pages: value.pages });
            const same = JSON.stringify(shown(first)) === JSON.stringify(shown(second));
            const after = await get(path, tag);
            // Only what the client sees makes the tag: a change of the hidden secret alone keeps it (304).
            assert.equal(after.status, same ? 304 : 200);
            if (!same) assert.notEqual(await samePaths(path), tag);
          }),
          { numRuns: 12 },
        );
      });

      it('a search page: 304 exactly for the weak tag the 200 sends, for any rows', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(record, { maxLength: 6 }), async (rows) => {
            await Book.destroy({ where: {} });
            await Book.bulkCreate(rows);
            const path = '/books?sort=title,id&perPage=4';
            const tag = await samePaths(path);
            assert.match(tag, /^W\/"/);
            await Book.create({ title: 'one more' });
            assert.equal((await get(path, tag)).status, 200, 'the count changed, so the page and its tag did');
          }),
          { numRuns: 10 },
        );
      });
    });
  }
