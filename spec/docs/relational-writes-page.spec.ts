/**
 * docs/guide/relations.md, "Relational writes": its example runs in both forms, and its request table is what the
 * example app answers, step by step, links and rows checked in the database.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { app, Line, Order, seed } from '../../docs/examples/relations/writes.js';
import { serve, type TestServer } from '../support/http.js';
import { tableRows } from '../support/markdown.js';

const page = readFileSync('docs/guide/relations.md', 'utf8');
const code = (cell: string) => cell.replaceAll('`', '');

describe('docs/guide/relations.md, relational writes', () => {
  let server: TestServer;
  before(async () => {
    server = await serve(app);
  });
  after(() => server.close());

  for (const uri of ['orders', 'class-orders']) {
    it(`answers each request of its table, in order (${uri})`, async () => {
      await seed();
      const rows = tableRows(page, '| request | body | status |');
      assert.ok(rows.length >= 6);
      for (const [request, body, status, error, field, labels] of rows) {
        const [method, path] = code(request!).replace('/api/orders', `/api/${uri}`).split(' ');
        const res = await server.request(method!, path!, {
          headers: { 'content-type': 'application/json' },
          body: code(body!),
        });
        assert.equal(String(res.status), status, `${request} ${body}: ${res.text}`);
        if (error !== '') assert.deepEqual([res.body.data[0].error, res.body.data[0].field], [code(error!), code(field!)]);
        if (labels === '') {
          assert.equal(await Order.count(), 1, 'a refused create writes nothing');
          continue;
        }
        const read = await server.get(`/api/${uri}/1?include=labels`);
        const names = read.body.data.labels.map((label: { name: string }) => label.name).sort();
        assert.deepEqual(names, labels!.split(', '), `${request} ${body}`);
        for (const label of read.body.data.labels) assert.deepEqual(Object.keys(label).sort(), ['id', 'name']);
      }
      const lines = await Line.findAll({ attributes: ['orderId', 'sku', 'quantity', 'price'], raw: true });
      assert.deepEqual(lines, [{ orderId: 1, sku: 'A1', quantity: 2, price: 0 }]);
    });
  }
});
