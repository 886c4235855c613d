// Issue #12: a campaign of generated requests, hostile ones included, sent in concurrent batches to every
// action; none may answer 5xx or hang. Afterwards the pool is idle, no transaction is left open (PostgreSQL:
// pg_stat_activity 'idle in transaction'; MariaDB: information_schema.innodb_trx; SQLite, on a file: the
// transaction connections Sequelize holds) and a write completes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { QueryTypes, Sequelize } from 'sequelize';
import { bodyArb, queryStringArb } from '../arbitraries/request-arb.js';
import { defineCatalog, syncCatalog, type Catalog } from '../support/catalog.js';
import { closeAll, testDatabases, type TestDatabase } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

/** Requests per form and dialect: 2,000 in CI, 200 otherwise, or FAST_CRUD_CAMPAIGN_RUNS. */
const RUNS = Number(process.env['FAST_CRUD_CAMPAIGN_RUNS'] ?? (process.env['CI'] === 'true' ? 2000 : 200));
/** Requests sent at once: each fast-check run is one such batch. */
const BATCH = 32;
/** No reply within this long counts as a hang: a bound on stalls, not a speed check. */
const HANG_MS = 30_000;
/** Seed rows: the first half takes updates, soft deletes and restores, the second half hard deletes too. */
const SEEDS = 16;

// SQLite on a file, not in memory: in memory every transaction shares one connection, so there is nothing to count.
const folder = mkdtempSync(join(tmpdir(), 'fast-crud-campaign-'));
const databases: TestDatabase[] = (await testDatabases()).map((db) =>
  db.dialect === 'sqlite'
    ? {
        dialect: 'sqlite',
        sequelize: new Sequelize({ dialect: 'sqlite', storage: join(folder, 'campaign.sqlite'), logging: false }),
      }
    : db,
);
after(async () => {
  await closeAll(databases);
  rmSync(folder, { recursive: true, force: true });
});

/** One generated request; `create` bodies get a fresh sku when the request is sent, so most of them insert. */
type Planned =
  | { readonly kind: 'read'; readonly path: string; readonly query: string }
  | { readonly kind: 'create'; readonly body: unknown; readonly valid: boolean }
  | { readonly kind: 'update'; readonly method: 'PATCH' | 'PUT'; readonly row: number; readonly body: unknown }
  | { readonly kind: 'record'; readonly action: 'read' | 'softDelete' | 'restore' | 'delete'; readonly row: number };

const plannedArb: fc.Arbitrary<Planned> = fc.oneof(
  fc.record({
    kind: fc.constant('read' as const),
    path: fc.constantFrom('', '/export-csv', '/options'),
    query: queryStringArb,
  }),
  fc.record({ kind: fc.constant('create' as const), body: bodyArb, valid: fc.boolean() }),
  fc.record({
    kind: fc.constant('update' as const),
    method: fc.constantFrom('PATCH' as const, 'PUT' as const),
    row: fc.nat(SEEDS / 2 - 1),
    body: bodyArb,
  }),
  fc.record({
    kind: fc.constant('record' as const),
    action: fc.constantFrom('read' as const, 'softDelete' as const, 'restore' as const, 'delete' as const),
    row: fc.nat(SEEDS - 1),
  }),
);

/** Sequelize's pool of a server database (sequelize-pool), with the connections it holds. */
interface Pool {
  readonly using: number;
  readonly waiting: number;
  readonly _availableObjects: { resource: unknown }[];
  readonly _inUseObjects: { resource: unknown }[];
}

/** The transactions still open on the connections of `sequelize`'s pool, as the server sees them. */
async function openTransactions(db: TestDatabase): Promise<number> {
  const sequelize = db.sequelize!;
  if (db.dialect === 'sqlite') {
    const connections = (sequelize.connectionManager as unknown as { connections: Record<string, unknown> })
      .connections;
    return Object.keys(connections).filter((key) => key !== 'default').length;
  }
  const pool = (sequelize.connectionManager as unknown as { pool: Pool }).pool;
  const resources = [...pool._availableObjects, ...pool._inUseObjects].map(
    (o) => o.resource as { processID?: number; threadId?: number },
  );
  if (db.dialect === 'postgres') {
    const pids = resources.map((c) => c.processID).filter((pid): pid is number => typeof pid === 'number');
    const [row] = await sequelize.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid IN (:pids) AND state LIKE 'idle in transaction%'",
      { type: QueryTypes.SELECT, replacements: { pids: pids.length > 0 ? pids : [0] } },
    );
    return row!.n;
  }
  const threads = resources.map((c) => c.threadId).filter((id): id is number => typeof id === 'number');
  const [row] = await sequelize.query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM information_schema.innodb_trx WHERE trx_mysql_thread_id IN (:threads)',
    {
      type: QueryTypes.SELECT,
      replacements: { threads: threads.length > 0 ? threads : [0] },
    },
  );
  return Number(row!.n);
}

