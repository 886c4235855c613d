/**
 * Benchmark: the change feed on PostgreSQL across two app processes (spec/bench/live.ts runs it after its one-process
 * figures; `npm run bench -- live`).
 *   - latency: app process A takes `POST <uri>` at a steady rate (200 writes/s), sent open-loop by this process on a
 *     schedule (a write is sent at its time whether or not the ones before it were answered, so a slow server cannot
 *     hide its delay by slowing the client); subscribers on process B (the cross-process path: NOTIFY → LISTEN → an
 *     outbox read) and on A (its own writes) are read by this same process, so one clock times each event from the
 *     write's reply (and from the time the write was due) to its arrival; p50/p95/p99/max and events lost (target:
 *     p99 ≤ 100 ms, none lost);
 *   - fan-out: N idle subscribers (1,000) split between A and B, each process's RSS growth after a GC (its own, no
 *     client socket in it), then writes at a lower steady rate, each event timed from the write's reply to its arrival
 *     at every subscriber (p99 target ≤ 250 ms).
 * The app processes are forked from this file (`--expose-gc`), listen on 127.0.0.1 ports 18500 and 18501 (BENCH_PORTS
 * overrides: `18500,18501`) and connect to FAST_CRUD_PG_URL (table `lvk_bench_items` and the outbox);
 * `BENCH_CPU_PROF=<dir>` writes V8's CPU profiles of each under `<dir>/app-<port>/` (the largest is the main thread's).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { crud, resource } from '../../lib/index.js';
import { outboxModel } from '../../lib/execute/live-outbox.js';

/** What the two-process run takes. */
export interface TwoProcessOptions {
  readonly url: string;
  /** Writes per second of the latency run, and its length in seconds. */
  readonly rate: number;
  readonly seconds: number;
  /** Subscribers of the latency run on each process. */
  readonly watchers: number;
  /** Idle subscribers of the fan-out run, over both processes, and its writes and their rate. */
  readonly subscribers: number;
  readonly fanOutWrites: number;
  readonly fanOutRate: number;
}

function defineItems(sequelize: Sequelize): ModelStatic<Model> {
  return sequelize.define(
    'LvkBenchItem',
    {
      id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
      name: { type: DataTypes.STRING(80), allowNull: false },
    },
    { tableName: 'lvk_bench_items', timestamps: false },
  );
}

// ---------------------------------------------------------------------------------------------- app process

/** An app process: the live items resource at `/items`, its RSS after a GC and its CPU on request, until `stop`. */
async function serveApp(url: string, port: number): Promise<void> {
  const sequelize = new Sequelize(url, { logging: false, pool: { max: 10 } });
  const router = new Router();
  const config = { global: { find_field_is_uuid: false }, live: { max_subscribers: 100_000 } };
  crud(router, 'items', resource(defineItems(sequelize), { policy: { fillable: ['name'] }, live: true }), { config });
  const gc = (globalThis as { gc?: () => void }).gc!;
  const app = new Koa();
  app.silent = true;
  let faults = 0;
  app.on('error', () => faults++);
  app.use(async (ctx, next) => {
    if (ctx.path !== '/bench/sample') return next();
    gc();
    gc();
    const { user, system } = process.cpuUsage();
    ctx.body = { rss: process.memoryUsage().rss, cpuMs: (user + system) / 1000, faults };
  });
  app.use(router.routes());
  const server = app.listen(port, '127.0.0.1');
  // Idle keep-alive sockets stay open between the runs: a socket the server closes as the client reuses it is a reset.
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  // The bench process gone, however it went: so is this one.
  process.once('disconnect', () => process.exit(1));
  process.on('message', (message) => {
    if (message !== 'stop') return;
    server.closeAllConnections();
    server.close(() => void sequelize.close().then(() => process.exit(0)));
  });
  process.send!('listening');
}

async function startApp(url: string, port: number): Promise<ChildProcess> {
  const profiles = process.env['BENCH_CPU_PROF'];
  const child = fork(fileURLToPath(import.meta.url), ['app', url, String(port)], {
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      ...(profiles === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profiles}/app-${port}`]),
    ],
    stdio: 'inherit',
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the app process on port ${port} exited with ${code}`)));
  });
  return child;
}

