/**
 * Benchmark: batch writes against the same records written by single requests, on SQLite and PostgreSQL (MariaDB too
 * when asked for by name).
 *   - update: one `PATCH <uri>?filter[id][in]=…` over N records against N single `PATCH <uri>/{id}`;
 *   - create: one `POST <uri>` with an array of N objects against N single `POST <uri>`.
 * The server runs in its own process (its CPU and memory are its own); the single requests come 8 in flight over a
 * keep-alive agent, as an admin app's per-id fallback sends them. Figures are records per second, medians over the
 * rounds, and their ratio in the same run (target ≥ 20×); the server's heap and RSS growth over a batch request
 * (sampled every 2 ms, after a GC before it) bounds a batch's memory.
 *   npm run bench -- batch [records=1000] [rounds=3] [sqlite,postgres]
 *   npm run bench -- batch 1000 3 mariadb
 * PostgreSQL is FAST_CRUD_PG_URL (skipped when it does not answer), MariaDB FAST_CRUD_MARIADB_URL. BENCH_CPU_PROF=<dir>
 * writes V8's CPU profile of the server over each batch request there (`<database>-<post|patch>-<round>.cpuprofile`);
 * BENCH_LIB=<dir>/lib/index.ts serves another copy of lib/ (say, an earlier commit's, from `git archive`) for a
 * before/after figure.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { postgresAnswers } from '../support/databases.js';

type Database = 'sqlite' | 'postgres' | 'mariadb';
const self = fileURLToPath(import.meta.url);
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const MARIADB_URL = process.env['FAST_CRUD_MARIADB_URL'] ?? 'mariadb://root@127.0.0.1:3306/test';
const IN_FLIGHT = 8;

// ---------------------------------------------------------------------------------------------- server

async function server(database: Database): Promise<void> {
  // BENCH_LIB=<dir>/lib/index.ts serves another copy of lib/ (an earlier commit's, from `git archive`): before/after.
  const entry = process.env['BENCH_LIB'] ?? '../../lib/index.js';
  const { crud, resource } = (await import(entry)) as typeof import('../../lib/index.js');
  const sequelize =
    database === 'postgres'
      ? new Sequelize(PG_URL, { logging: false })
      : database === 'mariadb'
        ? new Sequelize(MARIADB_URL, { logging: false })
        : new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const Item = sequelize.define(
    'BenchBatchItem',
    {
      id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
      sku: { type: DataTypes.STRING(40), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(80), allowNull: false },
      price: { type: DataTypes.INTEGER, allowNull: true, validate: { min: 0 } },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'bench_batch_items', underscored: true },
  );
  await Item.sync({ force: true });
  const router = new Router({ prefix: '/api' });
  crud(router, 'items', resource(Item, { policy: { fillable: ['sku', 'name', 'price'] }, batch: true }), {
    config: { global: { find_field_is_uuid: false } },
  });
  const gc = (globalThis as { gc?: () => void }).gc!;
  let peak = 0;
  let base = 0;
  let rssPeak = 0;
  let rssBase = 0;
  let sampler: NodeJS.Timeout | undefined;
  // BENCH_CPU_PROF=<dir>: V8's CPU profile of the server over each batch request, one file per request.
  const profiles = process.env['BENCH_CPU_PROF'];
  const profiler = profiles === undefined ? undefined : new Session();
  profiler?.connect();
  await profiler?.post('Profiler.enable');
  await profiler?.post('Profiler.setSamplingInterval', { interval: 100 });
  const app = new Koa();
  app.use(async (ctx, next) => {
    if (ctx.path === '/__reset') {
      await Item.truncate({ restartIdentity: true } as never);
      ctx.body = { ok: true };
    } else if (ctx.path === '/__seed') {
      const count = Number(ctx.query['count']);
      await Item.bulkCreate(
        Array.from({ length: count }, (_, i) => ({ sku: `seed-${i}`, name: `item ${i}`, price: i })),
      );
      ctx.body = { ids: (await Item.findAll({ attributes: ['id'], order: [['id', 'ASC']] })).map((r) => r.get('id')) };
    } else if (ctx.path === '/__cpu') {
      const { user, system } = process.cpuUsage();
      ctx.body = { micros: user + system };
    } else if (ctx.path === '/__mem/start') {
      gc();
      ({ heapUsed: base, rss: rssBase } = process.memoryUsage());
      peak = base;
      rssPeak = rssBase;
      const sample = () => {
        const { heapUsed, rss } = process.memoryUsage();
        peak = Math.max(peak, heapUsed);
        rssPeak = Math.max(rssPeak, rss);
      };
      sampler = setInterval(sample, 2);
      await profiler?.post('Profiler.start');
      ctx.body = { ok: true };
    } else if (ctx.path === '/__mem/stop') {
      clearInterval(sampler);
      const { heapUsed, rss } = process.memoryUsage();
      peak = Math.max(peak, heapUsed);
      rssPeak = Math.max(rssPeak, rss);
      if (profiler !== undefined) {
        const { profile } = await profiler.post('Profiler.stop');
        mkdirSync(profiles!, { recursive: true });
        writeFileSync(`${profiles}/${database}-${String(ctx.query['name'])}.cpuprofile`, JSON.stringify(profile));
      }
      ctx.body = { growth: peak - base, rss: rssPeak - rssBase };
    } else await next();
  });
  app.use(router.routes());
  app.silent = true;
  const listening = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
  process.send!({ port: (listening.address() as { port: number }).port });
}

// ---------------------------------------------------------------------------------------------- load

function send(agent: Agent, port: number, method: string, path: string, body?: unknown) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers:
          payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Sends every request, `IN_FLIGHT` at a time; checks each status. Milliseconds taken. */
