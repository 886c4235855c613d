/**
 * docs/guide/live-updates.md agrees with the code: it includes its example (docs/examples/live/notes.ts), is in the
 * sidebar, names every event kind and configuration key of the feed, and the example streams what the page says, in
 * both forms.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../../lib/index.js';
import { CHANGE_KINDS } from '../../lib/core/live-feed.js';
import { app, createTables, sequelize } from '../../docs/examples/live/notes.js';
import { serve, type TestServer } from '../support/http.js';
import { idsOf, openStream } from '../support/sse.js';

const PAGE = readFileSync('docs/guide/live-updates.md', 'utf8');
const json = (body: unknown): RequestInit => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('docs/guide/live-updates.md', () => {
  it('includes its example, is in the sidebar, and names every event kind and live.* key', () => {
    for (const region of ['resource', 'controller', 'app', 'outbox']) assert.ok(PAGE.includes(`<<< @/examples/live/notes.ts#${region}`));
    for (const region of ['react-admin', 'refine']) assert.ok(PAGE.includes(`<<< @/examples/live/clients.ts#${region}`));
    assert.ok(PAGE.includes('<<< @/examples/admin/live.tsx#hook'));
    assert.match(readFileSync('docs/examples/admin/live.tsx', 'utf8'), /\/\/ #region hook\n[\s\S]*\/\/ #endregion hook\n/);
    assert.ok(readFileSync('docs/.vitepress/config.ts', 'utf8').includes("'/guide/live-updates'"));
    for (const kind of [...Object.values(CHANGE_KINDS), 'reset']) assert.ok(PAGE.includes(`| \`${kind}\` |`), kind);
    for (const key of Object.keys(DEFAULT_CONFIG.live)) assert.ok(PAGE.includes(`live.${key}`), key);
  });
});

describe('docs/examples/live/clients.ts', () => {
  it('builds both providers with the realtime methods', async () => {
    const { provider, live } = await import('../../docs/examples/live/clients.js');
    for (const method of ['subscribe', 'unsubscribe', 'publish', 'getList'] as const) assert.equal(typeof provider[method], 'function');
    for (const method of ['subscribe', 'unsubscribe', 'publish'] as const) assert.equal(typeof live[method], 'function');
  });
});

describe('docs/examples/live/notes.ts', () => {
  let server: TestServer;
  before(async () => {
    await createTables();
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  for (const uri of ['/api/notes', '/api/class-notes']) {
    it(`streams each committed write as the page says (${uri})`, async () => {
      const stream = await openStream(`${server.url}${uri}/changes`);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      const created = await server.request('POST', uri, json({ title: 'Call back' }));
      const id = String(created.body.data.id);
      await server.request('PATCH', `${uri}/${id}`, json({ title: 'Called' }));
      await server.request('DELETE', `${uri}/${id}`);
      const events = await stream.waitFor(3);
      assert.deepEqual(stream.retries, [3000]);
      assert.deepEqual(events.map((event) => [event.event, idsOf(event)]), [
        ['created', [id]],
        ['updated', [id]],
        ['deleted', [id]],
      ]);
      stream.close();
      // Resumed from the first event: the two after it, in order.
      const resumed = await openStream(`${server.url}${uri}/changes`, { 'last-event-id': events[0]!.id! });
      assert.deepEqual((await resumed.waitFor(2)).map((event) => event.event), ['updated', 'deleted']);
      resumed.close();
    });
  }
});
