/**
 * docs/guide/aggregates.md agrees with the code: it includes its example (docs/examples/aggregates/orders.ts), its
 * request answers the reply the page shows, in both forms, and its failures table holds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Customer, Order, app, sequelize } from '../../docs/examples/aggregates/orders.js';
import { serve, type TestServer } from '../support/http.js';

const PAGE = readFileSync('docs/guide/aggregates.md', 'utf8');

describe('docs/guide/aggregates.md', () => {
  it('includes its example and is in the sidebar', () => {
    for (const region of ['resource', 'narrow', 'app'])
      assert.ok(PAGE.includes(`<<< @/examples/aggregates/orders.ts#${region}`), region);
    assert.ok(readFileSync('docs/.vitepress/config.ts', 'utf8').includes("'/guide/aggregates'"));
  });
});

describe('docs/examples/aggregates/orders.ts', () => {
  let server: TestServer;
  before(async () => {
    await sequelize.sync({ force: true });
    const [fr, de] = await Customer.bulkCreate([
      { name: 'Ana', country: 'FR' },
      { name: 'Ben', country: 'DE' },
    ]);
    await Order.bulkCreate([
      { status: 'paid', total: 100, items: 3, customerId: fr!.id },
      { status: 'paid', total: 50, items: 1, customerId: fr!.id },
      { status: 'shipped', total: 10.5, items: 2, customerId: fr!.id },
      { status: 'paid', total: 70, items: 4, customerId: de!.id },
      { status: 'paid', total: 999, items: 9, customerId: fr!.id, deletedAt: new Date() },
    ]);
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  const request = PAGE.match(/```http\nGET (\S+)\n```/)![1]!;
  const reply = JSON.parse(PAGE.match(/```json\n([\s\S]*?)\n```/)![1]!) as unknown;

  for (const prefix of ['/api/orders', '/api/class-orders']) {
    it(`answers the page's request with the page's reply (${prefix})`, async () => {
      const res = await server.get(request.replace('/api/orders', prefix));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, reply);
    });

    it(`answers the failures the page lists (${prefix})`, async () => {
      const fail = async (query: string) => {
        const res = await server.get(`${prefix}/aggregate${query}`);
        assert.equal(res.status, 400, res.text);
        return res.body.data.map((f: { field: string; error: string }) => `${f.field} ${f.error}`);
      };
      assert.deepEqual(await fail(''), ['aggregate required']);
      assert.deepEqual(await fail('?aggregate[sum]=totl'), ['aggregate.sum columnNotFound']);
      assert.deepEqual(await fail('?aggregate[avg]=status'), ['aggregate.avg invalidValue']);
      assert.deepEqual(await fail('?aggregate[count]=id'), ['aggregate.count invalidValue']);
      assert.deepEqual(await fail('?groupBy=colour'), ['groupBy columnNotFound']);
      assert.deepEqual(await fail('?aggregate[count]=*&sort=status'), ['sort unknownParameter']);
    });
  }

  it('narrows the class form to its declaration', async () => {
    const grouped = await server.get('/api/class-orders/aggregate?groupBy=customer.country&aggregate[count]=*');
    assert.deepEqual(grouped.body.data, [
      { 'customer.country': 'DE', count: 1 },
      { 'customer.country': 'FR', count: 3 },
    ]);
    const closed = await server.get('/api/class-orders/aggregate?aggregate[sum]=items');
    assert.equal(closed.status, 400, closed.text);
    const opened = await server.get('/api/orders/aggregate?aggregate[sum]=items');
    assert.deepEqual(opened.body.data, [{ sum: { items: 10 } }]);
  });
});
