/**
 * Full-text term search over HTTP (`search.fullText`), on every database and both forms: words found by their start in
 * the index fullTextIndex makes, hostile terms as plain words, the tenant scope and the trash still applied, writes
 * kept in step with the index, and what registration refuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { crud, fullTextIndex, resource, tenantScope, type ResourceSpec } from '../../lib/index.js';
import fc from 'fast-check';
import { termTextArb } from '../arbitraries/term-arb.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** `code` names a row in the assertions; only `title` and `body` are term fields. */
const ROWS = [
  { code: 1, tenant: 'a', title: 'Cast Iron Pan', body: 'Heavy skillet for searing' },
  { code: 2, tenant: 'a', title: 'Pancake Mixer', body: 'Whisk OR blend "quickly"' },
  { code: 3, tenant: 'a', title: 'Café crème', body: 'Über naïve résumé' },
  { code: 4, tenant: 'a', title: 'Wooden Train', body: "Kids' toy; NEAR(track) -rails" },
  { code: 5, tenant: 'b', title: 'Cast Iron Pan', body: 'Another tenant' },
  { code: 6, tenant: 'a', title: 'Cast away', body: null, deletedAt: new Date('2024-01-01T00:00:00Z') },
  { code: 7, tenant: 'a', title: null, body: 'Untitled pan notes' },
];

const spec: ResourceSpec<Model> = {
  policy: { fillable: ['title', 'body', 'code'] },
  search: { termFields: ['title', 'body'], fullText: true },
};

function defineArticle(sequelize: Sequelize, name: string, table: string): ModelStatic<Model> {
  return sequelize.define(
    name,
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      code: DataTypes.INTEGER,
      tenant: DataTypes.STRING(8),
      title: DataTypes.STRING(80),
      body: DataTypes.TEXT,
      deletedAt: DataTypes.DATE,
    },
    { tableName: table, underscored: true, timestamps: false },
  );
}

