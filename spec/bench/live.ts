/**
 * Benchmark: the change feed (`live: true`).
 *   - write cost: single `POST <uri>` to a live resource against the same to an identical resource without the feed
 *     (its own table), sequential, in interleaved slices; the ratio of median latencies (target ≤ 1.15);
 *   - fan-out: N idle subscribers (default 1,000) held by the server, its RSS growth after a GC (target ≤ 50 MB),
 *     then each write's event timed from the write's reply to its arrival at every subscriber (p99 target ≤ 250 ms).
 * The server runs in this process with its subscribers' sockets (a floor measured alongside: the same writes without
 * the feed), so the figures include the client side.
 * On PostgreSQL it then runs the two-process mode (spec/bench/live-processes.ts): writes to process A at a steady
 * 200/s, open-loop, timed to their events at subscribers on process B and on A (p99 target ≤ 100 ms), and the fan-out
 * to the same number of subscribers split between A and B. `BENCH_LIVE_RATE` (200), `BENCH_LIVE_SECONDS` (10),
 * `BENCH_LIVE_WATCHERS` (subscribers per process in the latency run, 4), `BENCH_LIVE_FANOUT_RATE` (writes/s of the
 * fan-out, 50); `BENCH_LIVE_MODE=one` or `two` runs one mode only.
 *   npm run bench -- live [subscribers=1000] [writes=200] [sqlite,postgres]
 * PostgreSQL is FAST_CRUD_PG_URL (skipped when it does not answer).
 */
import { request } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { crud, resource } from '../../lib/index.js';
import { outboxModel } from '../../lib/execute/live-outbox.js';
import { postgresAnswers } from '../support/databases.js';
import { serve } from '../support/http.js';
import { twoProcesses } from './live-processes.js';

const [subscribersArg, writesArg, databasesArg] = process.argv.slice(2);
const SUBSCRIBERS = Number(subscribersArg ?? 1000);
const WRITES = Number(writesArg ?? 200);
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const MODE = process.env['BENCH_LIVE_MODE'] ?? 'both';
const setting = (name: string, otherwise: number) => Number(process.env[name] ?? otherwise);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function run(database: 'sqlite' | 'postgres'): Promise<void> {
  const sequelize =
    database === 'postgres'
      ? new Sequelize(PG_URL, { logging: false, pool: { max: 8 } })
      : new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const define = (name: string) =>
    sequelize.define(
      name,
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        name: { type: DataTypes.STRING(80), allowNull: false },
      },
      { tableName: `bench_${name}`, timestamps: false },
    );
  const Live = define('live_items');
  const Plain = define('plain_items');
  const router = new Router();
  const config = { global: { find_field_is_uuid: false }, live: { max_subscribers: SUBSCRIBERS + 10 } };
  crud(router, 'live', resource(Live, { policy: { fillable: ['name'] }, live: true }), { config });
  crud(router, 'plain', resource(Plain, { policy: { fillable: ['name'] } }), { config });
  await Live.sync({ force: true });
  await Plain.sync({ force: true });
  await outboxModel(sequelize).sync({ force: true });
  const server = await serve(new Koa().use(router.routes()));
  const post = async (uri: string) => {
    const started = performance.now();
    const reply = await server.request('POST', uri, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    if (reply.status !== 201) throw new Error(reply.text);
    return performance.now() - started;
  };

  // Write cost, interleaved slices of 50.
  for (let i = 0; i < 20; i++) (await post('/live'), await post('/plain'));
  const live: number[] = [];
  const plain: number[] = [];
  for (let slice = 0; slice < 6; slice++)
    for (const [uri, into] of slice % 2 === 0
      ? ([
          ['/live', live],
          ['/plain', plain],
        ] as const)
      : ([
          ['/plain', plain],
          ['/live', live],
        ] as const))
      for (let i = 0; i < 50; i++) into.push(await post(uri));
  const ratio = percentile(live, 50) / percentile(plain, 50);
  console.log(
    `${database}: single create, median ${percentile(plain, 50).toFixed(2)} ms without the feed, ` +
      `${percentile(live, 50).toFixed(2)} ms with it: ×${ratio.toFixed(3)} (target ≤ 1.15)`,
  );

  // Fan-out to idle subscribers.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const rssBefore = process.memoryUsage().rss;
  const arrivals = new Map<string, number[]>();
  const sockets: { destroy(): void }[] = [];
  await Promise.all(
    Array.from(
      { length: SUBSCRIBERS },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = request(`${server.url}/live/changes`, { agent: false }, (res) => {
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const now = performance.now();
              for (const match of chunk.matchAll(/^id: (\d+)$/gm)) {
                const list = arrivals.get(match[1]!) ?? [];
                arrivals.set(match[1]!, list);
                list.push(now);
              }
            });
            resolve();
          });
          req.on('error', reject);
          sockets.push(req);
          req.end();
        }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  gc?.();
  const rssGrowth = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const written: { at: number }[] = [];
  for (let i = 0; i < WRITES; i++) {
    await post('/live');
    written.push({ at: performance.now() });
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const ids = [...arrivals.keys()].sort((a, b) => Number(a) - Number(b)).slice(-WRITES);
  const latencies = ids.flatMap((id, index) => (arrivals.get(id) ?? []).map((at) => at - written[index]!.at));
  const delivered = ids.reduce((sum, id) => sum + (arrivals.get(id)?.length ?? 0), 0);
  console.log(
    `${database}: ${SUBSCRIBERS} idle subscribers: RSS +${rssGrowth.toFixed(1)} MB (target ≤ 50, client sockets ` +
      `included${gc === undefined ? '; run with --expose-gc for a GC before each sample' : ''}); ${WRITES} writes ` +
      `fanned out: ${delivered}/${WRITES * SUBSCRIBERS} events, from the write's reply p50 ` +
      `${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (target ≤ 250)`,
  );
  for (const socket of sockets) socket.destroy();
  await server.close();
  await sequelize.close();
}

const wanted = (databasesArg ?? 'sqlite,postgres').split(',');
for (const database of ['sqlite', 'postgres'] as const) {
  if (!wanted.includes(database)) continue;
  if (database === 'postgres' && !(await postgresAnswers(PG_URL))) {
    console.log(`postgres: skipped, ${PG_URL.replace(/\/\/[^@]*@/, '//')} does not answer`);
    continue;
  }
  if (MODE !== 'two') await run(database);
  if (database === 'postgres' && MODE !== 'one')
    await twoProcesses({
      url: PG_URL,
      rate: setting('BENCH_LIVE_RATE', 200),
      seconds: setting('BENCH_LIVE_SECONDS', 10),
      watchers: setting('BENCH_LIVE_WATCHERS', 4),
      subscribers: SUBSCRIBERS,
      fanOutWrites: WRITES,
      fanOutRate: setting('BENCH_LIVE_FANOUT_RATE', 50),
    });
}
