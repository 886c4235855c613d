/**
 * The change feed while the pool is busy, on PostgreSQL: a process whose every pool connection is taken (as by a
 * burst of writes queued behind each other) still hands out another process's events at once, because its feed reads
 * the outbox on the connection it listens on, not on one of the pool. Two Sequelize instances on one database stand
 * for the two processes (NOTIFY crosses instances as it crosses processes). PostgreSQL only: elsewhere the feed has no
 * connection of its own (MariaDB polls through the pool, SQLite hears only its own process's writes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { outboxModel } from '../../lib/execute/live-outbox.js';
import { testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { idsOf, openStream, type SseStream } from '../support/sse.js';

const probe = await testDatabases();
await Promise.all(probe.map((db) => db.sequelize?.close()));
const URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

function defineItem(sequelize: Sequelize, initial: string): ModelStatic<Model> {
  return sequelize.define(
    `lvk${initial}Item`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(60), allowNull: false },
    },
    { tableName: `lvk${initial}_items`, timestamps: false },
  );
}

/** One "process": a Sequelize instance with a pool of `max` connections, serving both forms live at `/<form>`. */
async function app(max: number): Promise<{ sequelize: Sequelize; server: TestServer }> {
  const sequelize = new Sequelize(URL, { logging: false, pool: { max, idle: 1000 } });
  const router = new Router();
  for (const form of FORMS)
    form.register(
      router,
      form.name,
      defineItem(sequelize, form.initial),
      { policy: { fillable: ['name'] }, live: true },
      { config: { global: { find_field_is_uuid: false } } },
    );
  return { sequelize, server: await serve(new Koa().use(router.routes())) };
}

describe(
  'the change feed with every pool connection taken, on postgres',
  {
    skip: probe.find((db) => db.dialect === 'postgres')?.skip,
  },
  () => {
    let listening: Awaited<ReturnType<typeof app>>, writing: Awaited<ReturnType<typeof app>>;
    const streams: SseStream[] = [];

    before(async () => {
      // Two connections: one the feed listens on, one the test takes.
      listening = await app(2);
      writing = await app(4);
      for (const form of FORMS) await defineItem(writing.sequelize, form.initial).sync({ force: true });
      await outboxModel(writing.sequelize).sync({ force: true });
    });
    after(async () => {
      for (const stream of streams) stream.close();
      for (const side of [listening, writing]) await side?.server.close();
      for (const side of [listening, writing]) await side?.sequelize.close();
    });

    for (const form of FORMS)
      it(`(${form.name} form) another process's write reaches a subscriber while its process's pool is busy`, async () => {
        const stream = await openStream(`${listening.server.url}/${form.name}/changes`);
        streams.push(stream);
        assert.equal(stream.status, 200, stream.text());
        // The pool's other connection, held as a long transaction would hold it: a read through the pool waits.
        const held = await listening.sequelize.transaction();
        try {
          const created = await writing.server.request('POST', `/${form.name}`, {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'while busy' }),
          });
          assert.equal(created.status, 201, created.text);
          const [event] = await stream.waitFor(1, 2000);
          assert.deepEqual([event!.event, idsOf(event!)], ['created', [String(created.body.data.id)]]);
        } finally {
          await held.rollback();
          stream.close();
        }
      });
  },
);
