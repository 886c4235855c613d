/**
 * docs/guide/batch-writes.md agrees with the code: it includes its example (docs/examples/batch/tasks.ts), and the
 * example does what the page's table says, in both forms.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Task, app, sequelize } from '../../docs/examples/batch/tasks.js';
import { serve, type TestServer } from '../support/http.js';

const PAGE = readFileSync('docs/guide/batch-writes.md', 'utf8');
const json = (body: unknown): RequestInit => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('docs/guide/batch-writes.md', () => {
  it('includes its example and is in the sidebar', () => {
    for (const region of ['resource', 'controller', 'app']) assert.ok(PAGE.includes(`<<< @/examples/batch/tasks.ts#${region}`));
    const config = readFileSync('docs/.vitepress/config.ts', 'utf8');
    assert.ok(config.includes("'/guide/batch-writes'"));
  });
});

describe('docs/examples/batch/tasks.ts', () => {
  let server: TestServer;
  before(async () => {
    await sequelize.sync({ force: true });
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  for (const uri of ['/api/tasks', '/api/class-tasks']) {
    it(`does what the page says (${uri})`, async () => {
      await Task.destroy({ where: {}, force: true });
      const created = await server.request('POST', uri, json([{ code: 'T1', title: 'Write' }, { code: 'T2', title: 'Ship' }]));
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.data.map((t: { code: string }) => t.code), ['T1', 'T2']);
      const ids = created.body.data.map((t: { id: number }) => t.id) as number[];

      const clash = await server.request('POST', uri, json([{ code: 'T3', title: 'Test' }, { code: 'T1', title: 'Again' }]));
      assert.equal(clash.status, 409, clash.text);
      assert.deepEqual([clash.body.data[0].field, clash.body.data[0].error], ['1.code', 'unique'], clash.text);
      const invalid = await server.request('POST', uri, json([{ code: 'T3', title: 'Test' }, { code: 'T4', title: '' }]));
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.data[0].field, '1.title');
      assert.equal(await Task.count(), 2);

      const done = await server.request('PATCH', `${uri}?filter[id][in]=${ids.join(',')}`, json({ status: 'done' }));
      assert.equal(done.status, 200, done.text);
      assert.ok(done.body.data.every((t: { status: string; doneAt: string | null }) => t.status === 'done' && t.doneAt));

      const all = await server.request('PATCH', uri, json({ status: 'open' }));
      assert.deepEqual([all.status, all.body.data[0].error], [400, 'filterRequired']);

      const soft = await server.request('DELETE', `${uri}/soft?filter[status]=done`);
      assert.equal(soft.status, 200, soft.text);
      assert.equal(soft.body.data.length, 2);
      const restored = await server.request('PATCH', `${uri}/restore?filter[code][in]=T1`);
      assert.deepEqual(restored.body.data.map((t: { code: string }) => t.code), ['T1']);

      const deleted = await server.request('DELETE', `${uri}?filter[code][like]=T`);
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.body.data, [ids[0]]);
      assert.equal(await Task.count({ paranoid: false }), 1);
    });
  }
});
