import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, QueryTypes, type Model, type Sequelize } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Docs with a JSON column and a plain deleted-at column; exts found by a text column holding UUIDs. Tables start with `prefix` (`rlc`, `rlr`). */
function defineModels(sequelize: Sequelize, prefix: string) {
  const Doc = sequelize.define(
    `${prefix}Doc`,
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      name: { type: DataTypes.STRING(60), allowNull: true },
      meta: { type: DataTypes.JSON, allowNull: true },
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${prefix}_docs`, timestamps: false },
  );
  const Ext = sequelize.define(
    `${prefix}Ext`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      ref: { type: DataTypes.STRING(36), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(60), allowNull: true },
      deleted_at: { type: DataTypes.DATE, allowNull: true },
      doc_id: { type: DataTypes.UUID, allowNull: true },
    },
    { tableName: `${prefix}_exts`, timestamps: false },
  );
  Ext.belongsTo(Doc, { as: 'doc', foreignKey: 'doc_id', constraints: false });
  return { Doc, Ext };
}

const docSpec: ResourceSpec<Model> = { policy: { fillable: ['name', 'meta'] } };
const extSpec: ResourceSpec<Model> = {
  policy: { fillable: ['ref', 'name'] },
  relations: { doc: { include: true } },
} as ResourceSpec<Model>;
const json = { 'content-type': 'application/json' };
const formType = { 'content-type': 'application/x-www-form-urlencoded' };
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const failures = (body: { data: { field: string | null; error: string }[] }) =>
  body.data.map((i) => [i.field, i.error]);

for (const db of databases)
  for (const form of FORMS) {
    describe(`request limits (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `rl${form.initial}`;
      const sequelize = db.sequelize!;
      let server: TestServer;
      let callback: () => ReturnType<Koa['callback']>;
      const errors: unknown[] = [];
      const ids: string[] = [];

      before(async () => {
        const { Doc, Ext } = defineModels(sequelize, prefix);
        await Doc.sync({ force: true });
        await Ext.sync({ force: true });
        for (const name of ['Alpha', 'Beta', 'Gamma', 'Delta'])
          ids.push(((await Doc.create({ name, meta: { tags: [name] } })) as unknown as { id: string }).id);
        const router = new Router();
        form.register(router, 'docs', Doc, docSpec);
        form.register(router, 'shallow', Doc, docSpec, { config: { global: { max_depth: 2 } } });
        form.register(router, 'capped', Doc, docSpec, { config: { search: { max_unpaginated: 3 } } });
        form.register(router, 'full', Doc, docSpec, { config: { search: { max_unpaginated: 4 } } });
        form.register(router, 'exts', Ext, extSpec, { config: { global: { find_field: 'ref' } } });
        form.register(router, 'shallow-exts', Ext, extSpec, {
          config: { global: { find_field: 'ref', max_depth: 2 } },
        });
        const app = new Koa().use(router.routes()).use(router.allowedMethods());
        server = await serve(app, errors);
        callback = () => app.callback();
      });
      after(() => server?.close());

      it('returns 400 tooDeep naming the field for a body nested deeper than global.max_depth (POST, PATCH, PUT, a form), and stores nothing', async () => {
        for (const depth of [65, 3000, 6000]) {
          const created = await server.request('POST', '/docs', {
            headers: json,
            body: `{"name":"Deep","meta":${nested(depth)}}`,
          });
          assert.deepEqual([created.status, failures(created.body)], [400, [['meta', 'tooDeep']]], String(depth));
          for (const method of ['PATCH', 'PUT']) {
            const updated = await server.request(method, `/docs/${ids[0]}`, {
              headers: json,
              body: `{"meta":{"a":${nested(depth)}}}`,
            });
            assert.deepEqual(
              [updated.status, failures(updated.body)],
              [400, [['meta', 'tooDeep']]],
              `${method} ${depth}`,
            );
          }
        }
        const array = await server.request('POST', '/docs', { headers: json, body: nested(3000) });
        assert.deepEqual([array.status, failures(array.body)], [400, [['body', 'tooDeep']]]);
        const formBody = await server.request('POST', '/shallow', {
          headers: formType,
          body: 'name=Deep&meta[a][b][c]=1',
        });
        assert.deepEqual([formBody.status, failures(formBody.body)], [400, [['meta', 'tooDeep']]]);
        const within = await server.request('POST', '/shallow', { headers: formType, body: 'name=Shallow&meta[a]=1' });
        assert.equal(within.status, 201);
        await sequelize.query(`DELETE FROM ${prefix}_docs WHERE name = 'Shallow'`);
        assert.deepEqual(
          await sequelize.query(`SELECT id FROM ${prefix}_docs WHERE name = 'Deep'`, { type: 'SELECT' }),
          [],
        );
      });

      it('returns 201 for a body as deep as the database stores (20 levels)', async () => {
        const created = await server.request('POST', '/docs', {
          headers: json,
          body: `{"name":"Twenty","meta":${nested(20)}}`,
        });
        assert.equal(created.status, 201);
        assert.equal(JSON.stringify(created.body.data.meta), nested(20));
        await sequelize.query(`DELETE FROM ${prefix}_docs WHERE name = 'Twenty'`);
      });

      it("answers a body within global.max_depth that the database's own JSON check refuses (MariaDB: over 32 levels) with 400 naming the field", async () => {
        const created = await server.request('POST', '/docs', {
          headers: json,
          body: `{"name":"Forty","meta":${nested(40)}}`,
        });
        if (db.dialect === 'mariadb')
          assert.deepEqual([created.status, failures(created.body)], [400, [['meta', 'invalidValue']]]);
        else assert.equal(created.status, 201, JSON.stringify(created.body));
        await sequelize.query(`DELETE FROM ${prefix}_docs WHERE name = 'Forty'`);
      });

      it('returns 400 tooDeep for a json filter value nested deeper than global.max_depth', async () => {
        const res = await server.get(`/docs?filter[meta][json]=${encodeURIComponent(nested(100))}`);
        assert.deepEqual([res.status, failures(res.body)], [400, [['meta', 'tooDeep']]]);
        const nul = await server.get(`/docs?filter[meta][json]=${encodeURIComponent('{"a":"\\u0000"}')}`);
        assert.deepEqual([nul.status, failures(nul.body)], [400, [['meta', 'invalidValue']]]);
      });

      it('keeps answering search, read, options and export when a stored JSON value is nested deeper than the limit, withholding that value', async () => {
        // MariaDB's JSON check refuses more than 32 levels, so there the poison is 10 levels under a limit of 2.
        const [uri, depth] = db.dialect === 'mariadb' ? ['shallow', 10] : ['docs', 5000];
        const id = randomUUID();
        const ref = randomUUID();
        await sequelize.query(`INSERT INTO ${prefix}_docs (id, name, meta) VALUES (:id, 'Poison', :meta)`, {
          replacements: { id, meta: nested(depth) },
        });
        try {
          const search = await server.get(`/${uri}?sort=name`);
          assert.equal(search.status, 200);
          const row = search.body.data.find((r: { id: string }) => r.id === id);
          assert.equal(row.meta, null);
          assert.deepEqual(
            search.body.meta.withheld.map((w: { id: string; field: string }) => [w.id, w.field]),
            [[id, 'meta']],
          );
          assert.deepEqual(search.body.data.find((r: { name: string }) => r.name === 'Alpha').meta, {
            tags: ['Alpha'],
          });
          const read = await server.get(`/${uri}/${id}`);
          assert.deepEqual([read.status, read.body.data.meta, read.body.meta.withheld.length], [200, null, 1]);
          const other = await server.get(`/${uri}/${ids[1]}`);
          assert.deepEqual([other.status, other.body.meta], [200, {}]);
          assert.equal((await server.get(`/${uri}/options?label=name`)).status, 200);
          const csv = await server.get(`/${uri}/export-csv`);
          assert.equal(csv.status, 200);
          assert.match(csv.text, /Poison/);
          // Included with another resource's row, the poison is withheld there too, named by its path.
          const extUri = uri === 'docs' ? 'exts' : 'shallow-exts';
          await sequelize.query(`INSERT INTO ${prefix}_exts (ref, name, doc_id) VALUES (:ref, 'Linked', :id)`, {
            replacements: { ref, id },
          });
          const linked = await server.get(`/${extUri}?include=doc&filter[ref]=${ref}`);
          assert.deepEqual(
            [linked.status, linked.body.data[0]?.doc?.name, linked.body.data[0]?.doc?.meta],
            [200, 'Poison', null],
          );
          assert.deepEqual(
            linked.body.meta.withheld.map((w: { id: string; field: string }) => [w.id, w.field]),
            [[id, 'doc.meta']],
          );
          const linkedRead = await server.get(`/${extUri}/${ref}?include=doc`);
          assert.deepEqual(
            [linkedRead.status, linkedRead.body.data.doc?.meta, linkedRead.body.meta.withheld?.length],
            [200, null, 1],
          );
          const repaired = await server.request('PATCH', `/${uri}/${id}`, {
            headers: json,
            body: '{"meta":{"fixed":true}}',
          });
          assert.deepEqual([repaired.status, repaired.body.data.meta, repaired.body.meta], [200, { fixed: true }, {}]);
        } finally {
          await sequelize.query(`DELETE FROM ${prefix}_exts WHERE ref = :ref`, { replacements: { ref } });
          await sequelize.query(`DELETE FROM ${prefix}_docs WHERE id = :id`, { replacements: { id } });
        }
      });

      it("answers options whose value column holds a stored JSON value deeper than the limit, withholding it (SQLite reads the column's text)", async () => {
        const [uri, depth] = db.dialect === 'mariadb' ? ['shallow', 10] : ['docs', 5000];
        const id = randomUUID();
        await sequelize.query(`INSERT INTO ${prefix}_docs (id, name, meta) VALUES (:id, 'Poison', :meta)`, {
          replacements: { id, meta: nested(depth) },
        });
        try {
          const res = await server.get(`/${uri}/options?label=name&value=meta`);
          assert.equal(res.status, 200, res.text);
          const poison = res.body.data.findIndex((item: { label: string }) => item.label === 'Poison');
          const alpha = res.body.data.find((item: { label: string }) => item.label === 'Alpha');
          if (db.dialect === 'sqlite') {
            assert.deepEqual(
              [res.body.data[poison].value, alpha.value, res.body.meta],
              [nested(depth), '{"tags":["Alpha"]}', {}],
            );
          } else {
            assert.deepEqual([res.body.data[poison].value, alpha.value], [null, { tags: ['Alpha'] }]);
            assert.deepEqual(
              res.body.meta.withheld.map((w: { id: unknown; item: number; field: string }) => [w.id, w.item, w.field]),
              [[null, poison, 'meta']],
            );
            assert.match(res.body.meta.withheld[0].message, /meta .*global\.max_depth.*withheld/);
          }
          const byId = await server.get(`/${uri}/options?label=name`);
          assert.deepEqual([byId.status, byId.body.meta], [200, {}]);
        } finally {
          await sequelize.query(`DELETE FROM ${prefix}_docs WHERE id = :id`, { replacements: { id } });
        }
      });

      it("answers a json filter over a stored value SQLite's JSON functions cannot read (over 1,000 levels) with a fail naming the filter; elsewhere the filter runs", async () => {
        // MariaDB stores at most 32 levels, PostgreSQL any depth; SQLite's json_each and json_extract stop at 1,000.
        const depth = db.dialect === 'mariadb' ? 30 : 1500;
        const id = randomUUID();
        await sequelize.query(`INSERT INTO ${prefix}_docs (id, name, meta) VALUES (:id, 'Poison', :meta)`, {
          replacements: { id, meta: nested(depth) },
        });
        try {
          const filter = `filter[meta][json]=${encodeURIComponent('{"tags":["Alpha"]}')}`;
          for (const path of [`/docs?${filter}`, `/docs/export-csv?${filter}`]) {
            const res = await server.get(path);
            if (db.dialect === 'sqlite') {
              assert.deepEqual([res.status, failures(res.body)], [400, [['meta', 'tooDeep']]], path);
              assert.match(res.body.data[0].message, /filter\[meta\]\[json\] cannot run.*1,000 levels/);
            } else {
              assert.equal(res.status, 200, `${path}: ${res.text}`);
              assert.match(res.text, /Alpha/);
              assert.doesNotMatch(res.text, /Poison|Beta/);
            }
          }
          const other = await server.get('/docs?filter[name]=Alpha');
          assert.equal(other.status, 200);
        } finally {
          await sequelize.query(`DELETE FROM ${prefix}_docs WHERE id = :id`, { replacements: { id } });
        }
      });

      it('returns 400 invalidValue naming the field for a NUL character anywhere in a body (POST, PUT, PATCH, a form)', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ name: 'a\u0000b' }, 'name'],
          [{ meta: { x: ['a\u0000'] } }, 'meta'],
          [{ meta: { 'k\u0000': 1 } }, 'meta'],
        ];
        for (const [body, field] of cases) {
          const created = await server.request('POST', '/docs', { headers: json, body: JSON.stringify(body) });
          assert.deepEqual(
            [created.status, failures(created.body)],
            [400, [[field, 'invalidValue']]],
            JSON.stringify(body),
          );
          for (const method of ['PUT', 'PATCH']) {
            const updated = await server.request(method, `/docs/${ids[0]}`, {
              headers: json,
              body: JSON.stringify(body),
            });
            assert.deepEqual(
              [updated.status, failures(updated.body)],
              [400, [[field, 'invalidValue']]],
              `${method} ${JSON.stringify(body)}`,
            );
          }
        }
        const formBody = await server.request('POST', '/docs', { headers: formType, body: 'name=a%00b' });
        assert.deepEqual([formBody.status, failures(formBody.body)], [400, [['name', 'invalidValue']]]);
      });

      it('finds a record by an upper-case UUID on every {id} route, in a UUID column and in a text column', async () => {
        const created = await server.request('POST', '/docs', { headers: json, body: '{"name":"Upper"}' });
        const upper = String(created.body.data.id).toUpperCase();
        const steps: [string, string, number][] = [
          ['GET', '', 200],
          ['PUT', '', 200],
          ['PATCH', '', 200],
          ['POST', '', 200],
          ['DELETE', '/soft', 200],
          ['PATCH', '/restore', 200],
          ['DELETE', '/soft', 200],
          ['PUT', '/restore', 200],
          ['DELETE', '', 200],
        ];
        for (const [method, suffix, status] of steps) {
          const res = await server.request(
            method,
            `/docs/${upper}${suffix}`,
            method === 'GET' || method === 'DELETE' || suffix !== ''
              ? {}
              : { headers: json, body: '{"name":"Upper 2"}' },
          );
          assert.equal(res.status, status, `${method} ${suffix}`);
        }
        const ref = randomUUID();
        assert.equal(
          (await server.request('POST', '/exts', { headers: json, body: JSON.stringify({ ref, name: 'Ext' }) })).status,
          201,
        );
        assert.equal((await server.get(`/exts/${ref.toUpperCase()}`)).body.data.ref, ref);
        assert.equal((await server.request('DELETE', `/exts/${ref.toUpperCase()}/soft`)).status, 200);
        assert.equal((await server.request('PATCH', `/exts/${ref.toUpperCase()}/restore`)).status, 200);
        const upperRef = randomUUID().toUpperCase();
        assert.equal(
          (
            await server.request('POST', '/exts', {
              headers: json,
              body: JSON.stringify({ ref: upperRef, name: 'Upper ext' }),
            })
          ).status,
          201,
        );
        assert.equal((await server.get(`/exts/${upperRef.toLowerCase()}`)).body.data.ref, upperRef);
      });

      it('returns a JSend 414 uriTooLong for a URL longer than global.max_url_length, and through a server whose maxHeaderSize lets 40,000 characters in', async () => {
        const long = await server.get(`/docs?filter[name]=${'x'.repeat(9000)}`);
        assert.deepEqual([long.status, failures(long.body)], [414, [['url', 'uriTooLong']]]);
        const big = createServer({ maxHeaderSize: 65_536 }, callback());
        await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
        try {
          const response = await fetch(
            `http://127.0.0.1:${(big.address() as AddressInfo).port}/docs?filter[name]=${'x'.repeat(40_000)}`,
          );
          const body = (await response.json()) as { status: string; data: { field: string; error: string }[] };
          assert.deepEqual([response.status, body.status, failures(body)], [414, 'fail', [['url', 'uriTooLong']]]);
        } finally {
          await new Promise((resolve) => {
            big.close(resolve);
            big.closeAllConnections();
          });
        }
      });

      it('returns 400 tooManyRows for skipPagination=true or options over search.max_unpaginated, and the rows within it', async () => {
        const over = await server.get('/capped?skipPagination=true');
        assert.deepEqual([over.status, failures(over.body)], [400, [['skipPagination', 'tooManyRows']]]);
        assert.match(over.body.data[0].message, /paginate/);
        const narrowed = await server.get('/capped?skipPagination=true&filter[name][in]=Alpha,Beta,Gamma');
        assert.deepEqual([narrowed.status, narrowed.body.data.length], [200, 3]);
        assert.equal((await server.get('/capped?perPage=2')).status, 200);
        const options = await server.get('/capped/options?label=name');
        assert.deepEqual([options.status, failures(options.body)], [400, [[null, 'tooManyRows']]]);
        assert.equal((await server.get('/docs/options?label=name')).status, 200);
        assert.equal((await server.get('/docs?skipPagination=true')).status, 200);
      });

      it('answers options of exactly search.max_unpaginated items, kept within it by the rowid span then the sorted select on SQLite, by one row past the cap elsewhere', async () => {
        const statements: string[] = [];
        const options = (sequelize as unknown as { options: { logging: unknown } }).options;
        const logging = options.logging;
        options.logging = (sql: string) => statements.push(sql);
        try {
          const full = await server.get('/full/options?label=name');
          assert.deepEqual(
            [full.status, full.body.data.map((item: { label: string }) => item.label)],
            [200, ['Alpha', 'Beta', 'Delta', 'Gamma']],
          );
        } finally {
          options.logging = logging;
        }
        const selects = statements.filter((sql) => /\bSELECT\b/i.test(sql) && /rl._docs/.test(sql));
        // SQLite's bounded sorter makes any LIMIT on the sorted select dearer than a count and the whole sort; the rowid span (4 rows, ids 1 to 4) spares the count.
        if (db.dialect === 'sqlite')
          assert.deepEqual(
            selects.map((sql) => [/rowid/i.test(sql), /count\(\*\)/i.test(sql), /LIMIT/i.test(sql)]),
            [
              [true, false, false],
              [false, false, false],
            ],
          );
        else
          assert.deepEqual(
            selects.map((sql) => [/count\(\*\)/i.test(sql), /LIMIT 5\b/i.test(sql)]),
            [[false, true]],
          );
      });

      it("answers SQLite options within the cap by the table's rowid span, a count when the span is wider, and the count alone for a view; elsewhere by one row past the cap", async () => {
        const Span = sequelize.define(
          `${prefix}Span`,
          { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(20) },
          { tableName: `${prefix}_spans`, timestamps: false },
        );
        await Span.sync({ force: true });
        await sequelize.query(`DROP VIEW IF EXISTS ${prefix}_span_view`);
        await sequelize.query(`CREATE VIEW ${prefix}_span_view AS SELECT id, name FROM ${prefix}_spans`);
        const View = sequelize.define(
          `${prefix}SpanView`,
          { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(20) },
          { tableName: `${prefix}_span_view`, timestamps: false },
        );
        const router = new Router();
        const spanConfig = { config: { search: { max_unpaginated: 3 }, global: { find_field_is_uuid: false } } };
        form.register(router, 'spans', Span, { policy: { fillable: ['name'] } }, spanConfig);
        form.register(router, 'span-view', View, { policy: { fillable: ['name'] } }, spanConfig);
        const spans = await serve(new Koa().use(router.routes()), errors);
        const options = (sequelize as unknown as { options: { logging: unknown } }).options;
        const logging = options.logging;
        // What each request runs: [rowid span, count, select] as each is seen.
        let statements: string[] = [];
        const ask = async (path: string) => {
          statements = [];
          options.logging = (sql: string) => statements.push(sql);
          try {
            const reply = await spans.get(path);
            const runs = statements.filter((sql) => /\bSELECT\b/i.test(sql) && sql.includes(`${prefix}_span`));
            return [
              reply.status,
              reply.status === 200 ? reply.body.data.length : failures(reply.body),
              ['rowid', 'count(*)', 'ORDER BY'].map((part) => runs.some((sql) => sql.includes(part))),
            ];
          } finally {
            options.logging = logging;
          }
        };
        // PostgreSQL and MariaDB keep the select's LIMIT cap + 1 and run it alone.
        const sqlite = db.dialect === 'sqlite';
        const runs = (span: boolean, count: boolean, select: boolean) =>
          sqlite ? [span, count, select] : [false, false, true];
        try {
          await Span.bulkCreate([1, 2, 3].map((id) => ({ id, name: `n${id}` })));
          assert.deepEqual(await ask('/spans/options?label=name'), [200, 3, runs(true, false, true)]);
          if (sqlite) {
            // The span is two seeks: no step of its plan scans the table.
            const span = statements.find((sql) => sql.includes('rowid'))!.replace(/^Executing \([^)]*\): /, '');
            const plan = (await sequelize.query(`EXPLAIN QUERY PLAN ${span}`, { type: QueryTypes.SELECT })) as {
              detail: string;
            }[];
            assert.deepEqual(
              plan
                .map((step) => step.detail)
                .filter((detail) => /^SCAN\b/.test(detail) && detail !== 'SCAN CONSTANT ROW'),
              [],
            );
            assert.ok(
              plan.some((step) => /^SEARCH\b/.test(step.detail)),
              JSON.stringify(plan),
            );
          }
          await Span.destroy({ where: { id: 2 } });
          await Span.create({ id: 10, name: 'n10' });
          assert.deepEqual(await ask('/spans/options?label=name'), [200, 3, runs(true, true, true)]);
          await Span.create({ id: 11, name: 'n11' });
          assert.deepEqual(await ask('/spans/options?label=name'), [
            400,
            [[null, 'tooManyRows']],
            runs(true, true, false),
          ]);
          await Span.destroy({ where: { id: 11 } });
          // A view has no rowid: the count decides, and after the first request the span is not asked again.
          assert.deepEqual((await ask('/span-view/options?label=name')).slice(0, 2), [200, 3]);
          assert.deepEqual(await ask('/span-view/options?label=name'), [200, 3, runs(false, true, true)]);
        } finally {
          spans.close();
          await sequelize.query(`DROP VIEW IF EXISTS ${prefix}_span_view`);
        }
      });

      it('leaves no server fault behind', () => {
        assert.deepEqual(errors, []);
      });
    });
  }
