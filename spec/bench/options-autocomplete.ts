/**
 * Benchmark: the options autocomplete (`?label=name&q=…&limit=20`) on PostgreSQL at N rows (1,000,000 by default),
 * without an index and with the documented ones (a pg_trgm GIN index for `ILIKE '%q%'`, a btree for the label order),
 * against a floor measured in the same run: the same SQL through the bare driver behind a bare Koa route. Prints the
 * median of each, the library over the floor, and without the indexes over with them (the figures on
 * docs/actions/options.md).
 *   npm run bench -- options-autocomplete [rows] [repeats]   (PostgreSQL at FAST_CRUD_PG_URL)
 */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { crud, resource } from '../../lib/index.js';
import { serve, type TestServer } from '../support/http.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const repeats = Number(process.argv[3] ?? 15);
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const TABLE = 'oaq_bench_cities';

/** pg ships no types; this is all the floor uses of it. */
interface Pool {
  query(sql: string, values: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
const driver = 'pg';
const pg = (await import(driver)).default as { Pool: new (options: object) => Pool };

/** 64 syllables: each name is three of them (262,144 stems) and a number, so a syllable is in about 5% of names. */
const SYLLABLES = [
  'ba', 'be', 'bo', 'da', 'de', 'do', 'fa', 'fe', 'ga', 'ge', 'go', 'ka', 'ke', 'ko', 'la', 'le',
  'lo', 'ma', 'me', 'mo', 'na', 'ne', 'no', 'pa', 'pe', 'po', 'ra', 're', 'ro', 'sa', 'se', 'so',
  'ta', 'te', 'to', 'va', 've', 'vo', 'za', 'ze', 'gar', 'ber', 'tin', 'lum', 'sor', 'vik', 'han', 'dur',
  'mel', 'ost', 'ric', 'wen', 'ald', 'bry', 'cor', 'fen', 'gil', 'hol', 'ing', 'jor', 'kel', 'lin', 'mar', 'nor',
]; // prettier-ignore

/** The requests timed: a common syllable, a rare pair, text no name holds, and the first labels. */
const QUERIES = ['q=gar', 'q=garvik', 'q=qqx', 'q=GAR%25', ''];

async function fill(sequelize: Sequelize): Promise<void> {
  const [[found]] = (await sequelize.query(`SELECT count(*)::int AS n FROM ${TABLE}`).catch(() => [[{ n: -1 }]])) as [
    { n: number }[],
  ];
  if (found?.n === rows) return;
  await sequelize.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await sequelize.query(
    `CREATE TABLE ${TABLE} (id integer PRIMARY KEY, name varchar(60) NOT NULL, deleted_at timestamptz)`,
  );
  const list = `ARRAY[${SYLLABLES.map((s) => `'${s}'`).join(',')}]`;
  const byte = (i: number) => `1 + get_byte(decode(md5(n::text), 'hex'), ${i}) % 64`;
  await sequelize.query(
    `INSERT INTO ${TABLE} SELECT n, initcap((${list})[${byte(0)}] || (${list})[${byte(1)}] || (${list})[${byte(2)}])` +
      ` || ' ' || (n % 1000), CASE WHEN n % 10 = 0 THEN now() END FROM generate_series(1, ${rows}) n`,
  );
  await sequelize.query(`ANALYZE ${TABLE}`);
}

/** The documented indexes: pg_trgm's GIN for the contains, a btree for the label order. */
async function index(sequelize: Sequelize, on: boolean): Promise<void> {
  if (!on) {
    await sequelize.query(`DROP INDEX IF EXISTS ${TABLE}_name_trgm; DROP INDEX IF EXISTS ${TABLE}_name`);
    return;
  }
  await sequelize.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await sequelize.query(`CREATE INDEX IF NOT EXISTS ${TABLE}_name_trgm ON ${TABLE} USING gin (name gin_trgm_ops)`);
  await sequelize.query(`CREATE INDEX IF NOT EXISTS ${TABLE}_name ON ${TABLE} (name)`);
  await sequelize.query(`ANALYZE ${TABLE}`);
}

/** The library's options route, and the floor: the same SELECT by the bare driver behind a bare Koa route. */
async function servers(sequelize: Sequelize, pool: Pool): Promise<{ library: TestServer; floor: TestServer }> {
  const City = sequelize.define(
    'OaqBenchCity',
    { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(60), deleted_at: DataTypes.DATE },
    { tableName: TABLE, timestamps: false },
  );
  const router = new Router();
  crud(router, 'cities', resource(City, { policy: { fillable: 'all' }, actions: ['options'] }));
  const floorRouter = new Router();
  floorRouter.get('/cities/options', async (ctx) => {
    const q = typeof ctx.query['q'] === 'string' ? ctx.query['q'] : undefined;
    const pattern = q === undefined ? null : `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows: found } = await pool.query(
      `SELECT name AS label, id AS value FROM ${TABLE} WHERE deleted_at IS NULL` +
        (pattern === null ? '' : ' AND name ILIKE $1') +
        ' ORDER BY name ASC LIMIT 20',
      pattern === null ? [] : [pattern],
    );
    ctx.body = { status: 'success', data: found, meta: {} };
  });
  return {
    library: await serve(new Koa().use(router.routes())),
    floor: await serve(new Koa().use(floorRouter.routes())),
  };
}

const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

/** Medians of the library and the floor, interleaved request by request; their answers checked equal first. */
async function measure(library: TestServer, floor: TestServer, query: string, n: number) {
  const path = `/cities/options?label=name&limit=20${query === '' ? '' : `&${query}`}`;
  const [mine, theirs] = [await library.get(path), await floor.get(path)];
  if (mine.status !== 200 || JSON.stringify(mine.body.data) !== JSON.stringify(theirs.body.data))
    throw new Error(`${path}: the library and the floor differ: ${mine.text.slice(0, 300)}`);
  const times = { library: [] as number[], floor: [] as number[] };
  for (let i = 0; i < n; i += 1)
    for (const [name, server] of [
      ['library', library],
      ['floor', floor],
    ] as const) {
      const started = performance.now();
      await server.get(path);
      times[name].push(performance.now() - started);
    }
  return { library: median(times.library), floor: median(times.floor), items: (mine.body.data as unknown[]).length };
}

const sequelize = new Sequelize(PG_URL, { logging: false });
const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
await fill(sequelize);
const { library, floor } = await servers(sequelize, pool);
console.log(`\nPostgreSQL, ${rows} rows (${rows - Math.floor(rows / 10)} live), medians of ${repeats}, limit=20`);
const without: Record<string, number> = {};
for (const indexed of [false, true]) {
  const started = performance.now();
  await index(sequelize, indexed);
  console.log(
    indexed ? `with the indexes (built in ${((performance.now() - started) / 1000).toFixed(1)} s)` : 'no index',
  );
  for (const query of QUERIES) {
    // Without an index each request scans the table: fewer of them.
    const { library: ms, floor: base, items } = await measure(library, floor, query, indexed ? repeats : 5);
    if (!indexed) without[query] = ms;
    const gain = indexed ? `, ${(without[query]! / ms).toFixed(1)}× faster than without` : '';
    console.log(
      `  ${(query || '(no q)').padEnd(12)} ${String(items).padStart(2)} items: library ${ms.toFixed(1)} ms, ` +
        `floor ${base.toFixed(1)} ms, ratio ${(ms / base).toFixed(2)}${gain}`,
    );
  }
}
await Promise.all([library.close(), floor.close()]);
await pool.end();
await sequelize.close();
