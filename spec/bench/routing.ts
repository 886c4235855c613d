/**
 * Benchmark: the cost of routing with many resources. The same requests are timed against a server
 * with 1 resource and against servers with 500 (distinct uris, one model each), the target resource
 * registered last or in the middle. Each server is a fresh child process; rounds interleave them
 * (1, 500-last, 500-middle, 1, …) and the figures are medians over rounds. Every server answers the
 * requests identically before timing starts. The load comes from this process (keep-alive agent, a
 * few requests in flight) and each server reports its own CPU time.
 *   npm run bench -- routing [resources=500] [rounds=5] [requests=3000]
 * `BENCH_PORT=<n>`: the servers listen on n, n+1 and n+2 (a free port each by default).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { crud, resource } from '../../lib/index.js';

const self = fileURLToPath(import.meta.url);
const ID = '6f1c2d8e-4b3a-4c5d-9e8f-0a1b2c3d4e5f';
const target = 'shop/products';

/** The requests timed: each is checked to give the same status and body on every server. */
const REQUESTS = [
  { name: 'options', method: 'GET', path: `/api/${target}/options?label=name` },
  { name: 'read by uuid', method: 'GET', path: `/api/${target}/${ID}` },
  { name: 'miss (404)', method: 'GET', path: '/api/nothing/here' },
  { name: 'wrong verb (405)', method: 'PATCH', path: `/api/${target}` },
] as const;

type Reply = { status: number; body: string };

/** Child: a Koa app with `count` resources, the target at `position` ('last' | 'middle'). */
async function server(count: number, position: string, port: number): Promise<void> {
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const define = (name: string, table: string) =>
    sequelize.define(
      name,
      { id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 }, name: DataTypes.STRING },
      { tableName: table, timestamps: false },
    );
  const router = new Router({ prefix: '/api' });
  const at = position === 'middle' ? Math.floor(count / 2) : count - 1;
  for (let index = 0; index < count; index += 1) {
    if (index === at) {
      const Product = define('Product', 'products');
      await Product.sync();
      await Product.bulkCreate(
        Array.from({ length: 20 }, (_, n) => ({
          id: n === 0 ? ID : `${ID.slice(0, -2)}${String(n).padStart(2, '0')}`,
          name: `Product ${String(n).padStart(2, '0')}`,
        })),
      );
      crud(router, target, resource(Product, { policy: { fillable: 'all' } }));
    } else {
      crud(
        router,
        `module${index % 20}/thing${index}`,
        resource(define(`Thing${index}`, `things_${index}`), { policy: { fillable: 'all' } }),
      );
    }
  }
  const app = new Koa();
  app.use(async (ctx, next) => {
    if (ctx.path !== '/__cpu') return next();
    const { user, system } = process.cpuUsage();
    ctx.body = { micros: user + system, layers: router.stack.length };
  });
  app.use(router.routes()).use(router.allowedMethods());
  // Exit normally when the parent goes away, so `node --cpu-prof` can write its profile.
  process.on('disconnect', () => process.exit(0));
  const listening = app.listen(port, '127.0.0.1', () =>
    process.send!({ port: (listening.address() as { port: number }).port }),
  );
}

function send(agent: Agent, port: number, method: string, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends `total` requests with `inFlight` at a time; returns the wall time in ms. */
async function load(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  total: number,
  inFlight = 4,
): Promise<number> {
  let sent = 0;
  const started = performance.now();
  const worker = async () => {
    while (sent < total) {
      sent += 1;
      await send(agent, port, method, path);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return performance.now() - started;
}

interface Server {
  readonly label: string;
  readonly child: ChildProcess;
  readonly port: number;
}

async function start(label: string, count: number, position: string, listenOn: number): Promise<Server> {
  const child = fork(self, ['server', String(count), position, String(listenOn)], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${label} server exited with ${code}`)));
  });
  return { label, child, port };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(resources: number, rounds: number, requests: number): Promise<void> {
  const variants = [
    { label: '1 resource', count: 1, position: 'last' },
    { label: `${resources} resources, target last`, count: resources, position: 'last' },
    { label: `${resources} resources, target in the middle`, count: resources, position: 'middle' },
  ];
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  // results[variant][request] = { rps: [], cpu: [] } (cpu in µs per request)
  const results = variants.map(() => REQUESTS.map(() => ({ rps: [] as number[], cpu: [] as number[] })));
  let layers: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const base = Number(process.env['BENCH_PORT'] ?? 0);
    const servers = await Promise.all(
      variants.map((v, i) => start(v.label, v.count, v.position, base === 0 ? 0 : base + i)),
    );
    try {
      // Same answers everywhere before timing.
      for (const r of REQUESTS) {
        const replies = await Promise.all(servers.map((s) => send(agent, s.port, r.method, r.path)));
        for (const reply of replies.slice(1)) {
          if (reply.status !== replies[0]!.status || reply.body !== replies[0]!.body) {
            throw new Error(`${r.name}: servers disagree: ${JSON.stringify(replies)}`);
          }
        }
      }
      layers = [];
      for (const s of servers) layers.push(JSON.parse((await send(agent, s.port, 'GET', '/__cpu')).body).layers);
      for (const [ri, r] of REQUESTS.entries()) {
        for (const s of servers) await load(agent, s.port, r.method, r.path, Math.ceil(requests / 3)); // warm-up
        for (const [si, s] of servers.entries()) {
          const before = JSON.parse((await send(agent, s.port, 'GET', '/__cpu')).body).micros as number;
          const ms = await load(agent, s.port, r.method, r.path, requests);
          const after = JSON.parse((await send(agent, s.port, 'GET', '/__cpu')).body).micros as number;
          results[si]![ri]!.rps.push((requests / ms) * 1000);
          results[si]![ri]!.cpu.push((after - before) / requests);
        }
      }
    } finally {
      await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.once('exit', resolve), s.child.kill()))));
    }
  }
  agent.destroy();
  console.log(
    `Routing with ${resources} resources against 1: ${rounds} rounds of ${requests} requests, fresh processes, interleaved`,
  );
  console.log(
    `  ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`  router layers: ${variants.map((v, i) => `${v.label}: ${layers[i]}`).join(', ')}`);
  for (const [ri, r] of REQUESTS.entries()) {
    const base = results[0]![ri]!;
    console.log(`  ${r.name} (${r.method} ${r.path})`);
    for (const [si, v] of variants.entries()) {
      const own = results[si]![ri]!;
      const rps = median(own.rps);
      const cpu = median(own.cpu);
      const ratio =
        si === 0
          ? ''
          : `  ratio ${(rps / median(base.rps)).toFixed(2)}× throughput, ${(median(base.cpu) / cpu).toFixed(2)}× CPU`;
      console.log(
        `    ${v.label.padEnd(34)} ${rps.toFixed(0).padStart(6)} req/s ${cpu.toFixed(0).padStart(5)} µs CPU/req${ratio}`,
      );
    }
  }
}

const [mode = 'run', ...rest] = process.argv.slice(2);
if (mode === 'server') await server(Number(rest[0]), rest[1] ?? 'last', Number(rest[2] ?? 0));
else await main(Number(rest[0] ?? 500), Number(rest[1] ?? 5), Number(rest[2] ?? 3000));
