/**
 * docs/guide/errors.md and docs/guide/operations.md: the 503 a client gets when the database is
 * unavailable (here SQLite, locked by another connection past its busy timeout) and when a request
 * passes its deadline, `global.timeout_ms`. Runs top to bottom on import
 * (spec/docs/errors-page.spec.ts imports it); every reply shown is checked with assert.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import sqlite3 from 'sqlite3';
import { createFastCrud, resource } from 'koa-fast-crud';

const folder = mkdtempSync(join(tmpdir(), 'fast-crud-outage-'));
const file = join(folder, 'shop.sqlite');
// One retry instead of Sequelize's five, so the example does not wait long for the lock.
const sequelize = new Sequelize({ dialect: 'sqlite', storage: file, logging: false, retry: { max: 1 } });
const Product = sequelize.define('Product', {
  id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
  name: { type: DataTypes.STRING, allowNull: false },
});

// #region deadline
// Every request of every resource gets 2 s: waiting for a pool connection, the queries, the hooks.
const { crud } = createFastCrud({ config: { global: { timeout_ms: 2_000 } } });

const router = new Router();
crud(router, 'products', resource(Product, { policy: { fillable: ['name'] } }));
crud(router, 'reports', resource(Product, {
  policy: { fillable: [] },
  hooks: {
    // A search that waits on something slow, longer than its resource's deadline.
    modifySearchQuery: async () => void (await new Promise((resolve) => setTimeout(resolve, 500))),
  },
}), { config: { global: { timeout_ms: 100 } } });

const app = new Koa().use(router.routes());
const reported: Error[] = [];
app.on('error', (err: Error) => reported.push(err)); // 503s are reported too
// #endregion deadline

await sequelize.sync();
await sequelize.query('PRAGMA busy_timeout = 100');
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** GETs a path; resolves to the status, the Retry-After header and the parsed reply. */
async function get(path: string): Promise<[number, string | null, unknown]> {
  const res = await fetch(base + path);
  return [res.status, res.headers.get('Retry-After'), await res.json()];
}

// Another process holds the SQLite file's lock past the busy timeout.
const other = new sqlite3.Database(file);
const exec = (sql: string) => new Promise<void>((resolve, reject) => other.exec(sql, (err) => (err ? reject(err) : resolve())));

try {
  await exec('BEGIN EXCLUSIVE');
  // #region unavailable
  // The database cannot be reached or used (here: locked past its busy timeout).
  assert.deepEqual(await get('/products'), [
    503,
    '1',
    { status: 'error', code: 'databaseUnavailable', message: 'The database is unavailable' },
  ]);
  // #endregion unavailable
  assert.match(reported[0]!.message, /SQLITE_BUSY/);
  await exec('ROLLBACK');

  // #region timeout
  // The request passed its deadline (global.timeout_ms).
  assert.deepEqual(await get('/reports'), [
    503,
    '1',
    { status: 'error', code: 'databaseTimeout', message: 'The database did not answer in time' },
  ]);
  // #endregion timeout

  // #region retry
  // A client that honours Retry-After: wait, then try again (a few times at most, with jitter).
  async function getWithRetry(path: string, attempts = 3): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(base + path);
      if (res.status !== 503 || attempt === attempts) return res;
      const seconds = Number(res.headers.get('Retry-After') ?? '1');
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000 * (0.5 + Math.random())));
    }
  }
  // #endregion retry
  assert.equal((await getWithRetry('/products')).status, 200);
} finally {
  server.close();
  await new Promise((resolve) => other.close(resolve));
  await sequelize.close();
  rmSync(folder, { recursive: true, force: true });
}
