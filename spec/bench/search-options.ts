/**
 * Benchmark: search and options of koa-fast-crud against a floor server written here (Koa + the raw
 * driver + hand-written SQL + JSON.stringify), the fastest this stack can answer the same requests.
 * 10,000 products (9,000 live); each round starts a fresh process per side, checks that both answer
 * the same bytes, then loads them in turn, in half-second slices (A, B, B, A, …), with 32 keep-alive connections from this
 * process. Prints, per workload, the throughput ratio library/floor and the server CPU per request, with its user and
 * system parts.
 *   npm run bench -- search-options [rounds] [seconds]   (SQLite file under .tmp/; PostgreSQL too when FAST_CRUD_PG_URL answers)
 * A third server, the library held on its public executor (what a model whose probe failed uses),
 * is loaded beside them, so the cost of that fallback is printed too; BENCH_PUBLIC=0 leaves it out.
 * BENCH_LIB_B=<dir>/lib/index.ts makes the third server another copy of lib/ on its fast executor instead, so a
 * before/after pair is measured in the same interleaved run; BENCH_FORM=class registers a class-form controller.
 * BENCH_WARM=<s> loads each server that long before it is measured (10 s); BENCH_SLICE=<s> sets the slices (0.5 s).
 * BENCH_FLOOR=snapshot makes the PostgreSQL floor read its page and count as the library does, in one REPEATABLE READ
 * query string on one connection, rather than as two queries on two connections.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { postgresAnswers } from '../support/databases.js';

type Dialect = 'sqlite' | 'postgres';
/** The floor, the library (its fast executor), and the library held on its public executor (`BENCH_PUBLIC=0` leaves that one out). */
type Side = 'floor' | 'library' | 'public';
const SIDES: readonly Side[] =
  process.env['BENCH_PUBLIC'] === '0' ? ['floor', 'library'] : ['floor', 'library', 'public'];

const SQLITE_FILE = '.tmp/bench-search-options.sqlite';
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const POOL = 5;
const ROWS = 10_000;
const LIVE = 9_000;
const WORKLOADS = {
  options: '/products/options?label=name',
  search: '/products?page=5&sort=-price,name',
} as const;
type Workload = keyof typeof WORKLOADS;
/** BENCH_ONLY=search (or options) runs one workload, e.g. to profile it alone. */
const RUN: Workload[] = (Object.keys(WORKLOADS) as Workload[]).filter(
  (w) => process.env['BENCH_ONLY'] === undefined || process.env['BENCH_ONLY'] === w,
);

const connect = (dialect: Dialect) =>
  dialect === 'sqlite'
    ? new Sequelize({ dialect: 'sqlite', storage: SQLITE_FILE, logging: false, pool: { max: 1 } })
    : new Sequelize(PG_URL, { logging: false, pool: { max: POOL } });

function define(sequelize: Sequelize): ModelStatic<Model> {
  return sequelize.define(
    'BenchProduct',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true },
      sku: { type: DataTypes.STRING(20), allowNull: false },
      name: { type: DataTypes.STRING(80), allowNull: false },
      price: { type: DataTypes.DECIMAL(10, 2), allowNull: false },
      stock: { type: DataTypes.INTEGER, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'bench_products', timestamps: false },
  );
}

async function fill(dialect: Dialect): Promise<void> {
  const sequelize = connect(dialect);
  const Product = define(sequelize);
  await Product.sync({ force: true });
  const start = Date.UTC(2024, 0, 1);
  const rows = Array.from({ length: ROWS }, (_, i) => {
    const n = i + 1;
    return {
      id: n,
      sku: `SKU-${n}`,
      name: `Product ${(n * 7919) % ROWS} ${n}`,
      price: ((n * 104_729) % 50_000) / 100,
      stock: n % 97,
      created_at: new Date(start + n * 60_000),
      deleted_at: n % 10 === 0 ? new Date(start) : null,
    };
  });
  for (let i = 0; i < rows.length; i += 1000)
    await Product.bulkCreate(rows.slice(i, i + 1000), { validate: false, hooks: false });
  if ((await Product.count({ where: { deleted_at: null } })) !== LIVE) throw new Error('fill: wrong live count');
  await sequelize.close();
}

/** Answers `/__cpu` with the process's CPU time in microseconds, so the runner can measure per-request cost. */
function cpuRoute(app: Koa): void {
  app.use(async (ctx, next) => {
    if (ctx.path !== '/__cpu') return next();
    const { user, system } = process.cpuUsage();
    ctx.body = { user, system };
  });
}

