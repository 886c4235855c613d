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
const MISSING = '00000000-0000-4000-8000-000000000000';

for (const db of databases)
  for (const form of FORMS) {
    describe(`notFound() after the routers (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `nf${form.initial}`;
      let server: TestServer;
      let bare: TestServer;
      const errors: unknown[] = [];

      before(async () => {
        const Item = db.sequelize!.define(
          `${prefix}Item`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            name: DataTypes.STRING(40),
          },
          { tableName: `${prefix}_items`, timestamps: false },
        );
        await Item.sync({ force: true });
        const router = new Router({ prefix: '/api' });
        form.register(router, 'items', Item, spec);
        const later = new Router();
        later.get('/health', (ctx) => {
          ctx.body = 'ok';
        });
        server = await serve(
          new Koa().use(router.routes()).use(router.allowedMethods()).use(notFound()).use(later.routes()),
          errors,
        );
        bare = await serve(new Koa().use(router.routes()).use(notFound()));
      });
      after(async () => {
        await server?.close();
        await bare?.close();
      });

      const routeNotFound = (method: string, path: string) => ({
        status: 'fail',
        data: [{ field: null, error: 'routeNotFound', message: `No route matches ${method} ${path}` }],
        meta: {},
      });

      it('returns a JSend 404 routeNotFound for a non-UUID id and for a path no route serves', async () => {
        for (const [method, path] of [
          ['GET', '/api/items/42'],
          ['PATCH', '/api/items/not-a-uuid'],
          ['DELETE', '/api/items/42/soft'],
          ['GET', '/nowhere'],
          ['POST', '/api/itemz'],
        ] as const) {
          const res = await server.request(
            method,
            path,
            method === 'PATCH' || method === 'POST'
              ? { headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }
              : {},
          );
          assert.equal(res.status, 404, `${method} ${path}`);
          assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
          assert.deepEqual(res.body, routeNotFound(method, path));
        }
      });

      it("returns the action's own 404 recordNotFound for a UUID that finds no record, untouched", async () => {
        const res = await server.get(`/api/items/${MISSING}`);
        assert.equal(res.status, 404);
        assert.equal(res.body.data[0].error, 'recordNotFound');
      });

      it('returns a JSend 405 methodNotAllowed with Allow for a path served with other methods', async () => {
        for (const [method, path, allow] of [
          ['DELETE', '/api/items', ['GET', 'HEAD', 'POST']],
          ['GET', `/api/items/${MISSING}/soft`, ['DELETE']],
        ] as const) {
          const wrong = await server.request(method, path);
          assert.equal(wrong.status, 405, `${method} ${path}`);
          assert.deepEqual(wrong.headers.get('allow')?.split(', ').sort(), allow);
          assert.match(wrong.headers.get('content-type') ?? '', /^application\/json/);
          assert.deepEqual(wrong.body, {
            status: 'fail',
            data: [
              {
                field: null,
                error: 'methodNotAllowed',
                message: `${path} does not answer ${method}; it answers ${wrong.headers.get('allow')}`,
              },
            ],
            meta: {},
          });
        }
      });

      it('returns 501 for an unknown method and 200 for OPTIONS: allowedMethods still answers', async () => {
        const unknown = await server.request('PROPFIND', '/api/items');
        assert.equal(unknown.status, 501);
        assert.equal(unknown.body, undefined);
        const options = await server.request('OPTIONS', '/api/items');
        assert.equal(options.status, 200);
        assert.ok(options.headers.get('allow')?.includes('POST'));
      });

      it("returns what a later middleware answers, and the routes' replies, unchanged", async () => {
        assert.deepEqual([(await server.get('/health')).status, (await server.get('/health')).text], [200, 'ok']);
        const list = await server.get('/api/items');
        assert.deepEqual([list.status, list.body.status], [200, 'success']);
      });

      it('returns a JSend 404 and 405 without allowedMethods too', async () => {
        assert.deepEqual((await bare.get('/api/items/42')).body, routeNotFound('GET', '/api/items/42'));
        const wrong = await bare.request('DELETE', '/api/items');
        assert.deepEqual(
          [wrong.status, wrong.body.data[0].error, wrong.headers.get('allow')?.split(', ').sort()],
          [405, 'methodNotAllowed', ['GET', 'HEAD', 'POST']],
        );
      });

      it('leaves no server fault behind', () => {
        assert.deepEqual(errors, []);
      });
    });
  }
