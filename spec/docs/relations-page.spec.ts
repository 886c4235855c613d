/** docs/guide/relations.md: its example runs in both forms, and its request tables are what the example app answers. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { app, seed } from '../../docs/examples/relations/shop.js';
import { serve, type TestServer } from '../support/http.js';
import { tableRows } from '../support/markdown.js';

const page = readFileSync('docs/guide/relations.md', 'utf8');

describe('docs/guide/relations.md', () => {
  let server: TestServer;
  before(async () => {
    await seed();
    server = await serve(app);
  });
  after(() => server.close());

  for (const uri of ['products', 'class-products']) {
    it(`answers each request of its products table (${uri})`, async () => {
      const rows = tableRows(page, '| request | products |');
      assert.ok(rows.length >= 5);
      for (const [request, products] of rows) {
        const path = request!.replaceAll('`', '').replace('/api/products', `/api/${uri}`);
        const res = await server.get(path);
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        assert.deepEqual(res.body.data.map((p: { name: string }) => p.name), products!.split(', '), path);
      }
    });

    it(`answers each request of its errors table (${uri})`, async () => {
      const rows = tableRows(page, '| request | status |');
      assert.ok(rows.length >= 4);
      for (const [request, status, error, field] of rows) {
        const res = await server.get(`/api/${uri}?${request!.replaceAll('`', '')}`);
        assert.equal(String(res.status), status);
        assert.deepEqual([res.body.data[0].error, res.body.data[0].field], [error!.replaceAll('`', ''), field!.replaceAll('`', '')]);
      }
    });

    it(`includes without hidden fields or soft-deleted rows, on search and read (${uri})`, async () => {
      const res = await server.get(`/api/${uri}?include=category,tags&sort=name`);
      const relic = res.body.data.find((p: { name: string }) => p.name === 'Relic');
      assert.equal(relic.category, null);
      const read = await server.get(`/api/${uri}/2?include=category,tags`);
      assert.deepEqual(read.body.data.category, { id: 1, name: 'Electronics', deletedAt: null });
      assert.deepEqual(read.body.data.tags.map((t: { title: string }) => t.title).sort(), ['sale', 'salex']);
    });
  }
});