/** The pool's connections in use and requests waiting for one; SQLite has no pool (0, 0). */
function poolUse(db: TestDatabase): { using: number; waiting: number } {
  if (db.dialect === 'sqlite') return { using: 0, waiting: 0 };
  const { using, waiting } = (db.sequelize!.connectionManager as unknown as { pool: Pool }).pool;
  return { using, waiting };
}

for (const db of databases)
  for (const form of FORMS) {
    describe(
      `a campaign of ${RUNS} generated requests in batches of ${BATCH} (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        let server: TestServer;
        let catalog: Catalog;
        const ids: string[] = [];
        const errors: unknown[] = [];
        let created = 0;

        before(async () => {
          catalog = defineCatalog(db.sequelize!, `cmp${form.initial}`);
          await syncCatalog(catalog);
          const rows = await catalog.Product.bulkCreate(
            Array.from({ length: SEEDS }, (_, i) => ({ sku: `SEED-${i}`, name: `seed ${i}`, price: i, tags: ['a'] })),
          );
          ids.push(...rows.map((row) => row.get('id') as string));
          const router = new Router();
          form.register(router, 'products', catalog.Product, {
            policy: { fillable: 'all', hidden: ['secret'] },
            search: { termFields: ['name'] },
            relations: { category: { include: true } },
          });
          server = await serve(new Koa().use(router.routes()), errors);
        });
        after(() => server?.close());

        /** The request as sent, and its reply or why there was none. */
        const send = async (
          planned: Planned,
        ): Promise<{ what: string; status?: number; text?: string; failure?: string }> => {
          const json = (body: unknown) => ({
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const isObject = (body: unknown): body is object =>
            typeof body === 'object' && body !== null && !Array.isArray(body);
          const [method, path, init] = ((): [string, string, RequestInit] => {
            switch (planned.kind) {
              case 'read':
                return ['GET', `/products${planned.path}?${planned.query}`, {}];
              case 'create':
                return [
                  'POST',
                  '/products',
                  json(
                    planned.valid && isObject(planned.body)
                      ? { ...planned.body, sku: `C-${created++}`, name: 'made', price: 1 }
                      : planned.body,
                  ),
                ];
              case 'update':
                return [planned.method, `/products/${ids[planned.row]}`, json(planned.body)];
              case 'record': {
                const id = ids[planned.row];
                if (planned.action === 'read') return ['GET', `/products/${id}`, {}];
                if (planned.action === 'softDelete') return ['DELETE', `/products/${id}/soft`, {}];
                if (planned.action === 'restore') return ['PATCH', `/products/${id}/restore`, {}];
                return ['DELETE', `/products/${ids[SEEDS / 2 + (planned.row % (SEEDS / 2))]}`, {}];
              }
            }
          })();
          const what = `${method} ${path} ${typeof init.body === 'string' ? init.body.slice(0, 300) : ''}`;
          try {
            const response = await fetch(server.url + path, { ...init, method, signal: AbortSignal.timeout(HANG_MS) });
            return { what, status: response.status, text: (await response.text()).slice(0, 300) };
          } catch (cause) {
            return { what, failure: (cause as Error).message };
          }
        };

        it('answers every request with neither a 5xx nor a hang, then leaves the pool idle, no transaction open, and takes a write', async () => {
          await fc.assert(
            fc.asyncProperty(fc.array(plannedArb, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
              errors.length = 0;
              const outcomes = await Promise.all(batch.map(send));
              const bad = outcomes.filter((o) => o.failure !== undefined || o.status! >= 500);
              assert.deepEqual(
                bad,
                [],
                `${bad.length} of ${BATCH} requests hung or answered 5xx\n${errors.map(String).join('\n')}`,
              );
              assert.deepEqual(errors.map(String), []);
            }),
            { numRuns: Math.ceil(RUNS / BATCH) },
          );

          // An export's snapshot transaction ends just after its last byte: wait (bounded) for the pool to settle.
          for (let waited = 0; waited < 5000 && poolUse(db).using > 0; waited += 50)
            await new Promise((resolve) => setTimeout(resolve, 50));
          assert.deepEqual(poolUse(db), { using: 0, waiting: 0 });
          assert.equal(await openTransactions(db), 0);
          const write = await send({ kind: 'create', valid: true, body: { stock: 777 } });
          assert.equal(write.status, 201, write.failure ?? write.text);
          assert.equal(await catalog.Product.count({ where: { stock: 777 } }), 1);
          assert.equal(await openTransactions(db), 0);
        });
      },
    );
  }
