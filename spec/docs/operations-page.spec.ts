/**
 * docs/guide/operations.md, "SQLite under concurrent writes": the settings it shows
 * (docs/examples/databases/sqlite.ts, which the demo opens its file with) are in effect, and a write
 * through koa-fast-crud waits out a lock another instance holds on the same file for longer than
 * SQLite's busy timeout, instead of failing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, QueryTypes, Transaction, type Sequelize } from 'sequelize';
import { crud, resource } from '../../lib/index.js';
import { openSqlite } from '../../docs/examples/databases/sqlite.js';
import { serve, type TestServer } from '../support/http.js';

const ID = '6d0c0f3e-2b9a-4c1e-9f57-3a1d2e4b5c6d';

describe('docs/guide/operations.md: SQLite under concurrent writes', () => {
  const folder = mkdtempSync(join(tmpdir(), 'fast-crud-opsdoc-'));
  const file = join(folder, 'shop.sqlite');
  let app: Sequelize;
  let other: Sequelize;
  let server: TestServer;
  const errors: unknown[] = [];

  before(async () => {
    app = await openSqlite(file);
    other = await openSqlite(file);
    const Item = app.define('Item', { id: { type: DataTypes.UUID, primaryKey: true }, stock: DataTypes.INTEGER }, { tableName: 'opsdoc_items', timestamps: false });
    await Item.sync({ force: true });
    await Item.create({ id: ID, stock: 0 });
    const router = new Router();
    crud(router, 'items', resource(Item, { policy: { fillable: ['stock'] } }));
    server = await serve(new Koa().use(router.routes()), errors);
  });
  after(async () => {
    await server?.close();
    await Promise.all([app?.close(), other?.close()]);
    rmSync(folder, { recursive: true, force: true });
  });

  it('shows the settings of docs/examples/databases/sqlite.ts on the page and in databases.md', () => {
    for (const page of ['docs/guide/operations.md', 'docs/guide/databases.md']) {
      assert.match(readFileSync(page, 'utf8'), /<<< @\/examples\/databases\/sqlite\.ts#sqlite/, page);
    }
  });

  it('opens the file in WAL mode, with IMMEDIATE transactions and SQLITE_BUSY retried', async () => {
    const [mode] = await app.query<{ journal_mode: string }>('PRAGMA journal_mode', { type: QueryTypes.SELECT });
    assert.equal(mode?.journal_mode, 'wal');
    const options = (app as unknown as { options: { transactionType?: string; retry?: { match?: unknown[] } } }).options;
    assert.equal(options.transactionType, Transaction.TYPES.IMMEDIATE);
    assert.ok(options.retry?.match?.some((m) => m instanceof RegExp && m.test('SQLITE_BUSY: database is locked')));
  });

  it('answers a write while another instance holds the write lock for longer than the busy timeout (1 s), once the lock is gone', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = other.transaction(async (transaction) => {
      await other.query('UPDATE opsdoc_items SET stock = stock + 100 WHERE id = :id', { transaction, replacements: { id: ID } });
      locked();
      await held;
    });
    await lockTaken;
    const write = server.request('PATCH', `/items/${ID}`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stock: 7 }) });
    setTimeout(release, 1500);
    const reply = await write;
    await holder;
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.data.stock, 7);
    assert.deepEqual(errors, []);
  });
});
