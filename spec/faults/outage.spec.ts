// Issue #12 items 1 and 2: a TCP proxy of the test's own between the app and PostgreSQL or MariaDB.
// Cut, it makes the database unavailable: 503 databaseUnavailable with Retry-After. Restored, the
// app answers 200 again within 2 s. Slowed past global.timeout_ms, a request gets a 503
// databaseTimeout within the deadline + 1 s. The export answers 503 before its first byte and
// aborts the download after it. Over both forms.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { startProxy, type TcpProxy } from '../support/tcp-proxy.js';

const TIMEOUT_MS = 500;
const ROWS = 200;
const spec: ResourceSpec<Model> = { policy: { fillable: ['name'] } };
const databases = await testDatabases();
after(() => closeAll(databases));

/** The database URL with its host and port replaced by the proxy's. */
function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

const serverUrl = (dialect: 'postgres' | 'mariadb') =>
  dialect === 'postgres'
    ? (process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test')
    : (process.env['FAST_CRUD_MARIADB_URL'] ?? 'mariadb://root@127.0.0.1:3306/test');

/** Asks until the reply is a 200, for at most `ms`; the time it took, or Infinity. */
async function untilOk(server: TestServer, path: string, ms: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    const res = await server.get(path);
    if (res.status === 200) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}

const UNAVAILABLE = { status: 'error', code: 'databaseUnavailable', message: 'The database is unavailable' };
const TIMED_OUT = { status: 'error', code: 'databaseTimeout', message: 'The database did not answer in time' };

for (const db of databases) {
  if (db.dialect === 'sqlite') continue;
  for (const form of FORMS) {
    describe(`a database behind a TCP proxy (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const table = `flt${form.initial}_items`;
      let proxy: TcpProxy;
      let sequelize: Sequelize;
      let server: TestServer;
      const errors: unknown[] = [];
      let id = '';

      before(async () => {
        const { hostname, port } = new URL(serverUrl(db.dialect as 'postgres' | 'mariadb'));
        proxy = await startProxy(hostname, Number(port || (db.dialect === 'postgres' ? 5432 : 3306)));
        // A connect timeout well past any request's deadline here: a connection that one request began
        // through the slowed proxy must not fail into the next request's pool wait before that request's
        // deadline does (a 503 databaseUnavailable where the test asks databaseTimeout). Cut is a reset, not a wait.
        const dialectOptions = db.dialect === 'postgres' ? { connectionTimeoutMillis: 3000 } : { connectTimeout: 3000 };
        sequelize = new Sequelize(throughProxy(serverUrl(db.dialect as 'postgres' | 'mariadb'), proxy), {
          logging: false,
          pool: { max: 3 },
          dialectOptions,
        });
        const Item = sequelize.define(
          'Item',
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            name: DataTypes.STRING(40),
          },
          { tableName: table, timestamps: false },
        );
        await Item.sync({ force: true });
        const rows = await Item.bulkCreate(
          Array.from({ length: ROWS }, (_, i) => ({ name: `item ${String(i).padStart(3, '0')}` })),
        );
        id = rows[0]!.get('id') as string;
        const router = new Router();
        form.register(router, 'items', Item, spec, { config: { global: { timeout_ms: TIMEOUT_MS } } });
        // The export test slows the link for every batch, not past the deadline: a deadline of its own.
        form.register(router, 'patient-items', Item, spec, {
          config: { global: { timeout_ms: 10_000 }, export_csv: { batch_size: 5 } },
        });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(async () => {
        await server.close();
        await sequelize.close();
        await proxy.close();
      });

      it('answers 200 through the proxy', async () => {
        assert.equal((await server.get('/items')).status, 200);
      });

      it('answers a 503 databaseUnavailable with Retry-After to search, read, create and export when the proxy is cut, and reports each on the error event', async () => {
        proxy.cut();
        const reported = errors.length;
        const replies = [
          await server.get('/items'),
          await server.get(`/items/${id}`),
          await server.request('POST', '/items', {
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ name: 'new' }),
          }),
          await server.get('/items/export-csv'),
        ];
        for (const res of replies) {
          assert.equal(res.status, 503, res.text);
          assert.deepEqual(res.body, UNAVAILABLE);
          assert.equal(res.headers.get('retry-after'), '1');
          for (const leak of [String(proxy.port), '127.0.0.1', 'SELECT', 'INSERT', 'ECONN', 'at '])
            assert.ok(!res.text.includes(leak), `${res.text} leaks ${leak}`);
        }
        assert.equal(errors.length - reported, replies.length);
      });

      it('answers 200 again within 2 s of the proxy being restored', async () => {
        proxy.restore();
        const took = await untilOk(server, '/items', 2000);
        assert.ok(took < 2000, 'no 200 within 2 s');
        assert.equal((await server.get(`/items/${id}`)).status, 200);
      });

      it(`answers a 503 databaseTimeout within the deadline (${TIMEOUT_MS} ms) + 1 s when the database is slower than the deadline`, async () => {
        proxy.slow(TIMEOUT_MS * 3);
        try {
          for (const path of ['/items', `/items/${id}`]) {
            const start = Date.now();
            const res = await server.get(path);
            const took = Date.now() - start;
            assert.equal(res.status, 503, res.text);
            assert.deepEqual(res.body, TIMED_OUT);
            assert.equal(res.headers.get('retry-after'), '1');
            assert.ok(took < TIMEOUT_MS + 1000, `${path} took ${took} ms`);
          }
        } finally {
          proxy.restore();
        }
        assert.ok((await untilOk(server, '/items', 5000)) < 5000, 'the app recovers after the slow spell');
      });

      it('aborts an export whose database goes away after its first bytes, instead of ending a short CSV', async () => {
        proxy.slow(50);
        const res = await fetch(`${server.url}/patient-items/export-csv`);
        assert.equal(res.status, 200);
        const reader = res.body!.getReader();
        const first = await reader.read();
        assert.ok(!first.done && first.value.length > 0);
        proxy.cut();
        let text = new TextDecoder().decode(first.value);
        const outcome = await (async () => {
          for (;;) {
            const chunk = await reader.read();
            if (chunk.done) return 'ended';
            text += new TextDecoder().decode(chunk.value);
          }
        })().catch(() => 'aborted');
        assert.equal(
          outcome,
          'aborted',
          `the download ended normally with ${text.split('\n').length - 2} of ${ROWS} rows`,
        );
        proxy.restore();
        assert.ok((await untilOk(server, '/items', 5000)) < 5000);
      });

      it('gives every pool connection back: no query of a stopped request is left hanging', async () => {
        const pool = (sequelize.connectionManager as unknown as { pool: { using: number } }).pool;
        for (const start = Date.now(); pool.using > 0 && Date.now() - start < 5000;)
          await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(pool.using, 0);
      });
    });
  }
}
