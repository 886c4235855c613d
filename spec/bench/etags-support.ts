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
/** The read and the search page the benchmark times (the tiny record: eight short columns). */
export const READ = `/api/products/${ID}`;
export const SEARCH = '/api/products?sort=name&perPage=20';

/** A size of record the 304s are measured at: the read of one record and a search page of such records. */
export interface Size {
  readonly name: string;
  /** The description's length in characters (0: the tiny product's one sentence). */
  readonly text: number;
  readonly read: string;
  readonly search: string;
}

/**
 * The tiny product (a 222-byte record, a 20-row page), then records whose description is 2 KB and 20 KB of prose, read
 * alone and as a 40-row page (about 85 KB and 810 KB of JSON): the larger the body, the more a 304 leaves unsent.
 */
export const SIZES: readonly Size[] = [
  { name: 'tiny', text: 0, read: READ, search: SEARCH },
  { name: '2 KB', text: 2_000, read: `/api/products2k/${ID}`, search: '/api/products2k?sort=name&perPage=40' },
  { name: '20 KB', text: 20_000, read: `/api/products20k/${ID}`, search: '/api/products20k?sort=name&perPage=40' },
];

const WORDS = 'the a record of its price stock name with and for each order shipped "quoted" café 12.50 line'.split(
  ' ',
);

/** `length` characters of prose, the same for the same `seed`: words, a quoted one, an accent, a newline per ~80. */
export function prose(length: number, seed: number): string {
  let text = '';
  let state = seed * 2_654_435_761 + 1;
  while (text.length < length) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += WORDS[state % WORDS.length]! + (state % 13 === 0 ? '.\n' : ' ');
  }
  return text.slice(0, length);
}

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
  const columns = {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    sku: DataTypes.STRING(20),
    name: DataTypes.STRING(80),
    description: DataTypes.TEXT,
    price: DataTypes.DECIMAL(10, 2),
    stock: DataTypes.INTEGER,
    active: DataTypes.BOOLEAN,
    cost: DataTypes.DECIMAL(10, 2),
  };
  const router = new Router({ prefix: '/api' });
  const config = { global: { timeout_ms: timeoutMs } };
  for (const size of SIZES) {
    const uri = size.read.split('/')[2]!;
    const Product = sequelize.define(size.text === 0 ? 'Product' : `Product${size.text}`, columns, {
      tableName: uri,
      timestamps: false,
    });
    await Product.sync();
    await Product.bulkCreate(
      Array.from({ length: 100 }, (_, n) => ({
        id: n === 0 ? ID : `${ID.slice(0, -3)}${String(n).padStart(3, '0')}`,
        sku: `SKU-${n}`,
        name: `Product ${String(n).padStart(3, '0')}`,
        description:
          size.text === 0
            ? `A product described in a sentence or two, number ${n}, for the page to carry some text.`
            : prose(size.text, n),
        price: 10 + n / 4,
        stock: n * 3,
        active: n % 5 !== 0,
        cost: 5 + n / 8,
      })),
    );
    crud(router, uri, resource(Product, { policy: { fillable: 'all', hidden: ['cost'] } }), { config });
  }
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

/** Sends `total` requests, `inFlight` (4) at a time; returns the wall time in ms. Every reply must have `status`. */
export async function load(
  agent: Agent,
  port: number,
  path: string,
  headers: Record<string, string>,
  total: number,
  expected: number,
  inFlight = 4,
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
  await Promise.all(Array.from({ length: inFlight }, () => worker(expected)));
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

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
/** The arithmetic mean. */
export const mean = (values: readonly number[]) => sum(values) / values.length;

/** Ratios of paired measurements (slice by slice, or round by round): their mean and its interval. */
export interface Ratio {
  readonly mean: number;
  /** Twice the standard error of the mean (about a 95 % interval for a handful of pairs). */
  readonly halfWidth: number;
  readonly all: readonly number[];
}

/** The mean of the per-slice (or per-round) ratios of `a` to `b`, and twice its standard error. */
export function ratioOf(a: readonly number[], b: readonly number[]): Ratio {
  const all = a.map((value, slice) => value / b[slice]!);
  const m = mean(all);
  const variance = all.length < 2 ? 0 : sum(all.map((r) => (r - m) ** 2)) / (all.length - 1);
  return { mean: m, halfWidth: 2 * Math.sqrt(variance / all.length), all };
}

/**
 * The verdict on a 304 against its 200, given the same 200 measured as a second case (the noise floor, whose ratio
 * would be 1 without noise): below 1 beyond the noise when the 304's ratio plus its interval is below 1 by more than
 * the floor's distance from 1 plus the floor's interval.
 */
export function verdict(notModified: Ratio, floor: Ratio): string {
  const noise = Math.abs(floor.mean - 1) + floor.halfWidth;
  if (notModified.mean + notModified.halfWidth < 1 - noise) return 'below 1, beyond the noise';
  if (notModified.mean < 1) return 'below 1, within the noise';
  return 'not below 1';
}
