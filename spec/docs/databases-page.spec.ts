/**
 * docs/guide/databases.md: its examples run, and its claims about where queries go hold. The demo's
 * models are served over docs/examples/databases/replication.ts (PostgreSQL, the primary doubling
 * as the replica) in the schema `dbdoc`, so no other spec's tables are touched; every pool
 * acquisition is recorded to see which pool, reader or writer, each action used.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { CrudController, crud } from '../../lib/index.js';
import { createShop } from '../../docs/examples/databases/app.js';
import { options } from '../../docs/examples/databases/replication.js';
import { defineDemoModels } from '../../docs/examples/demo/models.js';
import { seedDemo, stableId } from '../../docs/examples/demo/seed.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { serve, type TestServer } from '../support/http.js';

const SCHEMA = 'dbdoc';
const sequelize = new Sequelize({ ...options, define: { schema: SCHEMA }, dialectOptions: { connectionTimeoutMillis: 3000 } });
const skip = await sequelize.authenticate().then(
  () => undefined,
  (cause: Error) => {
    const reason = `postgres is not reachable at 127.0.0.1:5432: ${cause.message}`;
    if (process.env['CI'] === 'true') throw new Error(`${reason} (CI=true requires every database)`, { cause });
    return `${reason}; start it to run these tests`;
  },
);
after(() => sequelize.close());

/** The pool ('read' or 'write') of every connection taken while `work` runs. */
const acquired: string[] = [];
sequelize.addHook('afterPoolAcquire', (connection) => {
  acquired.push((connection as { queryType?: string }).queryType ?? 'none');
});
async function pools<T>(work: () => Promise<T>): Promise<[T, string[]]> {
  acquired.length = 0;
  const result = await work();
  return [result, [...acquired]];
}

describe('docs/guide/databases.md: the demo over a replicated PostgreSQL connection', { skip }, () => {
  let server: TestServer;
  const kitchen = stableId('category:Kitchen');

  before(async () => {
    await sequelize.createSchema(SCHEMA, {});
    const { app, models } = createShop(sequelize);
    await seedDemo(models);
    server = await serve(app);
  });
  after(async () => {
    await server?.close();
    await sequelize.dropSchema(SCHEMA, {});
  });

  it('has a read pool and a write pool, each of pool.max connections', () => {
    const pool = (sequelize.connectionManager as unknown as { pool: Record<string, { maxSize: number }> }).pool;
    assert.deepEqual([pool['read']?.maxSize, pool['write']?.maxSize], [options.pool!.max, options.pool!.max]);
  });

  it("runs the executors' probe (each model's first search or options request) on the readers", async () => {
    const [replies, probePools] = await pools(() => Promise.all([server.get('/api/products?perPage=1'), server.get('/api/categories/options?label=name')]));
    assert.deepEqual(replies.map((reply) => reply.status), [200, 200]);
    assert.ok(probePools.length > 2 && probePools.every((pool) => pool === 'read'), probePools.join());
  });

  it('creates on the writer, reads the new record back from the writer (useMaster), and finds it in a search on the readers', async () => {
    const body = JSON.stringify({ sku: 'DB-001', name: 'Wok', price: 20.5, categoryId: kitchen });
    const [created, createPools] = await pools(() => server.request('POST', '/api/products', { headers: { 'content-type': 'application/json' }, body }));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(createPools, ['write'], 'the whole create is one transaction on one writer connection');

    const [read, readPools] = await pools(() => server.get(`/api/products/${created.body.data.id}`));
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.sku, 'DB-001');
    assert.deepEqual(readPools, ['write'], 'modifyReadQuery set useMaster');

    const [found, searchPools] = await pools(() => server.get('/api/products?filter[sku]=DB-001'));
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.data.map((p: { id: string }) => p.id), [created.body.data.id]);
    assert.deepEqual(searchPools, ['read'], 'the page and its COUNT, in one query string on one reader connection');
  });

  it('sends a plain read, options and exportCsv to the readers, and every write to the writer', async () => {
    assert.deepEqual((await pools(() => server.get(`/api/categories/${kitchen}`)))[1], ['read']);
    assert.deepEqual((await pools(() => server.get('/api/categories/options?label=name')))[1], ['read']);
    const [csv, exportPools] = await pools(async () => {
      const res = await server.get('/api/products/export-csv');
      return res;
    });
    assert.equal(csv.status, 200);
    assert.ok(exportPools.length >= 1 && exportPools.every((p) => p === 'read'), exportPools.join());
    const patch = { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Kitchenware' }) };
    assert.deepEqual((await pools(() => server.request('PATCH', `/api/categories/${kitchen}`, patch)))[1], ['write']);
    assert.deepEqual((await pools(() => server.request('DELETE', `/api/categories/${kitchen}/soft`)))[1], ['write']);
    assert.deepEqual((await pools(() => server.request('PUT', `/api/categories/${kitchen}/restore`)))[1], ['write']);
    const [deleted, deletePools] = await pools(() => server.request('DELETE', `/api/products/${stableId('product:TY-001')}`));
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deletePools, ['write']);
  });

  it('describes the table on the writer when the options value is not a model attribute', async () => {
    await sequelize.query(`ALTER TABLE ${SCHEMA}.categories ADD COLUMN legacy_code text`);
    const [res, used] = await pools(() => server.get('/api/categories/options?label=name&value=legacy_code'));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(used, ['write', 'read']);
  });
});

