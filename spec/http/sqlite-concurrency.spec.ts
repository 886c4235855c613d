// Issue #12 item 3: 64 concurrent clients mixing every write action (create, update, delete, softDelete,
// restore) and reads on ONE SQLite file get no 5xx and no hang, in the default rollback-journal mode and in
// WAL; afterwards no transaction connection is left open and a write goes through.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { Sequelize } from 'sequelize';
import { defineCatalog, syncCatalog, type Catalog } from '../support/catalog.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const CLIENTS = 64;
const REQUESTS_PER_CLIENT = 5;
/** No reply within this long counts as a hang: a bound on stalls, far above any healthy reply, not a speed check. */
const HANG_MS = 30_000;

/** The SQLite connections Sequelize holds open: the shared one and one per live transaction. */
function sqliteConnections(sequelize: Sequelize): string[] {
  return Object.keys((sequelize.connectionManager as unknown as { connections: Record<string, unknown> }).connections);
}

/** A reply, or what went wrong instead of one. */
interface Outcome {
  readonly what: string;
  readonly status?: number;
  readonly text?: string;
  readonly failure?: string;
}

for (const journal of ['delete', 'wal'] as const)
  for (const form of FORMS) {
    describe(`${CLIENTS} concurrent clients mixing every write on one SQLite file, journal_mode=${journal} (${form.name} form)`, () => {
      const folder = mkdtempSync(join(tmpdir(), 'fast-crud-mix-'));
      const sequelize = new Sequelize({ dialect: 'sqlite', storage: join(folder, 'mix.sqlite'), logging: false });
      let server: TestServer;
      let catalog: Catalog;
      const errors: unknown[] = [];
      const ids: string[] = [];

      before(async () => {
        if (journal === 'wal') await sequelize.query('PRAGMA journal_mode = WAL');
        catalog = defineCatalog(sequelize, `scc${form.initial}`);
        await syncCatalog(catalog);
        const rows = await catalog.Product.bulkCreate(
          Array.from({ length: 16 }, (_, i) => ({ sku: `S-${i}`, name: `seed ${i}`, price: i })),
        );
        ids.push(...rows.map((row) => row.get('id') as string));
        const router = new Router();
        form.register(router, 'products', catalog.Product, { policy: { fillable: ['sku', 'name', 'price', 'stock'] } });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(async () => {
        await server?.close();
        await sequelize.close();
        rmSync(folder, { recursive: true, force: true });
      });

      /** One request with a hang bound: a reply, or the failure (a timeout is a hang). */
      const send = async (method: string, path: string, body?: object): Promise<Outcome> => {
        const what = `${method} ${path}`;
        try {
          const init =
            body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
          const response = await fetch(server.url + path, { ...init, method, signal: AbortSignal.timeout(HANG_MS) });
          return { what, status: response.status, text: await response.text() };
        } catch (cause) {
          return { what, failure: (cause as Error).message };
        }
      };

      /** Request `n` of client `c`: every write action in turn, reads in between, on the row `c % 4`, which 15 other clients share, so writes race. */
      const request = (c: number, n: number): Promise<Outcome> => {
        const id = ids[c % 4]!;
        switch ((c + n) % 8) {
          case 0:
            return send('POST', '/products', { sku: `C${c}-${n}`, name: `client ${c}`, price: n });
          case 1:
            return send('PATCH', `/products/${id}`, { stock: c * 100 + n });
          case 2:
            return send('DELETE', `/products/${id}/soft`);
          case 3:
            return send('PATCH', `/products/${id}/restore`);
          case 4:
            return send('PUT', `/products/${id}`, { name: `put ${c}-${n}` });
          case 5:
            return send('GET', `/products?sort=-price&perPage=5`);
          case 6:
            return send('GET', `/products/${id}`);
          default: {
            // A delete of a row this client created, racing the others' updates and soft deletes.
            return send('POST', '/products', { sku: `D${c}-${n}`, name: 'doomed', price: 1 }).then(async (created) => {
              const createdId =
                created.status === 201 ? (JSON.parse(created.text!) as { data: { id: string } }).data.id : undefined;
              if (createdId === undefined) return created;
              await send('PATCH', `/products/${createdId}`, { price: 2 });
              return send('DELETE', `/products/${createdId}`);
            });
          }
        }
      };

      it('answers every request with no 5xx and no hang, leaves no transaction connection open, and a write completes afterwards', async () => {
        await server.get('/products');
        const idle = sqliteConnections(sequelize);
        const outcomes = (
          await Promise.all(
            Array.from({ length: CLIENTS }, async (_, c) => {
              const mine: Outcome[] = [];
              for (let n = 0; n < REQUESTS_PER_CLIENT; n++) mine.push(await request(c, n));
              return mine;
            }),
          )
        ).flat();
        const hangs = outcomes.filter((o) => o.failure !== undefined);
        const faults = outcomes.filter((o) => (o.status ?? 0) >= 500);
        assert.deepEqual(hangs, [], `${hangs.length} requests got no reply within ${HANG_MS} ms`);
        assert.deepEqual(faults, [], `${faults.length} requests answered 5xx`);
        assert.deepEqual(errors.map(String), []);
        // Every write action really ran, not only 404s and 409s.
        const succeeded = new Set(
          outcomes
            .filter((o) => o.status! < 300)
            .map((o) => o.what.split(' ')[0] + (o.what.match(/\/(soft|restore)$/)?.[0] ?? '')),
        );
        for (const action of ['POST', 'PATCH', 'PUT', 'DELETE', 'DELETE/soft', 'PATCH/restore', 'GET'])
          assert.ok(succeeded.has(action), `no ${action} succeeded`);

        assert.deepEqual(sqliteConnections(sequelize), idle);
        const write = await send('PATCH', `/products/${ids[5]}`, { stock: 4242 });
        assert.equal(write.status, 200, write.failure ?? write.text);
        assert.equal((await catalog.Product.findByPk(ids[5]))?.get('stock'), 4242);
        assert.deepEqual(sqliteConnections(sequelize), idle);
      });
    });
  }