async function stopApp(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

// ---------------------------------------------------------------------------------------------- client

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(port: number, method: string, path: string, body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json' };
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        (res.statusCode ?? 0) < 300 ? resolve(text) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function sample(port: number): Promise<{ rss: number; cpuMs: number; faults: number }> {
  return JSON.parse(await send(port, 'GET', '/bench/sample')) as { rss: number; cpuMs: number; faults: number };
}

/** One open stream: when each record's `created` event came (this process's clock), and whether it ended early. */
interface Watcher {
  readonly arrivals: Map<string, number>;
  readonly ended: () => boolean;
  readonly destroy: () => void;
}

/** Opens `GET /items/changes` on `port` without an agent (a socket each) and resolves once its headers came. */
function watch(port: number): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<string, number>();
    let ended = false;
    let destroyed = false;
    const req = request({ host: '127.0.0.1', port, path: '/items/changes', agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET /items/changes on ${port}: ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now();
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (!block.includes('event: created')) continue;
          const data = /^data: (.*)$/m.exec(block)?.[1];
          for (const id of (JSON.parse(data ?? '{"ids":[]}') as { ids: string[] }).ids) arrivals.set(id, now);
        }
      });
      res.on('error', () => undefined);
      res.once('close', () => (ended = !destroyed));
      resolve({
        arrivals,
        ended: () => ended,
        destroy: () => ((destroyed = true), req.destroy()),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** One write of a paced run: when it was due, when its reply came, and the record's id. */
interface Write {
  readonly due: number;
  replied: number;
  id: string;
}

/**
 * Sends `count` creates to `port` at `rate` per second, open-loop: write i is sent at start + i / rate, whatever the
 * replies before it; resolves once every reply came.
 */
async function paced(port: number, count: number, rate: number): Promise<Write[]> {
  const writes: Write[] = [];
  const replies: Promise<void>[] = [];
  const start = performance.now() + 20;
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const write: Write = { due, replied: NaN, id: '' };
    writes.push(write);
    replies.push(
      send(port, 'POST', '/items', JSON.stringify({ name: `w${i}` })).then((text) => {
        write.replied = performance.now();
        write.id = String((JSON.parse(text) as { data: { id: number } }).data.id);
      }),
    );
    // Caught here, thrown by the Promise.all below: a write that fails while later ones are due ends the run.
    replies[i]!.catch(() => undefined);
  }
  await Promise.all(replies);
  return writes;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function describe(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => percentile(sorted, p).toFixed(1);
  return `p50 ${at(50)}, p95 ${at(95)}, p99 ${at(99)}, max ${(sorted[sorted.length - 1] ?? NaN).toFixed(1)} ms`;
}

/** The latencies of the writes' events at the watchers (from `from` of each write), and the events that never came. */
function arrivalsOf(writes: readonly Write[], watchers: readonly Watcher[], from: 'replied' | 'due') {
  const latencies: number[] = [];
  let lost = 0;
  const closed = watchers.filter((watcher) => watcher.ended()).length;
  if (closed > 0 && from === 'replied')
    console.log(`  ${closed} of ${watchers.length} streams were closed by the server`);
  for (const watcher of watchers)
    for (const write of writes) {
      const at = watcher.arrivals.get(write.id);
      if (at === undefined) lost++;
      else latencies.push(at - write[from]);
    }
  return { latencies, lost };
}

const load = () =>
  `load ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The two-process run: prints the latency and the fan-out figures.
 * @example await twoProcesses({ url, rate: 200, seconds: 10, watchers: 4, subscribers: 1000, ... });
 */
export async function twoProcesses(options: TwoProcessOptions): Promise<void> {
  const sequelize = new Sequelize(options.url, { logging: false });
  await defineItems(sequelize).sync({ force: true });
  await outboxModel(sequelize).sync({ force: true });
  await sequelize.close();
  const [portA, portB] = (process.env['BENCH_PORTS'] ?? '18500,18501').split(',').map(Number) as [number, number];
  const a = await startApp(options.url, portA);
  const b = await startApp(options.url, portB);
  try {
    // Latency at a steady rate: warm both processes (connections, plans), then the measured run.
    const onB = await Promise.all(Array.from({ length: options.watchers }, () => watch(portB)));
    const onA = await Promise.all(Array.from({ length: options.watchers }, () => watch(portA)));
    await paced(portA, options.rate, options.rate);
    await settle(500);
    const cpuBefore = await Promise.all([sample(portA), sample(portB)]);
    const writes = await paced(portA, options.rate * options.seconds, options.rate);
    const lastReply = Math.max(...writes.map((write) => write.replied));
    // Past the feed's gap grace (2 s): an event held back that long still counts, as a late one.
    await settle(3000);
    const cpuAfter = await Promise.all([sample(portA), sample(portB)]);
    const took = (lastReply - writes[0]!.due) / 1000;
    console.log(
      `postgres, two processes: ${writes.length} creates to A at ${options.rate}/s open-loop ` +
        `(${(writes.length / took).toFixed(0)}/s achieved; ${load()}); the write's reply from its due time: ` +
        describe(writes.map((write) => write.replied - write.due)),
    );
    for (const [name, watchers] of [
      ['B (another process)', onB],
      ['A (the writing process)', onA],
    ] as const) {
      const fromReply = arrivalsOf(writes, watchers, 'replied');
      const fromDue = arrivalsOf(writes, watchers, 'due');
      console.log(
        `  ${watchers.length} subscribers on ${name}: ${fromReply.latencies.length}/${writes.length * watchers.length} ` +
          `events, ${fromReply.lost} lost; from the write's reply ${describe(fromReply.latencies)} (target p99 ≤ 100); ` +
          `from its due time ${describe(fromDue.latencies)}`,
      );
    }
    if (writes.length / took < options.rate * 0.95)
      console.log(
        `  A did not keep up with ${options.rate}/s on this machine (${load()}): the writes queued (the times from ` +
          `the due time include that queue) and A was saturated; rerun on a quieter machine or a lower BENCH_LIVE_RATE`,
      );
    const cpu = (i: 0 | 1) => ((cpuAfter[i].cpuMs - cpuBefore[i].cpuMs) * 1000) / writes.length;
    console.log(
      `  server CPU per write: A ${cpu(0).toFixed(0)} µs, B ${cpu(1).toFixed(0)} µs; faults A ${cpuAfter[0].faults}, ` +
        `B ${cpuAfter[1].faults}`,
    );
    for (const watcher of [...onA, ...onB]) watcher.destroy();
    await settle(500);

    // Fan-out: idle subscribers split between the processes, each process's RSS growth, then paced writes.
    const before = await Promise.all([sample(portA), sample(portB)]);
    const fanA: Watcher[] = [];
    const fanB: Watcher[] = [];
    // Opened 50 at a time, one batch on A, the next on B.
    for (let i = 0; i < options.subscribers; i += 50) {
      const [list, port] = (i / 50) % 2 === 0 ? [fanA, portA] : [fanB, portB];
      list.push(
        ...(await Promise.all(Array.from({ length: Math.min(50, options.subscribers - i) }, () => watch(port)))),
      );
    }
    await settle(1000);
    const held = await Promise.all([sample(portA), sample(portB)]);
    const growth = (i: 0 | 1) => ((held[i].rss - before[i].rss) / 2 ** 20).toFixed(1);
    const fanWrites = await paced(portA, options.fanOutWrites, options.fanOutRate);
    await settle(3000);
    const all = [...fanA, ...fanB];
    const fanB_ = arrivalsOf(fanWrites, fanB, 'replied');
    const fanAll = arrivalsOf(fanWrites, all, 'replied');
    console.log(
      `  fan-out: ${fanA.length} idle subscribers on A (RSS +${growth(0)} MB), ${fanB.length} on B (RSS ` +
        `+${growth(1)} MB) (target ≤ 50 MB per 1,000, after a GC); ${fanWrites.length} creates to A at ` +
        `${options.fanOutRate}/s: ${fanAll.latencies.length}/${fanWrites.length * all.length} events, ${fanAll.lost} ` +
        `lost; from the write's reply, all ${describe(fanAll.latencies)} (target p99 ≤ 250), on B ` +
        `${describe(fanB_.latencies)} (${load()})`,
    );
    for (const watcher of all) watcher.destroy();
  } finally {
    await Promise.all([stopApp(a), stopApp(b)]);
    agent.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'app')
  await serveApp(process.argv[3]!, Number(process.argv[4]));