async function listen(app: Koa): Promise<void> {
  // BENCH_PORT (the runner sets it): a port of the range this machine gives benchmarks, else any free port.
  const server = app.listen(Number(process.env['BENCH_PORT'] ?? 0), '127.0.0.1');
  // The runner's pooled sockets wait while the other side is loaded: past Node's 5 s keep-alive
  // timeout the server would close one as the runner reuses it (ECONNRESET).
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.once('listening', resolve));
  // Exit normally on kill, so `node --cpu-prof` writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
}

const SEARCH_SQL = (q: (name: string) => string) =>
  `SELECT ${['id', 'sku', 'name', 'price', 'stock', 'created_at', 'deleted_at'].map(q).join(', ')} FROM ${q('bench_products')} WHERE ${q('deleted_at')} IS NULL ORDER BY ${q('price')} DESC, ${q('name')} ASC, ${q('id')} ASC LIMIT 40 OFFSET 160`;
const COUNT_SQL = (q: (name: string) => string) =>
  `SELECT count(*) AS ${q('count')} FROM ${q('bench_products')} WHERE ${q('deleted_at')} IS NULL`;
const OPTIONS_SQL = (q: (name: string) => string) =>
  `SELECT ${q('id')} AS ${q('value')}, ${q('name')} AS ${q('label')} FROM ${q('bench_products')} WHERE ${q('deleted_at')} IS NULL ORDER BY ${q('name')} ASC`;

/** An identifier quoted as both SQLite and PostgreSQL read it. */
const quote = (name: string) => `"${name}"`;

/** The floor: the driver, the SQL above, JSON.stringify. */
async function floor(dialect: Dialect): Promise<void> {
  let all: (sql: string) => Promise<Record<string, unknown>[]>;
  let date: (value: unknown) => unknown;
  type Rows = Record<string, unknown>[];
  let pageAndCount: (() => Promise<[Rows, Rows]>) | undefined;
  if (dialect === 'sqlite') {
    const sqlite3 = (await import('sqlite3')).default;
    const db = new sqlite3.Database(SQLITE_FILE);
    all = (sql) =>
      new Promise((resolve, reject) =>
        db.all(sql, (error: Error | null, rows: Record<string, unknown>[]) => (error ? reject(error) : resolve(rows))),
      );
    date = (value) => (value === null ? null : new Date(value as string).toISOString());
  } else {
    // pg ships no types; this is all the floor uses of it.
    const driver = 'pg';
    const pg = (await import(driver)).default as {
      Pool: new (options: object) => { query(sql: string): Promise<{ rows: unknown[] }> };
    };
    const pool = new pg.Pool({ connectionString: PG_URL, max: POOL });
    all = async (sql) => (await pool.query(sql)).rows as Record<string, unknown>[];
    date = (value) => value;
    if (process.env['BENCH_FLOOR'] === 'snapshot') {
      const both = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${SEARCH_SQL(quote)}; ${COUNT_SQL(quote)}; COMMIT;`;
      pageAndCount = async () => {
        const results = (await pool.query(both)) as unknown as { rows: Rows }[];
        return [results[1]!.rows, results[2]!.rows];
      };
    }
  }
  const search = SEARCH_SQL(quote);
  const count = COUNT_SQL(quote);
  const options = OPTIONS_SQL(quote);
  const app = new Koa();
  cpuRoute(app);
  app.use(async (ctx) => {
    if (ctx.path === '/products/options') {
      const rows = await all(options);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({
        status: 'success',
        data: rows.map((row) => ({ label: row['label'], value: row['value'] })),
        meta: {},
      });
    } else if (ctx.path === '/products') {
      const [rows, counted] = await (pageAndCount?.() ?? Promise.all([all(search), all(count)]));
      for (const row of rows) {
        row['created_at'] = date(row['created_at']);
        row['deleted_at'] = date(row['deleted_at']);
      }
      const total = Number(counted[0]!['count']);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({
        status: 'success',
        data: rows,
        meta: { pagination: { current: 5, perPage: 40, pagesCount: Math.ceil(total / 40), count: total } },
      });
    }
  });
  await listen(app);
}

/** The library B of `BENCH_LIB_B`, served by the third server in place of the public executor. */
const LIB_B = process.env['BENCH_LIB_B'];

/**
 * The library: one resource, registered as an app would (`BENCH_FORM=class`: a class-form controller); with
 * `publicOnly`, held on the public executor (what a failed probe gives), or with `BENCH_LIB_B`, that copy of lib/.
 */
async function library(dialect: Dialect, publicOnly: boolean): Promise<void> {
  // BENCH_LIB=<dir> serves another copy of lib/ (say, an earlier commit's, from `git archive`) for a before/after figure.
  const entry = (publicOnly ? LIB_B : undefined) ?? process.env['BENCH_LIB'] ?? '../../lib/index.js';
  const { crud, resource, CrudController } = (await import(entry)) as typeof import('../../lib/index.js');
  const sequelize = connect(dialect);
  if (publicOnly && LIB_B === undefined) {
    const { observeExecution } = (await import(
      new URL('execute/state.js', new URL(entry, import.meta.url)).href
    )) as typeof import('../../lib/execute/state.js');
    observeExecution(sequelize, { force: () => 'public' });
  }
  const Product = define(sequelize);
  const router = new Router();
  if (process.env['BENCH_FORM'] === 'class') {
    class Products extends CrudController {
      override fillable = 'all' as const;
      modelClassName() {
        return Product;
      }
    }
    crud(router, 'products', Products, { only: ['search', 'options'] });
  } else crud(router, 'products', resource(Product, { policy: { fillable: 'all' }, actions: ['search', 'options'] }));
  const app = new Koa();
  cpuRoute(app);
  app.use(router.routes()).use(router.allowedMethods());
  await listen(app);
}

// ---------------------------------------------------------------- runner

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
}

/** The first port servers take, one after another (BENCH_PORTS=17300 by default, 100 ports). */
const FIRST_PORT = Number(process.env['BENCH_PORTS'] ?? 17300);
let nextPort = 0;

function start(side: Side, dialect: Dialect): Promise<Server> {
  const profile =
    process.env['BENCH_CPU_PROF'] === undefined
      ? []
      : [
          '--cpu-prof',
          `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`,
          `--cpu-prof-interval=${process.env['BENCH_CPU_PROF_INTERVAL'] ?? 1000}`,
        ];
  const env = { ...process.env, BENCH_PORT: String(FIRST_PORT + (nextPort++ % 100)) };
  const child = spawn(
    process.execPath,
    [...profile, '--import', 'tsx', fileURLToPath(import.meta.url), side, dialect],
    { stdio: ['ignore', 'pipe', 'inherit'], env },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined) resolve({ child, port: (JSON.parse(line) as { port: number }).port });
    });
    child.once('exit', (code) => reject(new Error(`${side} server exited with ${code}`)));
  });
}

/** Replaced each round: a pooled socket must never outlive the server it was opened to. */
let agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

function get(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString('utf8'))
            : reject(new Error(`${path}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8')}`)),
        );
      })
      .on('error', reject);
  });
}

