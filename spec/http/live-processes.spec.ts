/**
 * The change feed across processes: a subscriber of one app process receives the writes made through another, on
 * one PostgreSQL database (announced with LISTEN/NOTIFY, well within the feed's seldom poll) and on one MariaDB
 * database (polled every `live.poll_ms`); and resumes on the other process from the first one's event id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Sequelize } from 'sequelize';
import { connect, defineLiveItem, json, startApp, type AppProcess } from '../support/app-process.js';
import { testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { idsOf, openStream, type SseStream } from '../support/sse.js';
import { outboxModel } from '../../lib/execute/live-outbox.js';

const probe = await testDatabases();
await Promise.all(probe.map((db) => db.sequelize?.close()));

const URLS = {
  postgres: process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
  mariadb: process.env['FAST_CRUD_MARIADB_URL'] ?? 'mariadb://root@127.0.0.1:3306/test',
} as const;

/** Ports 18800–18803: two per database. */
const PORT = 18800;

(['postgres', 'mariadb'] as const).forEach((dialect, index) => {
  const skip = probe.find((db) => db.dialect === dialect)?.skip;
  describe(`the change feed across two app processes on one ${dialect} database`, { skip }, () => {
    let sequelize: Sequelize;
    let a: AppProcess, b: AppProcess;
    const streams: SseStream[] = [];

    before(async () => {
      sequelize = connect({ url: URLS[dialect] }, 'lvSuite');
      for (const form of FORMS) await defineLiveItem(sequelize, form).sync({ force: true });
      await outboxModel(sequelize).sync({ force: true });
      [a, b] = await Promise.all([
        startApp({ url: URLS[dialect] }, PORT + 2 * index, 'lvA'),
        startApp({ url: URLS[dialect] }, PORT + 2 * index + 1, 'lvB'),
      ]);
    });
    after(async () => {
      for (const stream of streams) stream.close();
      await Promise.all([a?.stop(), b?.stop()]);
      await sequelize?.close();
    });

    for (const form of FORMS) {
      const base = `/${form.name}/live`;
      it(`(${form.name} form) a subscriber of A receives B's writes, in order, and resumes on B`, async () => {
        const onA = await openStream(`${a.url}${base}/changes`);
        streams.push(onA);
        assert.equal(onA.status, 200);
        // Let A's feed listen before B writes.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const started = Date.now();
        const created = await b.request('POST', base, json({ name: 'from B' }));
        assert.equal(created.status, 201, created.text);
        const [first] = await onA.waitFor(1, 5000);
        const latency = Date.now() - started;
        const id = String(created.body.data.id);
        assert.deepEqual([first!.event, idsOf(first!)], ['created', [id]]);
        // PostgreSQL announces the write: far sooner than the feed's poll there (10 × live.poll_ms).
        if (dialect === 'postgres') assert.ok(latency < 1000, `${latency} ms`);
        assert.equal((await b.request('PATCH', `${base}/${id}`, json({ name: 'renamed' }))).status, 200);
        assert.equal((await a.request('DELETE', `${base}/${id}`)).status, 200);
        const events = await onA.waitFor(3, 5000);
        assert.deepEqual(
          events.map((event) => event.event),
          ['created', 'updated', 'deleted'],
        );
        const onB = await openStream(`${b.url}${base}/changes`, { 'last-event-id': first!.id! });
        streams.push(onB);
        const resumed = await onB.waitFor(2, 5000);
        assert.deepEqual(
          resumed.map((event) => [event.id, event.event]),
          events.slice(1).map((event) => [event.id, event.event]),
        );
        assert.equal(a.faults() + b.faults(), '');
      });
    }
  });
});
