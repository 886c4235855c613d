/**
 * Issue 21 item 2: a search's page and its count read one state. Writers insert and delete rows
 * without pause while searches run on every read path (the driver connection, the fast executor
 * through sequelize.query, the public executor, model instances); every reply's rows must be exactly
 * what its count leaves past the offset: `rows = clamp(count − offset, 0, perPage)`. SQLite on a file
 * of its own (an in-memory database has one connection, where no other can commit in between),
 * PostgreSQL and MariaDB. Tables: `pc<form>_*`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { observeExecution } from '../../lib/execute/state.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const folder = mkdtempSync(join(tmpdir(), 'fast-crud-page-count-'));
const servers = (await testDatabases()).filter((db) => db.dialect !== 'sqlite');
const file = new Sequelize({ dialect: 'sqlite', storage: join(folder, 'pc.sqlite'), logging: false });
const databases = [{ dialect: 'sqlite' as const, sequelize: file, skip: undefined }, ...servers];
after(async () => {
  await closeAll(servers);
  await file.close();
  rmSync(folder, { recursive: true, force: true });
});

const PATHS = ['driver', 'fast', 'public', 'instance'] as const;
const SEARCHES = Number(process.env['FAST_CRUD_PAGE_COUNT_RUNS'] ?? 60);
const PER_PAGE = 3;

/** The contradictions among replies: rows that are not what the count leaves past the offset. */
export function contradictions(replies: readonly { page: number; rows: number; count: number }[]): string[] {
  return replies
    .filter(({ page, rows, count }) => rows !== Math.max(0, Math.min(PER_PAGE, count - (page - 1) * PER_PAGE)))
    .map(({ page, rows, count }) => `page ${page}: rows=${rows}, count=${count}`);
}

for (const db of databases)
  for (const form of FORMS)
    describe(`a search's page and count read one state (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      const sequelize = db.sequelize!;
      const Event = sequelize.define(
        `Pc${form.initial}Event`,
        { id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true }, n: DataTypes.INTEGER },
        { tableName: `pc${form.initial}_events`, timestamps: false },
      );

      before(async () => {
        await Event.sync({ force: true });
        await Event.bulkCreate(Array.from({ length: 4 }, (_, n) => ({ n })));
        observeExecution(sequelize, {
          force: (ctx) => {
            const path = (ctx as Context).get('x-path');
            return path === 'driver' || path === '' ? undefined : (path as 'fast' | 'public' | 'instance');
          },
        });
        const router = new Router();
        form.register(router, 'events', Event, { policy: { sortable: ['n'] } } as never, { only: ['search'] });
        server = await serve(new Koa().use(router.routes()));
        await server.get('/events');
      });
      after(() => server?.close());

      for (const path of PATHS)
        it(`${path}: every reply's rows are what its count leaves past the offset, while rows come and go`, async () => {
          let writing = true;
          const writer = async () => {
            while (writing) {
              const created = await Event.create({ n: 1 });
              await Event.destroy({ where: { id: created.get('id') as number } });
            }
          };
          const writers = [writer(), writer()];
          const replies: { page: number; rows: number; count: number }[] = [];
          try {
            const search = async (i: number) => {
              const page = (i % 3) + 1;
              const reply = await server.request('GET', `/events?sort=n&perPage=${PER_PAGE}&page=${page}`, {
                headers: { 'x-path': path },
              });
              assert.equal(reply.status, 200, reply.text);
              const { count } = reply.body.meta.pagination as { count: number };
              replies.push({ page, rows: (reply.body.data as unknown[]).length, count });
            };
            for (let i = 0; i < SEARCHES; i += 4) await Promise.all([0, 1, 2, 3].map((j) => search(i + j)));
          } finally {
            writing = false;
            await Promise.all(writers);
          }
          assert.deepEqual(contradictions(replies), []);
        });
    });
