/**
 * The live clients against a real server's change feed, with a real EventSource (undici's, the implementation Node 22
 * ships as its global; Node 20 has none): koa-fast-crud/refine's `liveProvider`, typed as @refinedev/core's
 * `LiveProvider`, and koa-fast-crud/react-admin's `realtime`, spread into a data provider typed as ra-core's
 * `DataProvider`. Each hears the writes of the docs' live example, narrowed to records and kinds as asked, and closes
 * its stream when the last subscription goes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LiveEvent, LiveProvider } from '@refinedev/core';
import type { DataProvider } from 'ra-core';
import { EventSource } from 'undici';
import { dataProvider, realtime, type RaRealtimeEvent } from 'koa-fast-crud/react-admin';
import { liveProvider } from 'koa-fast-crud/refine';
import { app, createTables, sequelize } from '../../docs/examples/live/notes.js';
import { openStreams } from '../../lib/execute/live-hub.js';
import { serve, type TestServer } from '../support/http.js';

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Resolves with the first `count` values `push` receives. */
function collector<T>(count: number, ms = 5000) {
  const seen: T[] = [];
  let done: (value: T[]) => void = () => undefined;
  const all = new Promise<T[]>((resolve, reject) => {
    done = resolve;
    setTimeout(() => reject(new Error(`only ${JSON.stringify(seen)} after ${ms} ms`)), ms).unref();
  });
  return {
    seen,
    all,
    push: (value: T) => {
      seen.push(value);
      if (seen.length >= count) done(seen);
    },
  };
}

async function streamsBack(to: number): Promise<void> {
  for (let i = 0; i < 100 && openStreams() !== to; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(openStreams(), to);
}

describe('the live clients on a real change feed', () => {
  let server: TestServer;
  before(async () => {
    await createTables();
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  it("Refine's liveProvider: a list channel hears every write, a record's only that record's, as asked", async () => {
    const live: LiveProvider = liveProvider(`${server.url}/api`, { EventSource });
    const list = collector<LiveEvent>(3);
    const one = collector<LiveEvent>(1);
    const before = openStreams();
    const all = live.subscribe({ channel: 'resources/notes', types: ['*'], callback: list.push });
    await streamsBack(before + 1);
    const a = (await server.request('POST', '/api/notes', json({ title: 'a' }))).body.data.id as number;
    const b = (await server.request('POST', '/api/notes', json({ title: 'b' }))).body.data.id as number;
    const record = live.subscribe({
      channel: 'resources/notes',
      types: ['updated'],
      params: { ids: [b], subscriptionType: 'useOne' },
      callback: one.push,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.request('PATCH', `/api/notes/${a}`, json({ title: 'a2' }));
    await server.request('PATCH', `/api/notes/${b}`, json({ title: 'b2' }));
    const events = await list.all;
    assert.deepEqual(
      events.slice(0, 3).map((event) => [event.channel, event.type, event.payload.ids]),
      [
        ['resources/notes', 'created', [String(a)]],
        ['resources/notes', 'created', [String(b)]],
        ['resources/notes', 'updated', [String(a)]],
      ],
    );
    assert.ok(events.every((event) => event.date instanceof Date));
    const [only] = await one.all;
    assert.deepEqual([only!.type, only!.payload.ids], ['updated', [String(b)]]);
    // One stream for the resource, however many subscriptions; closed with the last.
    assert.equal(openStreams(), before + 1);
    live.unsubscribe(all);
    live.unsubscribe(record);
    await streamsBack(before);
  });

  it("react-admin's realtime: resource/<name> and resource/<name>/<id> topics, soft delete as deleted", async () => {
    const provider: DataProvider = {
      ...dataProvider(`${server.url}/api`),
      ...realtime(`${server.url}/api`, { EventSource }),
    };
    const created = await provider.create('notes', { data: { title: 'watched' } });
    const id = String(created.data.id);
    const list = collector<RaRealtimeEvent>(2);
    const record = collector<RaRealtimeEvent>(1);
    const before = openStreams();
    await provider['subscribe']('resource/notes', list.push);
    await provider['subscribe'](`resource/notes/${id}`, record.push);
    await streamsBack(before + 1);
    const other = await provider.create('notes', { data: { title: 'other' } });
    await server.request('DELETE', `/api/notes/${id}/soft`);
    const events = await list.all;
    assert.deepEqual(
      events.map((event) => [event.topic, event.type, event.payload.ids]),
      [
        ['resource/notes', 'created', [String(other.data.id)]],
        ['resource/notes', 'deleted', [id]],
      ],
    );
    const [mine] = await record.all;
    assert.deepEqual([mine!.topic, mine!.type, mine!.payload.ids], [`resource/notes/${id}`, 'deleted', [id]]);
    // publish reaches this page's subscribers of the topic.
    const published = collector<RaRealtimeEvent>(3);
    await provider['subscribe']('resource/notes', published.push);
    await provider['publish']('resource/notes', { type: 'updated', payload: { ids: [id] } });
    assert.ok(list.seen.some((event) => event.type === 'updated'));
    await provider['unsubscribe']('resource/notes', list.push);
    await provider['unsubscribe']('resource/notes', published.push);
    assert.equal(openStreams(), before + 1);
    await provider['unsubscribe'](`resource/notes/${id}`, record.push);
    await streamsBack(before);
  });
});
