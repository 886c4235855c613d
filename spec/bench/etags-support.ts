/**
 * The ETag benchmark's server (spec/bench/etags.ts): the demo-like products resource over 100 SQLite rows, served by
 * the lib it is handed, with `/__cpu` answering the process's CPU time. Its own module so that the callgrind mode can
 * bundle it with a copy of lib/ into plain JavaScript.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { type Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';

/** The record a read fetches (the first of the 100). */
export const ID = '6f1c2d8e-4b3a-4c5d-9e8f-0a1b2c3d4e5f';
/** The checkout's root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The read and the search page the benchmark times. */
export const READ = `/api/products/${ID}`;
export const SEARCH = '/api/products?sort=name&perPage=20';

/** A reply as the client saw it. */
export type Reply = { status: number; body: string; etag: string | undefined };

/**
 * Starts the server on `port` (0: a free one) and hands `announce` the port it listens on. `timeoutMs` is the
 * requests' deadline (`global.timeout_ms`): under valgrind on a loaded machine a read can outlast the default 10 s.
 */
export async function serveProducts(
  lib: Pick<typeof import('../../lib/index.js'), 'crud' | 'resource'>,
  port: number,
  announce: (port: number) => void,
  timeoutMs = 10_000,
): Promise<void> {
  const { crud, resource } = lib;
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const Product = sequelize.define(
    'Product',
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      sku: DataTypes.STRING(20),
      name: DataTypes.STRING(80),
      description: DataTypes.TEXT,
      price: DataTypes.DECIMAL(10, 2),
      stock: DataTypes.INTEGER,
      active: DataTypes.BOOLEAN,
      cost: DataTypes.DECIMAL(10, 2),
    },
    { tableName: 'products', timestamps: false },
  );
  await Product.sync();
  await Product.bulkCreate(
    Array.from({ length: 100 }, (_, n) => ({
      id: n === 0 ? ID : `${ID.slice(0, -3)}${String(n).padStart(3, '0')}`,
      sku: `SKU-${n}`,
      name: `Product ${String(n).padStart(3, '0')}`,
      description: `A product described in a sentence or two, number ${n}, for the page to carry some text.`,
      price: 10 + n / 4,
      stock: n * 3,
      active: n % 5 !== 0,
      cost: 5 + n / 8,
    })),
  );
  const router = new Router({ prefix: '/api' });
  const config = { global: { timeout_ms: timeoutMs } };
  crud(router, 'products', resource(Product, { policy: { fillable: 'all', hidden: ['cost'] } }), { config });
  const app = new Koa();
  app.use(async (ctx, next) => {
    // A full garbage collection on request (node --expose-gc), so a counted slice starts from a clean heap.
    if (ctx.path === '/__gc') return void ((globalThis as { gc?: () => void }).gc?.(), (ctx.body = {}));
    if (ctx.path !== '/__cpu') return next();
    const { user, system } = process.cpuUsage();
    ctx.body = { micros: user + system };
  });
  app.use(router.routes());
  const listening = app.listen(port, '127.0.0.1', () => announce((listening.address() as { port: number }).port));
  // No idle timeout on keep-alive sockets: under valgrind a pause between slices outlasts Node's 5 s, and a socket the
  // server closes as the client reuses it is an ECONNRESET.
  listening.keepAliveTimeout = 0;
}

export function send(agent: Agent, port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path, agent, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, etag: res.headers.etag }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends `total` requests with 4 in flight; returns the wall time in ms. Every reply must have `status`. */
export async function load(
  agent: Agent,
  port: number,
  path: string,
  headers: Record<string, string>,
  total: number,
  expected: number,
) {
  let sent = 0;
  const started = performance.now();
  const worker = async (expected: number) => {
    while (sent < total) {
      sent += 1;
      const reply = await send(agent, port, path, headers);
      if (expected !== 0 && reply.status !== expected)
        throw new Error(`${path}: ${reply.status}, expected ${expected}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, () => worker(expected)));
  return performance.now() - started;
}

/** lib/ as it was before ETags: a copy under .tmp/, from git, unless BENCH_BEFORE_LIB names one. */
export function beforeLib(): string {
  const given = process.env['BENCH_BEFORE_LIB'];
  if (given !== undefined) return given;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const added = git('log', '--diff-filter=A', '--format=%H', '--', 'lib/core/etag.ts').split('\n').pop()!;
  const commit = git('rev-parse', `${added}^`);
  const folder = `${ROOT}.tmp/bench-before-etags-${commit.slice(0, 10)}/`;
  if (!existsSync(`${folder}lib/index.ts`)) {
    mkdirSync(folder, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} lib | tar -x -C '${folder}'`], { cwd: ROOT });
  }
  return `${folder}lib/index.ts`;
}
