/**
 * Benchmark: a cursor page deep in a big table (the row at position 80% of N) against the first cursor page, with
 * OFFSET pages (`page=`) as the foil, in the default order and in `sort=-price` (an index on price DESC, id), on
 * PostgreSQL and SQLite. The target (issue 24): the deep cursor page costs at most 2× the first.
 *   npm run bench -- cursor [rows]   (rows: 1000000; PostgreSQL at FAST_CRUD_PG_URL; SQLite file under .tmp/)
 */
import { mkdirSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { crud, resource } from '../../lib/index.js';
import { cursorScope, encodeCursor } from '../../lib/core/cursor.js';
import { serve, type TestServer } from '../support/http.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECRET = 'bench-cursor-secret-of-forty-characters!';
const PER_PAGE = 40;
const RUNS = 15;

function define(sequelize: Sequelize): ModelStatic<Model> {
  return sequelize.define(
    'CurBenchItem',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true },
      name: { type: DataTypes.STRING(40), allowNull: false },
      price: { type: DataTypes.INTEGER, allowNull: false },
    },
    { tableName: 'cur_bench_items', timestamps: false },
  );
}

async function fill(sequelize: Sequelize, Item: ModelStatic<Model>): Promise<void> {
  const have = await Item.count().catch(() => -1);
  if (have === rows) return;
  await Item.sync({ force: true });
  const series =
    sequelize.getDialect() === 'postgres'
      ? `SELECT n, 'item ' || n, (n % 10000) * 7919 % 10000 FROM generate_series(1, ${rows}) n`
      : `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows}) SELECT n, 'item ' || n, (n % 10000) * 7919 % 10000 FROM s`;
  await sequelize.query(`INSERT INTO cur_bench_items (id, name, price) ${series}`);
  await sequelize.query('CREATE INDEX cur_bench_items_price ON cur_bench_items (price DESC, id)');
  await sequelize.query(sequelize.getDialect() === 'postgres' ? 'ANALYZE cur_bench_items' : 'ANALYZE');
}

/** The median times of each path, requested in turn round after round, so a change in the machine's load hits all. */
async function medians(server: TestServer, paths: readonly string[]): Promise<number[]> {
  const times: number[][] = paths.map(() => []);
  for (let i = 0; i < RUNS; i += 1) {
    for (const [j, path] of paths.entries()) {
      const started = performance.now();
      const res = await server.get(path);
      times[j]!.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    }
  }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!);
}

async function measure(sequelize: Sequelize): Promise<void> {
  const Item = define(sequelize);
  await fill(sequelize, Item);
  const router = new Router();
  crud(router, 'items', resource(Item, { policy: { fillable: 'all' }, actions: ['search'] }), {
    config: { search: { count: 'none', cursor_secret: SECRET } },
  });
  const server = await serve(new Koa().use(router.routes()));
  const position = Math.floor(rows * 0.8);
  const page = Math.floor(position / PER_PAGE) + 1;
  console.log(`\n${sequelize.getDialect()}, ${rows} rows, perPage=${PER_PAGE}, the page from row ${position}`);
  for (const sort of ['', '-price']) {
    const query = sort === '' ? `perPage=${PER_PAGE}` : `sort=${sort}&perPage=${PER_PAGE}`;
    // The cursor of the row just before the deep page: the one a client walking there would hold.
    const before = await server.get(`/items?${query.replace(`perPage=${PER_PAGE}`, 'perPage=1')}&page=${position}`);
    const row = before.body.data[0] as { id: number; price: number };
    const asText = sequelize.getDialect() === 'postgres';
    const values = (sort === '' ? [row.id] : [row.price, row.id]).map((v) => (asText ? String(v) : v));
    const cursor = encodeCursor({ direction: 'after', values }, cursorScope(sort || undefined, undefined), SECRET);
    const deep = await server.get(`/items?${query}&cursor=${encodeURIComponent(cursor)}`);
    const offset = await server.get(`/items?${query}&page=${page}`);
    if (JSON.stringify(deep.body.data) !== JSON.stringify(offset.body.data))
      throw new Error(`The deep cursor page is not the offset page ${page}`);
    const paths = [
      `/items?${query}&cursor=`,
      `/items?${query}&cursor=${encodeURIComponent(cursor)}`,
      `/items?${query}&page=1`,
      `/items?${query}&page=${page}`,
    ];
    await medians(server, paths); // warm-up
    const [cursorFirst, cursorDeep, offsetFirst, offsetDeep] = (await medians(server, paths)) as [
      number,
      number,
      number,
      number,
    ];
    console.log(
      `  ${sort === '' ? 'default order' : `sort=${sort}`}: cursor first ${cursorFirst.toFixed(1)} ms, deep ` +
        `${cursorDeep.toFixed(1)} ms, ratio ${(cursorDeep / cursorFirst).toFixed(2)} (target <= 2); OFFSET first ` +
        `${offsetFirst.toFixed(1)} ms, deep ${offsetDeep.toFixed(1)} ms, ratio ${(offsetDeep / offsetFirst).toFixed(1)}`,
    );
  }
  await server.close();
  await sequelize.close();
}

mkdirSync('.tmp', { recursive: true });
await measure(new Sequelize(PG_URL, { logging: false }));
await measure(new Sequelize({ dialect: 'sqlite', storage: `.tmp/bench-cursor-${rows}.sqlite`, logging: false }));
