/**
 * Benchmark: the term search (`GET /items?filter[term]=…`, a page of 40 with its exact count) at N rows (1,000,000 by
 * default), with today's portable LIKE against `search.fullText` and its index, on SQLite and PostgreSQL; on
 * PostgreSQL also LIKE (ILIKE) with a pg_trgm GIN index, the other index the issue asked to measure. Medians through
 * the library's HTTP route, interleaved; the answers of LIKE and full text are checked to list the same rows first
 * for terms where word-prefix and substring matching agree. The figures are on docs/guide/filtering.md.
 *   npm run bench -- full-text [rows] [repeats] [sqlite,postgres]
 *   (PostgreSQL at FAST_CRUD_PG_URL, table fts_bench_items, filled once; SQLite file .tmp/fts-bench.sqlite)
 */
import { mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { crud, fullTextIndex, resource } from '../../lib/index.js';
import { postgresAnswers } from '../support/databases.js';
import { serve, type TestServer } from '../support/http.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const repeats = Number(process.argv[3] ?? 11);
const dialects = (process.argv[4] ?? 'sqlite,postgres').split(',');
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const TABLE = 'fts_bench_items';

/** 64 syllables; a word is two of them (4,096 words), a name four words, so one word is in about 0.1% of names. */
const SYLLABLES = [
  'ba', 'be', 'bo', 'da', 'de', 'do', 'fa', 'fe', 'ga', 'ge', 'go', 'ka', 'ke', 'ko', 'la', 'le',
  'lo', 'ma', 'me', 'mo', 'na', 'ne', 'no', 'pa', 'pe', 'po', 'ra', 're', 'ro', 'sa', 'se', 'so',
  'ta', 'te', 'to', 'va', 've', 'vo', 'za', 'ze', 'gar', 'ber', 'tin', 'lum', 'sor', 'vik', 'han', 'dur',
  'mel', 'ost', 'ric', 'wen', 'ald', 'bry', 'cor', 'fen', 'gil', 'hol', 'ing', 'jor', 'kel', 'lin', 'mar', 'nor',
]; // prettier-ignore
const WORDS = SYLLABLES.flatMap((a) => SYLLABLES.map((b) => a + b));

/**
 * The terms timed: one word (about 0.1% of rows), two words, a three-letter start of 64 words (about 6%), a word no
 * row has. Each is a word start, so LIKE's substring finds at least full text's rows.
 */
const TERMS = ['garvik', 'garvik melost', 'gar', 'qqxzz'];

function define(sequelize: Sequelize): ModelStatic<Model> {
  return sequelize.define(
    'FtsBenchItem',
    { id: { type: DataTypes.INTEGER, primaryKey: true }, name: { type: DataTypes.STRING(80), allowNull: false } },
    { tableName: TABLE, timestamps: false },
  );
}

/** Fills the table once (kept between runs): name n is four words picked by hashing n (modulo a prime, then 4,096). */
async function fill(sequelize: Sequelize, Item: ModelStatic<Model>): Promise<void> {
  const have = await Item.count().catch(() => -1);
  if (have === rows) return;
  await fullTextIndex(Item, ['name'])
    .down()
    .catch(() => undefined);
  await Item.sync({ force: true });
  const words = `${TABLE}_words`;
  await sequelize.query(`DROP TABLE IF EXISTS ${words}`);
  await sequelize.query(`CREATE TABLE ${words} (i integer PRIMARY KEY, w varchar(8) NOT NULL)`);
  await sequelize.query(`INSERT INTO ${words} VALUES ${WORDS.map((w, i) => `(${i}, '${w}')`).join(', ')}`);
  const pick = (k: number) =>
    `(SELECT w FROM ${words} WHERE i = ((CAST(n AS BIGINT) * ${[2654435761, 40503, 97001, 7919][k]}) % 1000003) % 4096)`;
  const name = [0, 1, 2, 3].map(pick).join(` || ' ' || `);
  const series =
    sequelize.getDialect() === 'postgres'
      ? `SELECT n FROM generate_series(1, ${rows}) n`
      : `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows}) SELECT n FROM s`;
  await sequelize.query(`INSERT INTO ${TABLE} (id, name) SELECT n, ${name} FROM (${series}) AS g`);
  await sequelize.query(`DROP TABLE ${words}`);
  if (sequelize.getDialect() === 'postgres') await sequelize.query(`ANALYZE ${TABLE}`);
}

const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

/** A server with the LIKE resource at /like, the full-text one at /full-text, and at /uncounted without a count. */
async function server(Item: ModelStatic<Model>): Promise<TestServer> {
  const router = new Router();
  const spec = { policy: { fillable: 'all' as const }, actions: ['search' as const] };
  crud(router, 'like', resource(Item, { ...spec, search: { termFields: ['name'] } }));
  const fullText = resource(Item, { ...spec, search: { termFields: ['name'], fullText: true } });
  crud(router, 'full-text', fullText);
  // The same without the page's exact count (`search.count: 'none'`): what a broad term costs besides counting.
  crud(router, 'uncounted', fullText, { config: { search: { count: 'none' } } });
  return serve(new Koa().use(router.routes()));
}

async function time(app: TestServer, path: string): Promise<number> {
  const started = performance.now();
  const res = await app.get(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return performance.now() - started;
}

/** Medians of each route for each term, interleaved; `slow` routes (a table scan) get fewer requests. */
async function measure(app: TestServer, routes: readonly string[], slow: ReadonlySet<string>) {
  const result: Record<string, Record<string, number>> = {};
  for (const term of TERMS) {
    const path = (route: string) => `/${route}?filter[term]=${encodeURIComponent(term)}`;
    const counts = await Promise.all(
      routes.map(async (route) => (await app.get(path(route))).body.meta.pagination.count as number | undefined),
    );
    const times: Record<string, number[]> = Object.fromEntries(routes.map((route) => [route, []]));
    for (let i = 0; i < repeats; i += 1)
      for (const route of routes) if (!slow.has(route) || i < 3) times[route]!.push(await time(app, path(route)));
    result[term] = Object.fromEntries(routes.map((route) => [route, median(times[route]!)]));
    console.log(
      `  ${JSON.stringify(term).padEnd(16)} ` +
        routes
          .map((route, i) => {
            const rows = counts[i] === undefined ? 'no count' : `${counts[i]} rows`;
            return `${route} ${result[term]![route]!.toFixed(1)} ms (${rows})`;
          })
          .join(', '),
    );
  }
  return result;
}

function load(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${cpus().length} cores`;
}

async function run(sequelize: Sequelize): Promise<void> {
  const dialect = sequelize.getDialect();
  const Item = define(sequelize);
  let started = performance.now();
  await fill(sequelize, Item);
  console.log(
    `\n${dialect}, ${rows} rows (filled in ${((performance.now() - started) / 1000).toFixed(1)} s), ${load()}`,
  );
  const app = await server(Item);
  const trigram = `${TABLE}_name_trgm`;
  if (dialect === 'postgres') await sequelize.query(`DROP INDEX IF EXISTS ${trigram}`);
  // Dropped first, so that the build is timed whole (up's statements skip what exists).
  await fullTextIndex(Item, ['name']).down();
  started = performance.now();
  await fullTextIndex(Item, ['name']).up();
  console.log(
    `full-text index built in ${((performance.now() - started) / 1000).toFixed(1)} s; medians of ${repeats} (LIKE of 3)`,
  );
  const plain = await measure(app, ['like', 'full-text', 'uncounted'], new Set(['like']));
  if (dialect === 'postgres') {
    started = performance.now();
    await sequelize.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await sequelize.query(`CREATE INDEX IF NOT EXISTS ${trigram} ON ${TABLE} USING gin (name gin_trgm_ops)`);
    await sequelize.query(`ANALYZE ${TABLE}`);
    console.log(
      `with pg_trgm's GIN index on name too (built in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    const trgm = await measure(app, ['like', 'full-text'], new Set());
    for (const term of TERMS)
      console.log(
        `  ${JSON.stringify(term).padEnd(16)} LIKE/full text: ${(plain[term]!['like']! / plain[term]!['full-text']!).toFixed(1)}× ` +
          `without pg_trgm, ${(trgm[term]!['like']! / trgm[term]!['full-text']!).toFixed(1)}× with it`,
      );
    await sequelize.query(`DROP INDEX IF EXISTS ${trigram}`);
  } else {
    for (const term of TERMS)
      console.log(
        `  ${JSON.stringify(term).padEnd(16)} LIKE/full text: ${(plain[term]!['like']! / plain[term]!['full-text']!).toFixed(1)}×`,
      );
  }
  console.log(`(${load()} at the end)`);
  await app.close();
}

if (dialects.includes('sqlite')) {
  mkdirSync('.tmp', { recursive: true });
  const sqlite = new Sequelize({ dialect: 'sqlite', storage: '.tmp/fts-bench.sqlite', logging: false });
  await sqlite.query('PRAGMA journal_mode = WAL');
  await run(sqlite);
  await sqlite.close();
}
if (dialects.includes('postgres')) {
  if (await postgresAnswers(PG_URL)) {
    const postgres = new Sequelize(PG_URL, { logging: false });
    await run(postgres);
    await postgres.close();
  } else console.log(`\npostgres: not reachable at ${PG_URL}; skipped`);
}
