/**
 * Benchmark: a cursor page deep in a big table (the row at position 80% of N) against the first cursor page, with
 * OFFSET pages (`page=`) as the foil, in the default order and in `sort=-price` (an index on price DESC, id), on
 * PostgreSQL and SQLite. The target (issue 24): the deep cursor page costs at most 2× the first.
 *   npm run bench -- cursor [rows]   (rows: 1000000; PostgreSQL at FAST_CRUD_PG_URL; SQLite file under .tmp/)
 * BENCH_LIB_B=<dir>/lib/index.ts serves the same resource from another copy of lib/ (an earlier commit's, from
 * `git archive`) on a second server, its requests interleaved with this lib's in every round: a before/after pair
 * under the same load, with the ratio of each median to B's.
 */
import { mkdirSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import * as lib from '../../lib/index.js';
import { cursorScope, encodeCursor } from '../../lib/core/cursor.js';
import { serve, type TestServer } from '../support/http.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECRET = 'bench-cursor-secret-of-forty-characters!';
const PER_PAGE = 40;
/** Rounds per median (`BENCH_RUNS`, default 15). */
const RUNS = Number(process.env['BENCH_RUNS'] ?? 15);
/** Another copy of lib/ for a before/after pair (`BENCH_LIB_B`), or undefined. */
const LIB_B = process.env['BENCH_LIB_B'];

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
async function medians(servers: readonly TestServer[], paths: readonly string[]): Promise<number[]> {
  const times: number[][] = servers.flatMap(() => paths.map(() => []));
  for (let i = 0; i < RUNS; i += 1) {
    // The servers take turns at going first, so neither always follows the other's slowest request.
    const turn = i % 2 === 0 ? [...servers.entries()] : [...servers.entries()].reverse();
    for (const [s, server] of turn)
      for (const [j, path] of paths.entries()) {
        const started = performance.now();
        const res = await server.get(path);
        times[s * paths.length + j]!.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
      }
  }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!);
}

async function measure(sequelize: Sequelize): Promise<void> {
  const Item = define(sequelize);
  await fill(sequelize, Item);
  const start = async (library: typeof lib) => {
    const router = new Router();
    library.crud(router, 'items', library.resource(Item, { policy: { fillable: 'all' }, actions: ['search'] }), {
      config: { search: { count: 'none', cursor_secret: SECRET } },
    });
    return serve(new Koa().use(router.routes()));
  };
  const server = await start(lib);
  const other = LIB_B === undefined ? undefined : await start((await import(LIB_B)) as typeof lib);
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
    const servers = other === undefined ? [server] : [server, other];
    if (other !== undefined) {
      const [mine, theirs] = [await server.get(paths[1]!), await other.get(paths[1]!)];
      if (mine.text !== theirs.text) throw new Error('BENCH_LIB_B gives other bytes for the deep cursor page');
    }
    await medians(servers, paths); // warm-up
    const figures = await medians(servers, paths);
    for (const [k, label] of (other === undefined ? ['this lib'] : ['this lib', 'lib B']).entries()) {
      const [cursorFirst, cursorDeep, offsetFirst, offsetDeep] = figures.slice(k * 4, k * 4 + 4) as [
        number,
        number,
        number,
        number,
      ];
      console.log(
        `  ${sort === '' ? 'default order' : `sort=${sort}`} (${label}): cursor first ${cursorFirst.toFixed(1)} ms, ` +
          `deep ${cursorDeep.toFixed(1)} ms, ratio ${(cursorDeep / cursorFirst).toFixed(2)} (target <= 2); ` +
          `OFFSET first ${offsetFirst.toFixed(1)} ms, deep ${offsetDeep.toFixed(1)} ms, ratio ` +
          `${(offsetDeep / offsetFirst).toFixed(1)}; cursor first / OFFSET first ${(cursorFirst / offsetFirst).toFixed(2)}`,
      );
    }
    if (other !== undefined) {
      const ratio = (i: number) => (figures[i]! / figures[i + 4]!).toFixed(2);
      console.log(`    this lib / lib B: cursor first ${ratio(0)}, cursor deep ${ratio(1)}, OFFSET first ${ratio(2)}`);
    }
  }
  await server.close();
  await other?.close();
  await sequelize.close();
}

mkdirSync('.tmp', { recursive: true });
await measure(new Sequelize(PG_URL, { logging: false }));
await measure(new Sequelize({ dialect: 'sqlite', storage: `.tmp/bench-cursor-${rows}.sqlite`, logging: false }));
