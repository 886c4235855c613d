/**
 * Benchmark: the cost of each search.count strategy on 1,000,000 rows (the figures on
 * docs/guide/pagination.md), and how far PostgreSQL's estimate is from the exact count.
 *   npm run bench -- count [rows]   (PostgreSQL at FAST_CRUD_PG_URL; SQLite file under .tmp/)
 */
import { mkdirSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { crud, resource } from '../../lib/index.js';
import type { SearchCount } from '../../lib/core.js';
import { serve } from '../support/http.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

function define(sequelize: Sequelize): ModelStatic<Model> {
  return sequelize.define(
    'CountItem',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true },
      name: { type: DataTypes.STRING(40), allowNull: false },
      price: { type: DataTypes.INTEGER, allowNull: false },
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'count_items', timestamps: false },
  );
}

async function fill(sequelize: Sequelize, Item: ModelStatic<Model>): Promise<void> {
  const have = await Item.count().catch(() => -1);
  if (have === rows) return;
  await Item.sync({ force: true });
  if (sequelize.getDialect() === 'postgres') {
    await sequelize.query(
      `INSERT INTO count_items SELECT n, 'item ' || n, n % 10000, CASE WHEN n % 10 = 0 THEN now() END FROM generate_series(1, ${rows}) n`,
    );
    await sequelize.query('ANALYZE count_items');
  } else {
    await sequelize.query(
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows}) INSERT INTO count_items SELECT n, 'item ' || n, n % 10000, CASE WHEN n % 10 = 0 THEN '2024-01-01 00:00:00.000 +00:00' END FROM s`,
    );
  }
}

async function measure(sequelize: Sequelize): Promise<void> {
  const Item = define(sequelize);
  await fill(sequelize, Item);
  const router = new Router();
  for (const count of ['exact', 'none', 'estimate'] as SearchCount[]) {
    crud(router, count, resource(Item, { policy: { fillable: 'all' }, actions: ['search'] }), {
      config: { search: { count } },
    });
  }
  const server = await serve(new Koa().use(router.routes()));
  console.log(`\n${sequelize.getDialect()}, ${rows} rows (${rows - Math.floor(rows / 10)} live)`);
  for (const query of ['page=5', 'page=5&filter[price][lt]=5000', 'page=5&filter[price][lt]=50']) {
    const line: string[] = [];
    for (const count of ['exact', 'none', 'estimate']) {
      const times: number[] = [];
      let meta: unknown;
      for (let i = 0; i < 12; i += 1) {
        const started = performance.now();
        const res = await server.get(`/${count}?${query}`);
        times.push(performance.now() - started);
        meta = res.body.meta.pagination;
      }
      times.sort((a, b) => a - b);
      line.push(`${count} ${times[6]!.toFixed(1)} ms ${JSON.stringify(meta)}`);
    }
    console.log(`  ${query}\n    ${line.join('\n    ')}`);
  }
  await server.close();
  await sequelize.close();
}

mkdirSync('.tmp', { recursive: true });
await measure(new Sequelize(PG_URL, { logging: false }));
await measure(new Sequelize({ dialect: 'sqlite', storage: `.tmp/bench-count-${rows}.sqlite`, logging: false }));
