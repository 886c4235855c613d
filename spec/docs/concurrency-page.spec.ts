/**
 * docs/guide/concurrency.md: its examples run (docs/examples/concurrency/members.ts over HTTP), the configuration keys
 * and error codes it names are the code's, and it is in the sidebar.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONFIG, ERROR_TABLE } from 'koa-fast-crud';
import { app, sequelize } from '../../docs/examples/concurrency/members.js';
import { CONFLICT_MESSAGE } from '../../lib/clients/protocol.js';
import { serve, type TestServer } from '../support/http.js';

const page = readFileSync('docs/guide/concurrency.md', 'utf8');

describe('docs/guide/concurrency.md', () => {
  let server: TestServer;
  before(async () => {
    await sequelize.sync({ force: true });
    server = await serve(app);
  });
  after(() => server?.close());

  const send = (verb: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    server.request(verb, path, {
      headers: { 'content-type': 'application/json', ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  it('runs its example: the version is the ETag, a stale version is a 409, a write without If-Match a 428', async () => {
    const created = await send('POST', '/api/members', { name: 'Ann' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('etag'), '"v0"');
    const id = created.body.data.id as string;
    assert.equal((await send('PATCH', `/api/members/${id}`, { name: 'Bea' })).status, 428);
    const first = await send('PATCH', `/api/members/${id}`, { name: 'Bea', version: 0 }, { 'if-match': '"v0"' });
    assert.deepEqual([first.status, first.body.data.version, first.headers.get('etag')], [200, 1, '"v1"']);
    const stale = await send('PATCH', `/api/members/${id}`, { name: 'Cid', version: 0 }, { 'if-match': '*' });
    assert.deepEqual([stale.status, stale.body.data[0].error, stale.body.data[0].field], [409, 'staleVersion', 'version']);
    assert.equal((await send('PATCH', `/api/members/${id}`, { name: 'Cid' }, { 'if-match': '"v0"' })).status, 412);
    assert.equal((await send('GET', `/api/members/${id}`, undefined, { 'if-none-match': '"v1"' })).status, 304);
    assert.equal((await send('DELETE', `/api/members/${id}`)).status, 428);
  });

  it('names configuration keys and codes that exist, with their statuses', () => {
    for (const [, key] of page.matchAll(/`(\w+)\.require_if_match`/g)) assert.equal((DEFAULT_CONFIG as Record<string, any>)[key!].require_if_match, false, key);
    for (const code of ['preconditionFailed', 'preconditionRequired', 'staleVersion'] as const) {
      assert.ok(page.includes(`\`${code}\``), code);
      assert.ok(page.includes(String(ERROR_TABLE[code].status)), `${code}'s ${ERROR_TABLE[code].status}`);
    }
  });

  it("quotes the providers' conflict message and shows the demo's provider with its preconditions", () => {
    assert.ok(page.replace(/\s+/g, " ").includes(`"${CONFLICT_MESSAGE}"`), "the default conflictMessage, word for word");
    assert.ok(page.includes('<<< @/examples/admin/App.tsx#provider'));
    const app = readFileSync('docs/examples/admin/App.tsx', 'utf8');
    const region = /\/\/ #region provider\n([\s\S]*?)\/\/ #endregion provider/.exec(app)?.[1] ?? '';
    assert.match(region, /preconditions: \['products'\]/);
  });

  it('is in the sidebar', () => {
    const config = readFileSync(new URL('../../docs/.vitepress/config.ts', import.meta.url), 'utf8');
    assert.ok(config.includes("link: '/guide/concurrency'"));
  });
});
