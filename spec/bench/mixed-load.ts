/**
 * Mixed load against a server in its own process (so the load generator's memory and CPU stay out of its figures).
 *   write-mix [seconds] [clients] [sqlite,sqlite-wal,postgres]
 *       64 clients (by default) looping over every write action (create, PATCH, PUT, softDelete, restore,
 *       delete) with reads in between, on one SQLite file (rollback journal, then WAL) and on PostgreSQL
 *       (FAST_CRUD_PG_URL, when it answers): requests/s, p50 and p99, 5xx and hangs; ratios against PostgreSQL.
 *   soak [minutes] [postgres|sqlite-wal] [clients]
 *       the same mix plus searches, options and small exports for N minutes (10 by default), sampling the
 *       server's RSS and heap after a full GC every 30 s: flat or growing, with the slope over the second half.
 *   server <database>    (internal) the server process both modes start.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { Sequelize } from 'sequelize';
import { crud, resource } from '../../lib/index.js';
import { defineCatalog, syncCatalog } from '../support/catalog.js';
import { postgresAnswers } from '../support/databases.js';

type Database = 'sqlite' | 'sqlite-wal' | 'postgres';
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const SEEDS = 200;

/** A memory sample from the server process. */
interface Sample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly rssAfterGc: number;
  readonly heapAfterGc: number;
}

// ---------------------------------------------------------------------------------------------- server

async function runServer(database: Database): Promise<void> {
  const file = '.tmp/bench-mixed-load.sqlite';
  const sequelize =
    database === 'postgres'
      ? new Sequelize(PG_URL, { logging: false })
      : (mkdirSync('.tmp', { recursive: true }),
        [file, `${file}-wal`, `${file}-shm`, `${file}-journal`].forEach((f) => rmSync(f, { force: true })),
        new Sequelize({ dialect: 'sqlite', storage: file, logging: false }));
  if (database === 'sqlite-wal') await sequelize.query('PRAGMA journal_mode = WAL');
  const catalog = defineCatalog(sequelize, 'benchmix');
  await syncCatalog(catalog);
  const categories = await catalog.Category.bulkCreate(
    Array.from({ length: 10 }, (_, i) => ({ name: `category ${i}` })),
  );
  const rows = await catalog.Product.bulkCreate(
    Array.from({ length: SEEDS }, (_, i) => ({
      sku: `SEED-${i}`,
      name: `product ${i}`,
      price: i % 90,
      stock: i,
      tags: ['a', `t${i % 7}`],
      categoryId: categories[i % 10]!.get('id'),
    })),
  );
  const router = new Router();
  crud(
    router,
    'products',
    resource(catalog.Product, {
      policy: { fillable: ['sku', 'name', 'price', 'stock', 'tags', 'categoryId'], hidden: ['secret'] },
      search: { termFields: ['name'] },
      relations: { category: { include: true, filterable: ['name'] } },
    }),
  );
  const app = new Koa().use(router.routes());
  app.silent = true;
  let faults = 0;
  app.on('error', () => faults++);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const gc = (globalThis as { gc?: () => void }).gc!;
  process.on('message', (message: string) => {
    if (message === 'sample') {
      const before = process.memoryUsage();
      gc();
      gc();
      const afterGc = process.memoryUsage();
      process.send!({
        rss: before.rss,
        heapUsed: before.heapUsed,
        rssAfterGc: afterGc.rss,
        heapAfterGc: afterGc.heapUsed,
        faults,
      } satisfies Sample & { faults: number });
    }
    if (message === 'stop') server.close(() => void sequelize.close().then(() => process.exit(0)));
  });
  process.send!({ port: (server.address() as AddressInfo).port, ids: rows.map((row) => row.get('id') as string) });
}