describe('docs/guide/databases.md: an export that fails after its first batch', () => {
  it('cuts the download off, so the client sees an incomplete transfer, and reports the error to the app', async () => {
    const sqlite = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
    const models = defineDemoModels(sqlite);
    await seedDemo(models);
    let finds = 0;
    models.Product.addHook('afterFind', () => {
      if (++finds === 2) throw new Error('the replica went away');
    });
    class ProductController extends CrudController {
      override fillable = 'all' as const;
      modelClassName() {
        return models.Product;
      }
    }
    const router = new Router();
    crud(router, 'products', ProductController, { config: { export_csv: { batch_size: 3 } } });
    const errors: unknown[] = [];
    const server = await serve(new Koa().use(router.routes()), errors);
    try {
      await assert.rejects(server.get('/products/export-csv'), /terminated/);
      assert.ok(errors.some((e) => (e as Error).message === 'the replica went away'));
    } finally {
      await server.close();
      await sqlite.close();
    }
  });
});

const databases = await testDatabases();
after(() => closeAll(databases));

/** What the dialect table says `like` finds for `Wök`, and how a DECIMAL comes back. */
const EXPECTED = {
  sqlite: { 'WÖK': false, wok: false, price: 39.9 },
  postgres: { 'WÖK': true, wok: false, price: '39.90' },
  mariadb: { 'WÖK': true, wok: true, price: 39.9 },
} as const;

for (const db of databases) {
  describe(`docs/guide/databases.md: the dialect table on ${db.dialect}`, { skip: db.skip }, () => {
    it('holds for like and DECIMAL', async () => {
      const sequelize = db.sequelize!;
      const Word = sequelize.define(
        'DbdocWord',
        { name: DataTypes.STRING(40), price: DataTypes.DECIMAL(10, 2) },
        { tableName: 'dbdoc_words', timestamps: false },
      );
      await Word.sync({ force: true });
      await Word.create({ name: 'Wök', price: '39.90' });
      class WordController extends CrudController {
        modelClassName() {
          return Word;
        }
      }
      const router = new Router();
      crud(router, 'words', WordController, { only: ['search'] });
      const server = await serve(new Koa().use(router.routes()));
      try {
        const expected = EXPECTED[db.dialect];
        for (const text of ['WÖK', 'wok'] as const) {
          const res = await server.get(`/words?filter[name][like]=${encodeURIComponent(text)}`);
          assert.equal(res.body.data.length === 1, expected[text], `like ${text}`);
        }
        assert.strictEqual((await server.get('/words')).body.data[0].price, expected.price);
      } finally {
        await server.close();
        await Word.drop();
      }
    });
  });
}
