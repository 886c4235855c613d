// Issue #13 on #9 item 3: a burst of concurrent writes on one SQLite FILE (not :memory:) must leave no
// connection behind and the app answering. Counted two ways: Sequelize's SQLite connections (one per
// transaction, keyed by its id) and the process's file descriptors open on the database file.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model } from 'sequelize';
import sqlite3 from 'sqlite3';
import type { ResourceSpec } from '../../lib/index.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const BURST = 50;
const spec: ResourceSpec<Model> = { policy: { fillable: ['name', 'stock'] } };

/** The SQLite connections Sequelize holds open: the shared one and one per live transaction. */
function sqliteConnections(sequelize: Sequelize): string[] {
  return Object.keys((sequelize.connectionManager as unknown as { connections: Record<string, unknown> }).connections);
}

/** The files this process holds open on `file` (the database, its journal, its WAL), one entry per descriptor. */
function descriptorsOn(file: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(file))
    .sort();
}

/** The descriptors on `file` once the closes under way are done (node-sqlite3 closes asynchronously): polled for up to 2 s. */
async function settledDescriptorsOn(file: string, expected: readonly string[]): Promise<string[]> {
  for (let waited = 0; waited < 2000; waited += 20) {
    if (descriptorsOn(file).length <= expected.length) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return descriptorsOn(file);
}

/** The SQLite connections once the writes still running in the background have ended: polled for up to 30 s. */
async function settledConnections(sequelize: Sequelize, expected: readonly string[]): Promise<string[]> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    if (sqliteConnections(sequelize).length <= expected.length) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return sqliteConnections(sequelize);
}

for (const form of FORMS) {
  describe(`a burst of ${BURST} concurrent PATCHes on one SQLite file (${form.name} form)`, () => {
    const folder = mkdtempSync(join(tmpdir(), 'fast-crud-burst-'));
    const file = join(folder, 'burst.sqlite');
    const sequelize = new Sequelize({ dialect: 'sqlite', storage: file, logging: false });
    let server: TestServer;
    const errors: unknown[] = [];
    const ids: string[] = [];

    before(async () => {
      const Item = sequelize.define(
        'Item',
        {
          id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
          name: DataTypes.STRING(40),
          stock: DataTypes.INTEGER,
        },
        { tableName: 'items', timestamps: false },
      );
      await Item.sync({ force: true });
      for (const row of await Item.bulkCreate(Array.from({ length: 5 }, (_, i) => ({ name: `item ${i}`, stock: 0 }))))
        ids.push(row.get('id') as string);
      const router = new Router();
      form.register(router, 'items', Item, spec);
      server = await serve(new Koa().use(router.routes()), errors);
    });
    after(async () => {
      await server?.close();
      await sequelize.close();
      rmSync(folder, { recursive: true, force: true });
    });

    const patch = (id: string, body: object) =>
      server.request('PATCH', `/items/${id}`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('returns 200 to every write, leaves no connection or file descriptor open after the burst, and answers afterwards', async () => {
      await server.get('/items');
      const connections = sqliteConnections(sequelize);
      const descriptors = descriptorsOn(file);
      const replies = await Promise.all(
        Array.from({ length: BURST }, (_, i) => patch(ids[i % ids.length]!, { name: `burst ${i}`, stock: i })),
      );
      assert.deepEqual(
        replies.map((r) => r.status).filter((s) => s !== 200),
        [],
        JSON.stringify(replies.find((r) => r.status !== 200)?.body),
      );
      assert.deepEqual(sqliteConnections(sequelize), connections);
      assert.deepEqual(await settledDescriptorsOn(file, descriptors), descriptors);
      assert.equal((await server.get('/items')).status, 200);
      assert.equal((await patch(ids[0]!, { stock: 99 })).status, 200);
      assert.deepEqual(errors, []);
    });

    it('closes the connection of a write whose COMMIT fails (another process reading), and answers once the reader is gone', async () => {
      // Another connection in a read transaction holds a SHARED lock, so the write's COMMIT gets SQLITE_BUSY:
      // Sequelize gives up the transaction but leaves its SQLite connection open, holding its lock.
      const reader = new sqlite3.Database(file);
      const run = (sql: string) =>
        new Promise<void>((resolve, reject) => reader.all(sql, (error) => (error ? reject(error) : resolve())));
      await run('BEGIN');
      await run('SELECT * FROM items');
      const connections = sqliteConnections(sequelize);
      const descriptors = descriptorsOn(file);
      const failed = await Promise.all(Array.from({ length: 5 }, (_, i) => patch(ids[i]!, { stock: 1000 + i })));
      // SQLITE_BUSY past the busy timeout is an outage (503 databaseUnavailable, #12); the writes queued
      // behind it may pass global.timeout_ms first (503 databaseTimeout) and finish in the background.
      assert.deepEqual(
        failed.map((r) => r.status),
        [503, 503, 503, 503, 503],
      );
      assert.deepEqual(
        failed.filter((r) => !['databaseUnavailable', 'databaseTimeout'].includes(r.body.code)),
        [],
      );
      assert.deepEqual(await settledConnections(sequelize, connections), connections);
      await run('COMMIT');
      await new Promise<void>((resolve) => reader.close(() => resolve()));
      // SQLite keeps a closed connection's descriptor until no other connection of the process holds a lock on the file.
      assert.deepEqual(await settledDescriptorsOn(file, descriptors.slice(1)), descriptors.slice(1));
      assert.equal((await patch(ids[0]!, { stock: 7 })).status, 200);
      assert.equal((await server.get(`/items/${ids[0]}`)).body.data.stock, 7);
      assert.equal((await server.get(`/items/${ids[1]}`)).body.data.stock === 1001, false);
      errors.splice(0);
    });

    it('returns 200 to a burst of creates and mixed writes on the same row, with no connection left over', async () => {
      const connections = sqliteConnections(sequelize);
      const writes = Array.from({ length: BURST }, (_, i) =>
        i % 2 === 0
          ? server.request('POST', '/items', {
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ name: `new ${i}`, stock: i }),
            })
          : patch(ids[1]!, { stock: i }),
      );
      const statuses = (await Promise.all(writes)).map((r) => r.status);
      assert.deepEqual(
        statuses.filter((s) => s !== 200 && s !== 201),
        [],
      );
      assert.deepEqual(sqliteConnections(sequelize), connections);
      assert.deepEqual(await settledDescriptorsOn(file, [file]), [file]);
      assert.equal((await server.get('/items?perPage=100')).body.data.length, 5 + BURST / 2);
      assert.deepEqual(errors, []);
    });
  });
}