/** The server's user and system CPU time so far, in microseconds. */
const cpu = async (port: number) => JSON.parse(await get(port, '/__cpu')) as { user: number; system: number };

interface Sample {
  readonly rps: number;
  /** Server CPU per request, in milliseconds. */
  readonly cpuMs: number;
  /** The part of `cpuMs` the kernel spent for the server (system time), in milliseconds. */
  readonly systemMs: number;
}

/** What one side did in a load: requests answered, seconds spent, server CPU in microseconds. */
interface Tally {
  done: number;
  seconds: number;
  cpuMicros: number;
  systemMicros: number;
}

/** 32 connections, each sending the next request when the last is answered, for `seconds`; adds what it did to `tally`. */
async function load(port: number, path: string, seconds: number, tally: Tally): Promise<void> {
  const before = await cpu(port);
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (performance.now() < until) {
        await get(port, path);
        tally.done += 1;
      }
    }),
  );
  tally.seconds += (performance.now() - started) / 1000;
  const after = await cpu(port);
  tally.cpuMicros += after.user + after.system - before.user - before.system;
  tally.systemMicros += after.system - before.system;
}

/**
 * Seconds of one slice (`BENCH_SLICE`): each round loads the two sides in turn, a slice at a time, so a machine that
 * speeds up or slows down meets both alike.
 */
const SLICE_SECONDS = Number(process.env['BENCH_SLICE'] ?? 0.5);

/**
 * Loads both servers for `seconds` each, in slices of `SLICE_SECONDS` that alternate A, B, B, A, …
 * (one 3 s window per side let a shared machine's drift between the windows move a round's ratio by ±15 %).
 */
async function loadInterleaved(
  ports: Partial<Record<Side, number>>,
  path: string,
  seconds: number,
): Promise<Partial<Record<Side, Sample>>> {
  const tallies = Object.fromEntries(
    SIDES.map((side) => [side, { done: 0, seconds: 0, cpuMicros: 0, systemMicros: 0 }]),
  ) as Record<Side, Tally>;
  const slices = Math.max(1, Math.round(seconds / SLICE_SECONDS));
  for (let slice = 0; slice < slices; slice += 1) {
    const order = slice % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) await load(ports[side]!, path, seconds / slices, tallies[side]);
  }
  const sample = ({ done, seconds: spent, cpuMicros, systemMicros }: Tally): Sample => ({
    rps: done / spent,
    cpuMs: cpuMicros / 1000 / done,
    systemMs: systemMicros / 1000 / done,
  });
  return Object.fromEntries(SIDES.map((side) => [side, sample(tallies[side])]));
}