async function many(
  agent: Agent,
  port: number,
  requests: readonly { method: string; path: string; body?: unknown }[],
  status: number,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const reply = await send(agent, port, r.method, r.path, r.body);
        if (reply.status !== status) throw new Error(`${r.method} ${r.path}: ${reply.status} ${reply.body}`);
      }
    }),
  );
  return performance.now() - started;
}

async function one(agent: Agent, port: number, method: string, path: string, body: unknown, status: number) {
  const started = performance.now();
  const reply = await send(agent, port, method, path, body);
  const ms = performance.now() - started;
  if (reply.status !== status) throw new Error(`${method} ${path}: ${reply.status} ${reply.body.slice(0, 300)}`);
  return { ms, records: (JSON.parse(reply.body) as { data: unknown[] }).data.length };
}

async function start(database: Database): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(self, ['server', database], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${database} server exited with ${code}`)));
  });
  return { child, port };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const MB = 1024 * 1024;

async function measure(database: Database, records: number, rounds: number) {
  const { child, port } = await start(database);
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const figures = { patchSingle: [] as number[], patchBatch: [] as number[], postSingle: [] as number[] };
  // The server's CPU microseconds per record of each phase: steadier than wall time on a busy machine.
  const cpu = {
    patchSingle: [] as number[],
    patchBatch: [] as number[],
    postSingle: [] as number[],
    postBatch: [] as number[],
  };
  const more = {
    postBatch: [] as number[],
    patchMemory: [] as number[],
    postMemory: [] as number[],
    patchRss: [] as number[],
    postRss: [] as number[],
  };
  const memory = async (name: string, heap: number[], rss: number[]) => {
    const grown = await json(`/__mem/stop?name=${name}`);
    heap.push((grown['growth'] as unknown as number) / MB);
    rss.push((grown['rss'] as unknown as number) / MB);
  };
  const cpuOf = async () => (await json('/__cpu'))['micros'] as unknown as number;
  const json = async (path: string) => JSON.parse((await send(agent, port, 'GET', path)).body) as Record<string, never>;
  try {
    for (let round = 0; round < rounds; round += 1) {
      // Update: N single PATCHes, then one PATCH by filter over the same N records.
      await json('/__reset');
      const ids = (await json(`/__seed?count=${records}`))['ids'] as unknown as number[];
      const singles = ids.map((id) => ({
        method: 'PATCH',
        path: `/api/items/${id}`,
        body: { name: `single ${round}` },
      }));
      let used = await cpuOf();
      figures.patchSingle.push((records / (await many(agent, port, singles, 200))) * 1000);
      cpu.patchSingle.push(((await cpuOf()) - used) / records);
      await json('/__mem/start');
      used = await cpuOf();
      const patched = await one(
        agent,
        port,
        'PATCH',
        `/api/items?filter[id][in]=${ids.join(',')}`,
        { name: `batch ${round}` },
        200,
      );
      cpu.patchBatch.push(((await cpuOf()) - used) / records);
      await memory(`patch-${round}`, more.patchMemory, more.patchRss);
      if (patched.records !== records) throw new Error(`PATCH by filter updated ${patched.records} records`);
      figures.patchBatch.push((records / patched.ms) * 1000);
      // Create: N single POSTs, then one array POST of N items.
      await json('/__reset');
      const item = (prefix: string, i: number) => ({ sku: `${prefix}-${round}-${i}`, name: `item ${i}`, price: i });
      const posts = Array.from({ length: records }, (_, i) => ({
        method: 'POST',
        path: '/api/items',
        body: item('one', i),
      }));
      used = await cpuOf();
      figures.postSingle.push((records / (await many(agent, port, posts, 201))) * 1000);
      cpu.postSingle.push(((await cpuOf()) - used) / records);
      await json('/__mem/start');
      used = await cpuOf();
      const body = Array.from({ length: records }, (_, i) => item('many', i));
      const created = await one(agent, port, 'POST', '/api/items', body, 201);
      cpu.postBatch.push(((await cpuOf()) - used) / records);
      await memory(`post-${round}`, more.postMemory, more.postRss);
      if (created.records !== records) throw new Error(`The array POST created ${created.records} records`);
      more.postBatch.push((records / created.ms) * 1000);
    }
  } finally {
    agent.destroy();
    await new Promise((resolve) => (child.once('exit', resolve), child.kill()));
  }
  return {
    patch: {
      cpuSingle: median(cpu.patchSingle),
      cpuBatch: median(cpu.patchBatch),
      single: median(figures.patchSingle),
      batch: median(figures.patchBatch),
      memory: Math.max(...more.patchMemory),
      rss: Math.max(...more.patchRss),
    },
    post: {
      cpuSingle: median(cpu.postSingle),
      cpuBatch: median(cpu.postBatch),
      single: median(figures.postSingle),
      batch: median(more.postBatch),
      memory: Math.max(...more.postMemory),
      rss: Math.max(...more.postRss),
    },
  };
}

async function main(records: number, rounds: number, wanted: readonly Database[]): Promise<void> {
  console.log(
    `Batch writes of ${records} records against ${records} single requests (${IN_FLIGHT} in flight), ${rounds} rounds`,
  );
  console.log(
    `  ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const database of wanted) {
    if (database === 'postgres' && !(await postgresAnswers(PG_URL))) {
      console.log(`  postgres: skipped, nothing answers at ${PG_URL.replace(/\/\/[^@]*@/, '//')}`);
      continue;
    }
    const { patch, post } = await measure(database, records, rounds);
    const line = (
      name: string,
      f: { single: number; batch: number; memory: number; rss: number; cpuSingle: number; cpuBatch: number },
    ) =>
      console.log(
        `  ${database.padEnd(8)} ${name.padEnd(28)} single ${f.single.toFixed(0).padStart(6)} records/s   batch ` +
          `${f.batch.toFixed(0).padStart(7)} records/s   ratio ${(f.batch / f.single).toFixed(1).padStart(5)}×   ` +
          `heap growth ${f.memory.toFixed(1)} MB   RSS growth ${f.rss.toFixed(1)} MB   server CPU/record ${f.cpuSingle.toFixed(0)} µs against ` +
          `${f.cpuBatch.toFixed(0)} µs (${(f.cpuSingle / f.cpuBatch).toFixed(1)}×)`,
      );
    line('PATCH by filter vs PATCH {id}', patch);
    line('array POST vs POST', post);
  }
}

const [mode = 'run', ...rest] = process.argv.slice(2);
if (mode === 'server') await server(rest[0] as Database);
else await main(Number(rest[0] ?? 1000), Number(rest[1] ?? 3), (rest[2] ?? 'sqlite,postgres').split(',') as Database[]);