/** Starts a server process on `database`; resolves with its address and seed ids. */
async function startServer(database: Database): Promise<{ child: ChildProcess; url: string; ids: string[] }> {
  const child = fork(fileURLToPath(import.meta.url), ['server', database], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: 'inherit',
  });
  const { port, ids } = await new Promise<{ port: number; ids: string[] }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { port: number; ids: string[] }));
    child.once('exit', (code) => reject(new Error(`the ${database} server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, ids };
}

function sample(child: ChildProcess): Promise<Sample & { faults: number }> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Sample & { faults: number }));
    child.send('sample');
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

// ---------------------------------------------------------------------------------------------- load

/** What a load run counts. */
class Tally {
  readonly latencies: number[] = [];
  readonly statuses = new Map<number, number>();
  hangs = 0;

  add(status: number | undefined, ms: number): void {
    if (status === undefined) this.hangs++;
    else this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.latencies.push(ms);
  }

  get serverErrors(): number {
    return [...this.statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  }

  percentile(p: number): number {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  }
}

/**
 * One client's endless loop until `deadline`: every write action on one of the first 20 seed rows (shared
 * with other clients, so writes race), a hard delete of a row it created, and reads; with `reads`, also
 * searches with filters, options and a small export.
 */
async function client(
  url: string,
  ids: readonly string[],
  c: number,
  deadline: number,
  tally: Tally,
  reads: boolean,
): Promise<void> {
  const send = async (method: string, path: string, body?: object): Promise<string | undefined> => {
    const started = performance.now();
    try {
      const init =
        body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
      const response = await fetch(url + path, { ...init, method, signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      tally.add(response.status, performance.now() - started);
      return response.status < 300 ? text : undefined;
    } catch {
      tally.add(undefined, performance.now() - started);
      return undefined;
    }
  };
  for (let n = 0; performance.now() < deadline; n++) {
    const id = ids[(c + n) % 20]!;
    const created = await send('POST', '/products', {
      sku: `C${c}-${n}-${Math.random().toString(36).slice(2, 8)}`,
      name: `client ${c}`,
      price: n % 50,
      tags: ['x'],
    });
    await send('PATCH', `/products/${id}`, { stock: n });
    await send('GET', `/products/${id}`);
    await send('DELETE', `/products/${id}/soft`);
    await send('PATCH', `/products/${id}/restore`);
    await send('PUT', `/products/${id}`, { name: `put ${c} ${n}` });
    await send('GET', '/products?sort=-price&perPage=10');
    if (reads) {
      await send(
        'GET',
        `/products?filter[price][gte]=${n % 50}&filter[category.name][like]=category&include=category&sort=name&perPage=20`,
      );
      await send('GET', '/products/options?label=name&filter[name][like]=product 1');
      if (n % 10 === 0) await send('GET', '/products/export-csv?filter[price][lt]=5');
    }
    if (created !== undefined)
      await send('DELETE', `/products/${(JSON.parse(created) as { data: { id: string } }).data.id}`);
  }
}

async function load(url: string, ids: readonly string[], clients: number, ms: number, reads: boolean): Promise<Tally> {
  const tally = new Tally();
  const deadline = performance.now() + ms;
  await Promise.all(Array.from({ length: clients }, (_, c) => client(url, ids, c, deadline, tally, reads)));
  return tally;
}

// ---------------------------------------------------------------------------------------------- modes

async function writeMix(seconds: number, clients: number, databases: Database[]): Promise<void> {
  if (databases.includes('postgres') && !(await postgresAnswers(PG_URL))) {
    console.log(`PostgreSQL does not answer at ${PG_URL.replace(/\/\/[^@]*@/, '//')}: skipped`);
    databases = databases.filter((d) => d !== 'postgres');
  }
  console.log(
    `write mix: ${clients} clients, ${seconds} s per database, each looping create, PATCH, GET, softDelete, restore, PUT, search, delete`,
  );
  const results = new Map<Database, { rps: number; p50: number; p99: number }>();
  for (const database of databases) {
    const { child, url, ids } = await startServer(database);
    await load(url, ids, 4, 2000, false); // warm-up
    const tally = await load(url, ids, clients, seconds * 1000, false);
    await stopServer(child);
    const rps = tally.latencies.length / seconds;
    results.set(database, { rps, p50: tally.percentile(50), p99: tally.percentile(99) });
    const statuses = [...tally.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    console.log(
      `${database.padEnd(11)} ${rps.toFixed(0).padStart(5)} req/s  p50 ${tally.percentile(50).toFixed(0).padStart(5)} ms  p99 ${tally.percentile(99).toFixed(0).padStart(5)} ms  5xx ${tally.serverErrors}  hangs ${tally.hangs}  (${statuses})`,
    );
  }
  const baseline = results.get('postgres');
  if (baseline !== undefined) {
    for (const [database, r] of results)
      if (database !== 'postgres')
        console.log(
          `${database} / postgres: throughput ×${(r.rps / baseline.rps).toFixed(2)}, p99 ×${(r.p99 / baseline.p99).toFixed(2)}`,
        );
  }
}

async function soak(minutes: number, database: Database, clients: number): Promise<void> {
  if (database === 'postgres' && !(await postgresAnswers(PG_URL))) {
    console.log(`PostgreSQL does not answer: soaking sqlite-wal instead`);
    database = 'sqlite-wal';
  }
  const { child, url, ids } = await startServer(database);
  const first = await sample(child);
  console.log(
    `soak on ${database}: ${clients} clients, ${minutes} min of mixed load (every write, searches, options, exports); a sample every 30 s`,
  );
  console.log('minute   requests   5xx  hangs    RSS MB  heap MB   after GC: RSS MB  heap MB');
  const line = (minute: number, s: Sample, t?: Tally) =>
    console.log(
      `${minute.toFixed(1).padStart(6)} ${String(t?.latencies.length ?? 0).padStart(10)} ${String(t?.serverErrors ?? 0).padStart(5)} ${String(t?.hangs ?? 0).padStart(6)} ${(s.rss / 2 ** 20).toFixed(0).padStart(9)} ${(s.heapUsed / 2 ** 20).toFixed(1).padStart(8)} ${(s.rssAfterGc / 2 ** 20).toFixed(0).padStart(18)} ${(s.heapAfterGc / 2 ** 20).toFixed(1).padStart(8)}`,
    );
  line(0, first);
  const samples: { minute: number; sample: Sample }[] = [];
  const tally = new Tally();
  const started = performance.now();
  const deadline = started + minutes * 60_000;
  const running = Promise.all(Array.from({ length: clients }, (_, c) => client(url, ids, c, deadline, tally, true)));
  let peakRss = first.rss;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, Math.max(0, deadline - performance.now()))));
    const s = await sample(child);
    peakRss = Math.max(peakRss, s.rss);
    const minute = (performance.now() - started) / 60_000;
    samples.push({ minute, sample: s });
    line(minute, s, tally);
  }
  await running;
  const last = await sample(child);
  await stopServer(child);
  // Least-squares slope of the heap after GC over the second half: the leak rate, if any.
  const half = samples.filter((s) => s.minute >= minutes / 2);
  const slope = (key: 'heapAfterGc' | 'rssAfterGc') => {
    const xs = half.map((s) => s.minute);
    const ys = half.map((s) => s.sample[key] / 2 ** 20);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    const num = xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i]! - my), 0);
    const den = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
    return den === 0 ? 0 : num / den;
  };
  const heapSlope = slope('heapAfterGc');
  const rssSlope = slope('rssAfterGc');
  const early = samples[0]?.sample ?? first;
  console.log(
    `${tally.latencies.length} requests (${(tally.latencies.length / (minutes * 60)).toFixed(0)}/s), p99 ${tally.percentile(99).toFixed(0)} ms, 5xx ${tally.serverErrors}, hangs ${tally.hangs}, server faults ${last.faults}`,
  );
  console.log(
    `RSS: ${(first.rss / 2 ** 20).toFixed(0)} MB idle, ${(peakRss / 2 ** 20).toFixed(0)} MB peak, ${(last.rssAfterGc / 2 ** 20).toFixed(0)} MB after GC at the end`,
  );
  console.log(
    `heap after GC: ${(early.heapAfterGc / 2 ** 20).toFixed(1)} MB at the first sample, ${(last.heapAfterGc / 2 ** 20).toFixed(1)} MB at the end (×${(last.heapAfterGc / early.heapAfterGc).toFixed(2)})`,
  );
  console.log(
    `slope over the second half: heap ${heapSlope.toFixed(3)} MB/min, RSS ${rssSlope.toFixed(3)} MB/min → ${heapSlope < 0.1 ? 'flat' : 'GROWING: look for a leak'}`,
  );
}

const [mode = 'write-mix', ...args] = process.argv.slice(2);
if (mode === 'server') await runServer(args[0] as Database);
else if (mode === 'soak')
  await soak(Number(args[0] ?? 10), (args[1] as Database | undefined) ?? 'postgres', Number(args[2] ?? 32));
else
  await writeMix(
    Number(args[0] ?? 20),
    Number(args[1] ?? 64),
    (args[2]?.split(',') as Database[] | undefined) ?? ['sqlite', 'sqlite-wal', 'postgres'],
  );