/**
 * Seconds each server is loaded before it is measured (`BENCH_WARM`), with the measured load itself (32 connections):
 * V8 is still optimizing the request path for several seconds after start, longer for the library, which has more code,
 * and it re-optimizes when the load changes, so a shorter or lighter warm-up puts compilation into the measured CPU.
 */
const WARM_SECONDS = Number(process.env['BENCH_WARM'] ?? 10);

async function warm(port: number, path: string): Promise<void> {
  await load(port, path, WARM_SECONDS, { done: 0, seconds: 0, cpuMicros: 0, systemMicros: 0 });
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function run(rounds: number, seconds: number, only: Dialect | undefined): Promise<void> {
  mkdirSync('.tmp', { recursive: true });
  const dialects: Dialect[] =
    only !== undefined ? [only] : (await postgresAnswers(PG_URL)) ? ['sqlite', 'postgres'] : ['sqlite'];
  console.log(
    `search/options benchmark: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const dialect of dialects) {
    await fill(dialect);
    const samples: Record<Workload, Record<Side, Sample[]>> = {
      options: { floor: [], library: [], public: [] },
      search: { floor: [], library: [], public: [] },
    };
    for (let round = 0; round < rounds; round += 1) {
      const servers: Partial<Record<Side, Server>> = {};
      for (const side of SIDES) servers[side] = await start(side, dialect);
      const ports = Object.fromEntries(SIDES.map((side) => [side, servers[side]!.port]));
      try {
        for (const workload of RUN) {
          const path = WORKLOADS[workload];
          const answers = await Promise.all(SIDES.map((side) => get(ports[side]!, path)));
          for (const [i, answer] of answers.entries()) {
            if (answer !== answers[0])
              throw new Error(
                `${dialect} ${workload}: the answers differ\nfloor:   ${answers[0]!.slice(0, 400)}\n${SIDES[i]}: ${answer.slice(0, 400)}`,
              );
          }
          for (const side of SIDES) await warm(ports[side]!, path);
          const sampled = await loadInterleaved(ports, path, seconds);
          for (const side of SIDES) samples[workload][side].push(sampled[side]!);
        }
      } finally {
        agent.destroy();
        agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
        for (const side of SIDES) servers[side]?.child.kill();
      }
    }
    console.log(
      `\n${dialect}, ${ROWS} products (${LIVE} live), ${rounds} rounds of ${seconds} s per side, 32 connections`,
    );
    for (const workload of RUN) {
      const { floor: f } = samples[workload];
      const figures = (side: Side) => {
        const s = samples[workload][side];
        return (
          `    ${side.padEnd(7)} ${median(s.map((x) => x.rps))
            .toFixed(0)
            .padStart(6)} req/s, ${median(s.map((x) => x.cpuMs)).toFixed(3)} ms CPU/request ` +
          `(user ${median(s.map((x) => x.cpuMs - x.systemMs)).toFixed(3)}, system ${median(s.map((x) => x.systemMs)).toFixed(3)})\n`
        );
      };
      const ratio = (side: Side, name: string) => {
        const s = samples[workload][side];
        const ratios = s.map((sample, i) => sample.rps / f[i]!.rps);
        const cpuRatios = s.map((sample, i) => f[i]!.cpuMs / sample.cpuMs);
        const rounds = ratios.map((r) => r.toFixed(2)).join(' ');
        return `    ratio ${name}/floor: throughput ${median(ratios).toFixed(2)}× (rounds ${rounds}), CPU ${median(cpuRatios).toFixed(2)}×\n`;
      };
      const others = SIDES.filter((side) => side !== 'floor');
      const names: Record<Side, string> = {
        floor: 'floor',
        library: 'library (fast executor)',
        public: LIB_B === undefined ? 'library (public executor)' : 'library B (BENCH_LIB_B)',
      };
      process.stdout.write(
        `  ${workload.padEnd(8)} ${WORKLOADS[workload]}\n${SIDES.map(figures).join('')}${others.map((side) => ratio(side, names[side])).join('')}`,
      );
    }
  }
  console.log(
    `\nload average after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  agent.destroy();
}

const [mode = 'run', ...args] = process.argv.slice(2);
// tsx turns source maps on; an app in production runs compiled JavaScript without them, and with
// them every Error.stack Sequelize reads (one per SQLite query) costs a source-map lookup.
if (mode !== 'run') process.setSourceMapsEnabled(false);
if (mode === 'floor') await floor(args[0] as Dialect);
else if (mode === 'library' || mode === 'public') await library(args[0] as Dialect, mode === 'public');
else await run(Number(args[0] ?? 3), Number(args[1] ?? 3), args[2] as Dialect | undefined);