for (const db of databases)
  for (const form of FORMS) {
    describe(`full-text term search (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let Article: ModelStatic<Model>;
      const codes = async (term: string, tenant = 'a') => {
        const res = await server.request(
          'GET',
          `/articles?skipPagination=true&filter[term]=${encodeURIComponent(term)}`,
          {
            headers: { 'x-tenant': tenant },
          },
        );
        assert.equal(res.status, 200, `${JSON.stringify(term)}: ${res.text}`);
        return res.body.data.map((row: { code: number }) => row.code).sort((x: number, y: number) => x - y);
      };

      before(async () => {
        Article = defineArticle(db.sequelize!, `Fts${form.initial}Article`, `fts${form.initial}_articles`);
        await fullTextIndex(Article, ['title', 'body'])
          .down()
          .catch(() => undefined);
        await Article.sync({ force: true });
        await fullTextIndex(Article, ['title', 'body']).up();
        await Article.bulkCreate(ROWS);
        const router = new Router();
        const plugins = [tenantScope('tenant', (ctx) => ctx.get('x-tenant') || null)];
        form.register(router, 'articles', Article, spec, { plugins });
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      it('returns the rows having every word of the term, each as the start of a word of any term field', async () => {
        assert.deepEqual(await codes('pan'), [1, 2, 7]);
        assert.deepEqual(await codes('cast pan'), [1]);
        assert.deepEqual(await codes('SKILLET'), [1]);
        assert.deepEqual(await codes('iron skil'), [1]);
        assert.deepEqual(await codes('café'), [3]);
        assert.deepEqual(await codes('CAFÉ ÜBER'), [3]);
      });

      it('returns no row for words no row has', async () => {
        assert.deepEqual(await codes('zebra'), []);
        assert.deepEqual(await codes('pan zebra'), []);
      });

      it('reads a hostile term as plain words: no operator, quote or column syntax of any database', async () => {
        assert.deepEqual(await codes('"quickly"'), [2]);
        assert.deepEqual(await codes('-pan'), [1, 2, 7], 'a minus is no NOT');
        assert.deepEqual(await codes('pan*'), [1, 2, 7]);
        assert.deepEqual(await codes('cast OR zebra'), [], 'OR is no operator');
        assert.deepEqual(await codes('NEAR(track'), [4]);
        assert.deepEqual(await codes("kids'"), [4]);
        assert.deepEqual(await codes('title:pan'), [], 'no column filter');
        assert.deepEqual(await codes('^pan'), [1, 2, 7]);
        assert.deepEqual(await codes("'; DROP TABLE x; --"), []);
        for (const term of ['"', '*', '-', "'", '(', ':', '+', '@', '~<>'])
          assert.deepEqual(await codes(term), [], term);
      });

      it('answers 200 for any term a client could send, never with a row of another tenant or the trash (law)', async () => {
        await fc.assert(
          fc.asyncProperty(termTextArb, async (term) => {
            const found = await codes(term);
            assert.ok(
              found.every((code: number) => [1, 2, 3, 4, 7].includes(code)),
              `${JSON.stringify(term)}: ${found}`,
            );
          }),
          { numRuns: Number(process.env['FAST_CRUD_FUZZ_RUNS'] ?? 75) },
        );
      });

      it('keeps an empty term as it was: no condition', async () => {
        assert.deepEqual(await codes(''), [1, 2, 3, 4, 7]);
        assert.deepEqual(await codes('   '), [1, 2, 3, 4, 7]);
      });

      it('keeps the tenant scope and the trash out of the search', async () => {
        assert.deepEqual(await codes('cast'), [1], 'tenant b and the soft-deleted row are left out');
        assert.deepEqual(await codes('cast', 'b'), [5]);
      });

      it('ANDs the term with the other filters, and serves options and the export with it', async () => {
        const res = await server.request('GET', '/articles?skipPagination=true&filter[term]=pan&filter[code][lt]=3', {
          headers: { 'x-tenant': 'a' },
        });
        assert.deepEqual(res.body.data.map((row: { code: number }) => row.code).sort(), [1, 2]);
        const options = await server.request('GET', '/articles/options?label=title&value=code&filter[term]=cast', {
          headers: { 'x-tenant': 'a' },
        });
        assert.equal(options.status, 200, options.text);
        assert.deepEqual(options.body.data, [{ label: 'Cast Iron Pan', value: 1 }]);
        const csv = await server.request('GET', '/articles/export-csv?filter[term]=whisk', {
          headers: { 'x-tenant': 'a' },
        });
        assert.equal(csv.status, 200, csv.text);
        assert.match(csv.text, /Pancake Mixer/);
        assert.doesNotMatch(csv.text, /Cast Iron Pan/);
      });

      it('finds what create and update write, and no longer what they replaced or what delete removed', async () => {
        const headers = { 'x-tenant': 'a', 'content-type': 'application/json' };
        const created = await server.request('POST', '/articles', {
          headers,
          body: JSON.stringify({ code: 8, title: 'Zebra crossing', body: 'stripes' }),
        });
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(await codes('zebra'), [8]);
        const id = created.body.data.id as string;
        const updated = await server.request('PATCH', `/articles/${id}`, {
          headers,
          body: JSON.stringify({ title: 'Giraffe crossing' }),
        });
        assert.equal(updated.status, 200, updated.text);
        assert.deepEqual(await codes('zebra'), []);
        assert.deepEqual(await codes('giraffe stripes'), [8]);
        const deleted = await server.request('DELETE', `/articles/${id}`, { headers });
        assert.equal(deleted.status, 200, deleted.text);
        assert.deepEqual(await codes('giraffe'), []);
      });
    });
  }

describe('fullText registration', () => {
  const sqlite = databases.find((db) => db.dialect === 'sqlite')!;
  const Article = defineArticle(sqlite.sequelize!, 'FtsArticle', 'fts_articles');

  it('refuses a term field that is not text, one that is not filterable, none, and a language that is no name', () => {
    const register = (search: ResourceSpec<Model>['search'], filterable?: string[]) =>
      crud(
        new Router(),
        'articles',
        resource(Article, { policy: { fillable: 'all', ...(filterable && { filterable }) }, search }),
      );
    assert.throws(() => register({ termFields: ['title', 'code'], fullText: true }), /'?"code" is not text/);
    assert.throws(() => register({ termFields: ['title'], fullText: true }, ['code']), /"title" is not/);
    assert.throws(() => register({ fullText: true }), /needs termFields/);
    assert.throws(
      () => register({ termFields: ['title'], fullText: { language: "english'" } }),
      /is not a text search configuration name/,
    );
    assert.doesNotThrow(() => register({ termFields: ['title'], fullText: { language: 'english' } }));
    assert.doesNotThrow(() => register({ termFields: ['title', 'code'], fullText: false }));
  });

  it('fullTextIndex refuses a name that is not a column of the model', () => {
    assert.throws(() => fullTextIndex(Article, ['title', 'nope']), /"nope" is not a column of FtsArticle/);
  });
});

describe('full-text term search on SQLite over an INTEGER key', () => {
  it('keys the FTS5 rows by an INTEGER key column (its rowid), and finds them after a delete and VACUUM', async () => {
    const sqlite = databases.find((db) => db.dialect === 'sqlite')!;
    const Note = sqlite.sequelize!.define(
      'FtsNote',
      { id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true }, text: DataTypes.STRING },
      { tableName: 'fts_notes', timestamps: false },
    );
    await Note.sync({ force: true });
    const index = fullTextIndex(Note, ['text']);
    assert.match(index.statements.up[0]!, /content_rowid='id'/);
    await index.up();
    await Note.bulkCreate([
      { id: 10, text: 'alpha' },
      { id: 3, text: 'beta' },
      { id: 7, text: 'gamma alpha' },
    ]);
    await Note.destroy({ where: { id: 3 } });
    await sqlite.sequelize!.query('VACUUM');
    const router = new Router();
    crud(
      router,
      'notes',
      resource(Note, { policy: { fillable: 'all' }, search: { termFields: ['text'], fullText: true } }),
      { only: ['search'] },
    );
    const server = await serve(new Koa().use(router.routes()));
    try {
      const res = await server.get('/notes?filter[term]=alpha');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.data.map((row: { id: number }) => row.id),
        [7, 10],
      );
    } finally {
      await server.close();
    }
  });
});
