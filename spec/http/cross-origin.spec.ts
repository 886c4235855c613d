/**
 * Cross-site requests and CORS over HTTP: a browser's unsafe request from an origin the app does not
 * trust is a 403 `crossOrigin` and changes nothing; non-browser clients and the app's own origin are
 * served as before; `cors.origins` lets an origin through and answers its CORS replies and preflights.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model } from 'sequelize';
import { notFound, type ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const spec: ResourceSpec<Model> = { policy: { fillable: ['name'] } };
const TRUSTED = 'https://admin.example.com';
const EVIL = 'https://evil.example';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_BODY = { 'content-type': 'application/json' };

for (const db of databases)
  for (const form of FORMS) {
    describe(`cross-origin requests (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `xo${form.initial}`;
      let Item: ReturnType<NonNullable<typeof db.sequelize>['define']>;
      let plain: TestServer;
      let trusting: TestServer;
      const errors: unknown[] = [];

      before(async () => {
        Item = db.sequelize!.define(
          `${prefix}Item`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            name: DataTypes.STRING(40),
            deleted_at: DataTypes.DATE,
          },
          { tableName: `${prefix}_items`, timestamps: false },
        );
        await Item.sync({ force: true });
        const app = (options: Parameters<typeof form.register>[4]) => {
          const router = new Router({ prefix: '/api' });
          form.register(router, 'items', Item, spec, options);
          return new Koa().use(router.routes()).use(router.allowedMethods()).use(notFound());
        };
        plain = await serve(app({}), errors);
        trusting = await serve(app({ config: { cors: { origins: [TRUSTED], credentials: true } } }), errors);
      });
      after(async () => {
        await plain?.close();
        await trusting?.close();
      });

      const names = async () => (await Item.findAll({ order: [['name', 'ASC']] })).map((row) => row.get('name'));
      const refusal = (field: string) => ({ field, error: 'crossOrigin' });
      const failItem = (body: { status: string; data: { field: string; error: string }[] }) => ({
        status: body.status,
        field: body.data[0]?.field,
        error: body.data[0]?.error,
      });

      it('refuses a cross-site form POST with a 403 crossOrigin naming Sec-Fetch-Site, and creates nothing', async () => {
        await Item.destroy({ where: {} });
        const res = await plain.request('POST', '/api/items', {
          headers: { ...FORM, origin: EVIL, 'sec-fetch-site': 'cross-site' },
          body: 'name=forged',
        });
        assert.equal(res.status, 403);
        assert.deepEqual(failItem(res.body), { status: 'fail', ...refusal('sec-fetch-site') });
        assert.match(res.body.data[0].message, /cross-site/);
        const sameSite = await plain.request('POST', '/api/items', {
          headers: { ...JSON_BODY, origin: EVIL, 'sec-fetch-site': 'same-site' },
          body: '{"name":"sibling"}',
        });
        assert.deepEqual([sameSite.status, sameSite.body.data[0].error], [403, 'crossOrigin']);
        assert.deepEqual(await names(), []);
      });

      it('refuses an untrusted Origin without Sec-Fetch-Site (an older browser), naming origin', async () => {
        const res = await plain.request('POST', '/api/items', {
          headers: { ...FORM, origin: EVIL },
          body: 'name=forged',
        });
        assert.equal(res.status, 403);
        assert.deepEqual(failItem(res.body), { status: 'fail', ...refusal('origin') });
        assert.deepEqual(await names(), []);
      });

      it('refuses every unsafe route from an untrusted origin and leaves the record as it was', async () => {
        const row = await Item.create({ name: 'kept' });
        const id = row.get('id') as string;
        const headers = { ...JSON_BODY, origin: EVIL, 'sec-fetch-site': 'cross-site' };
        for (const [method, path] of [
          ['PUT', `/api/items/${id}`],
          ['PATCH', `/api/items/${id}`],
          ['POST', `/api/items/${id}`],
          ['DELETE', `/api/items/${id}`],
          ['DELETE', `/api/items/${id}/soft`],
          ['PATCH', `/api/items/${id}/restore`],
          ['PUT', `/api/items/${id}/restore`],
        ] as const) {
          const res = await plain.request(method, path, {
            headers,
            body: method === 'DELETE' ? undefined : '{"name":"changed"}',
          });
          assert.deepEqual([res.status, res.body?.data?.[0]?.error], [403, 'crossOrigin'], `${method} ${path}`);
        }
        const after = await Item.findByPk(id);
        assert.deepEqual([after?.get('name'), after?.get('deleted_at')], ['kept', null]);
        await Item.destroy({ where: {} });
      });

      it('serves requests without either header (curl), same-origin and typed ones, and an Origin naming the host', async () => {
        const post = (name: string, headers: Record<string, string>) =>
          plain.request('POST', '/api/items', {
            headers: { ...JSON_BODY, ...headers },
            body: JSON.stringify({ name }),
          });
        assert.equal((await post('curl', {})).status, 201);
        assert.equal((await post('same', { origin: plain.url, 'sec-fetch-site': 'same-origin' })).status, 201);
        assert.equal((await post('typed', { 'sec-fetch-site': 'none' })).status, 201);
        assert.equal((await post('host', { origin: plain.url })).status, 201);
        assert.deepEqual(await names(), ['curl', 'host', 'same', 'typed']);
      });

      it('serves a cross-site GET (a safe method) without CORS headers while no origin is trusted', async () => {
        const res = await plain.request('GET', '/api/items', {
          headers: { origin: EVIL, 'sec-fetch-site': 'cross-site' },
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('access-control-allow-origin'), null);
        assert.equal(res.headers.get('vary'), null);
      });

      it("serves a trusted origin's cross-site writes, form and JSON, with its CORS headers", async () => {
        await Item.destroy({ where: {} });
        const formPost = await trusting.request('POST', '/api/items', {
          headers: { ...FORM, origin: TRUSTED, 'sec-fetch-site': 'cross-site' },
          body: 'name=admin',
        });
        assert.equal(formPost.status, 201);
        assert.equal(formPost.headers.get('access-control-allow-origin'), TRUSTED);
        assert.equal(formPost.headers.get('access-control-allow-credentials'), 'true');
        assert.match(formPost.headers.get('access-control-expose-headers') ?? '', /\bLocation\b/);
        assert.match(formPost.headers.get('vary') ?? '', /\bOrigin\b/);
        const patch = await trusting.request('PATCH', `/api/items/${formPost.body.data.id}`, {
          headers: { ...JSON_BODY, origin: TRUSTED, 'sec-fetch-site': 'cross-site' },
          body: '{"name":"renamed"}',
        });
        assert.deepEqual([patch.status, patch.headers.get('access-control-allow-origin')], [200, TRUSTED]);
        assert.deepEqual(await names(), ['renamed']);
        const refused = await trusting.request('POST', '/api/items', {
          headers: { ...FORM, origin: EVIL, 'sec-fetch-site': 'cross-site' },
          body: 'name=forged',
        });
        assert.deepEqual([refused.status, refused.headers.get('access-control-allow-origin')], [403, null]);
        assert.deepEqual(await names(), ['renamed']);
      });

      it("answers a trusted origin's reads and fails with CORS headers, another origin's with Vary only", async () => {
        const read = await trusting.request('GET', '/api/items', { headers: { origin: TRUSTED } });
        assert.deepEqual([read.status, read.headers.get('access-control-allow-origin')], [200, TRUSTED]);
        const bad = await trusting.request('GET', '/api/items?sort=nope', { headers: { origin: TRUSTED } });
        assert.deepEqual([bad.status, bad.headers.get('access-control-allow-origin')], [400, TRUSTED]);
        const other = await trusting.request('GET', '/api/items', { headers: { origin: EVIL } });
        assert.deepEqual(
          [other.status, other.headers.get('access-control-allow-origin'), other.headers.get('vary')],
          [200, null, 'Origin'],
        );
      });

      it("answers a trusted origin's preflight with 204 and the path's methods, and leaves any other OPTIONS to allowedMethods", async () => {
        const id = '00000000-0000-4000-8000-000000000000';
        const preflight = (origin: string) =>
          trusting.request('OPTIONS', `/api/items/${id}`, {
            headers: {
              origin,
              'access-control-request-method': 'PATCH',
              'access-control-request-headers': 'content-type',
            },
          });
        const ok = await preflight(TRUSTED);
        assert.equal(ok.status, 204);
        assert.equal(ok.headers.get('access-control-allow-origin'), TRUSTED);
        assert.deepEqual(ok.headers.get('access-control-allow-methods')?.split(', ').sort(), [
          'DELETE',
          'GET',
          'PATCH',
          'POST',
          'PUT',
        ]);
        assert.equal(ok.headers.get('access-control-allow-headers'), 'content-type');
        assert.equal(ok.headers.get('access-control-max-age'), '600');
        assert.equal(ok.headers.get('access-control-allow-credentials'), 'true');
        assert.match(ok.headers.get('vary') ?? '', /\bOrigin\b/);
        const other = await preflight(EVIL);
        assert.deepEqual([other.status, other.headers.get('access-control-allow-origin')], [200, null]);
        assert.ok(other.headers.get('allow')?.includes('PATCH'));
        const bare = await trusting.request('OPTIONS', '/api/items');
        assert.deepEqual(
          [bare.status, bare.headers.get('allow')?.split(', ').sort()],
          [200, ['GET', 'HEAD', 'OPTIONS', 'POST']],
        );
        const untrusting = await plain.request('OPTIONS', `/api/items/${id}`, {
          headers: { origin: TRUSTED, 'access-control-request-method': 'PATCH' },
        });
        assert.deepEqual([untrusting.status, untrusting.headers.get('access-control-allow-origin')], [200, null]);
      });

      it('answers a method the path does not have with a JSend 405, in an app that trusts origins too', async () => {
        const res = await trusting.request('DELETE', '/api/items');
        assert.equal(res.status, 405);
        assert.deepEqual(res.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'OPTIONS', 'POST']);
        assert.equal(res.body.data[0].error, 'methodNotAllowed');
      });

      it('leaves no server fault behind', () => {
        assert.deepEqual(errors, []);
      });
    });
  }
