/**
 * The ETag benchmark's callgrind mode: the instructions a server executes per request, counted by valgrind's callgrind,
 * which a loaded machine does not change the way it changes CPU time. The same two servers as the timed mode (this
 * checkout's lib/ and a copy from before ETags), each bundled by esbuild into plain JavaScript (the library compiled
 * in, no tsx) and run under `valgrind --tool=callgrind`. After a warm-up, each case runs in slices, the cases
 * alternating within one process, and `callgrind_control --dump` after every slice gives that slice's instruction
 * count (every thread of the process: JIT code, V8's compiler and GC, sqlite3, libuv, the kernel calls' user side).
 *   npm run bench -- etags callgrind [slices=4] [requests per slice=150] [warm-up requests per case=400] [sizes]
 * For each size of record (`SIZES`: tiny, 2 KB, 20 KB; `sizes` picks some, comma-separated: `tiny,20 KB`), the read
 * and the search page as a 200, the same 200 again (the noise floor) and a 304; the server from before ETags counts the
 * tiny record's read and page for the ETags' cost.
 * `BENCH_CALLGRIND_MINUTES=<m>` stops adding slices after m minutes of them (two at least). `BENCH_CALLGRIND_KEEP=<dir>` keeps every slice's dump there; `BENCH_NODE_FLAGS` replaces the servers' node flags; `BENCH_PORT`, `BENCH_BEFORE_LIB` as in the timed mode.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import {
  beforeLib,
  load,
  mean,
  ratioOf,
  READ,
  ROOT,
  SEARCH,
  send,
  SIZES,
  verdict,
  type Ratio,
} from './etags-support.js';

const run = promisify(execFile);
const DIR = `${ROOT}.tmp/bench-callgrind/`;
const SUPPORT = new URL('./etags-support.ts', import.meta.url).pathname;
/**
 * V8's optimizing compiler off: its background compiles land in whichever slice a function turns hot in (they moved
 * slices of one case by 2× in a run with it); the counts are then of baseline-compiled JavaScript, and the ratios
 * compare the same code. The garbage collector on the main thread alone, and no memory reducer: concurrent marking
 * threads and the reducer's timed collections (which fire by the clock, and valgrind's clock runs slow) put the same
 * request's slices ±10 % apart; without them, ±1 to 2 %. `--expose-gc` lets each slice start after a full collection
 * (`/__gc`).
 */
const NODE_FLAGS = (process.env['BENCH_NODE_FLAGS'] ?? '--no-opt --single-threaded-gc --no-memory-reducer --expose-gc')
  .split(' ')
  .filter(Boolean);

/** The slices' time budget in minutes (`BENCH_CALLGRIND_MINUTES`, none by default). */
const MINUTES = Number(process.env['BENCH_CALLGRIND_MINUTES'] ?? Infinity);

interface Case {
  readonly name: string;
  readonly path: string;
  readonly conditional: boolean;
  readonly status: number;
}

interface CallgrindServer {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  readonly out: string;
  dumps: number;
}

/** The server with the lib at `libPath` as one plain JavaScript file (its packages left to node_modules). */
async function bundle(name: string, libPath: string): Promise<string> {
  const entry = `${DIR}${name}-${process.pid}-entry.ts`;
  writeFileSync(
    entry,
    `import * as lib from ${JSON.stringify(libPath)};\nimport { serveProducts } from ${JSON.stringify(SUPPORT)};\n` +
      `await serveProducts(lib, Number(process.argv[2] ?? 0), (port) => console.log(\`listening \${port}\`), 600_000);\n`,
  );
  const outfile = `${DIR}${name}-${process.pid}.mjs`;
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

async function start(name: string, script: string, port: number): Promise<CallgrindServer> {
  const out = `${DIR}${name}-${process.pid}.callgrind`;
  const args = [
    '--tool=callgrind',
    `--callgrind-out-file=${out}`,
    process.execPath,
    ...NODE_FLAGS,
    script,
    String(port),
  ];
  const child = spawn('valgrind', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const listening = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening (\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${name}: valgrind exited with ${code}\n${errors.slice(-2000)}`)));
  });
  return { name, child, port: listening, out, dumps: 0 };
}

/**
 * Dumps the server's counters (which zeroes them) and returns the instructions counted since the last dump. The dump
 * is kept as `<BENCH_CALLGRIND_KEEP>/<label>.callgrind` when that folder is set (for callgrind_annotate), else removed.
 */
async function dump(server: CallgrindServer, label: string): Promise<number> {
  await run('callgrind_control', ['--dump', String(server.child.pid)]);
  server.dumps += 1;
  const file = `${server.out}.${server.dumps}`;
  for (let wait = 0; !existsSync(file) || !/^totals: /m.test(readFileSync(file, 'utf8')); wait += 1) {
    if (wait > 600) throw new Error(`${server.name}: no callgrind dump ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const totals = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'))!;
  const keep = process.env['BENCH_CALLGRIND_KEEP'];
  if (keep === undefined) rmSync(file);
  else renameSync(file, `${keep}/${label}.callgrind`);
  return Number(totals[1]);
}

/**
 * One server's cases: warmed up, then `slices` slices, the cases alternating; Ir per request of each slice. A case's
 * slice has `requests` requests scaled down by its group's cost (`scale`), so a slice of a 20 KB page holds about as many
 * instructions as one of a tiny read. Requests go one at a time: with several in flight the event loop's batching
 * varies from slice to slice, and with it the count.
 */
async function measure(
  server: CallgrindServer,
  cases: readonly Case[],
  tags: Record<string, string>,
  { slices, requests, warmup }: { slices: number; requests: number; warmup: number },
): Promise<{ perRequest: number[][]; counts: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = (c: Case): Record<string, string> => (c.conditional ? { 'if-none-match': tags[c.path]! } : {});
  try {
    // A probe of each group's 200 (its path): instructions per request, to size its slices.
    const probe = new Map<string, number>();
    for (const c of cases)
      if (!probe.has(c.path)) {
        await load(agent, server.port, c.path, {}, 10, 200, 1);
        await dump(server, `${server.name}-probe`);
        await load(agent, server.port, c.path, {}, 10, 200, 1);
        probe.set(c.path, (await dump(server, `${server.name}-probe`)) / 10);
      }
    const smallest = Math.min(...probe.values());
    const counts = cases.map((c) => Math.max(8, Math.round((requests * smallest) / probe.get(c.path)!)));
    for (const [index, c] of cases.entries())
      await load(
        agent,
        server.port,
        c.path,
        headers(c),
        Math.max(40, Math.round((warmup * counts[index]!) / requests)),
        c.status,
        1,
      );
    await dump(server, `${server.name}-warm-up`);
    const perRequest = cases.map(() => [] as number[]);
    const started = performance.now();
    for (let slice = 0; slice < slices; slice += 1) {
      // Past BENCH_CALLGRIND_MINUTES of slices, stop at a slice's end (after two at least): a loaded machine runs
      // valgrind slower, and the slices counted so far are whole.
      if (slice >= 2 && performance.now() - started > MINUTES * 60_000) break;
      const order = slice % 2 === 0 ? [...cases.keys()] : [...cases.keys()].reverse();
      for (const index of order) {
        const c = cases[index]!;
        await send(agent, server.port, '/__gc');
        await dump(server, `${server.name}-gc`);
        await load(agent, server.port, c.path, headers(c), counts[index]!, c.status, 1);
        const label = `${server.name}-${c.name.replace(/\W+/g, '-')}-${slice}`;
        perRequest[index]!.push((await dump(server, label)) / counts[index]!);
      }
    }
    return { perRequest, counts };
  } finally {
    agent.destroy();
  }
}

const kilo = (ir: number) => `${(ir / 1000).toFixed(1)} k`;

const ratioText = (r: Ratio) =>
  `${r.mean.toFixed(3)}× ± ${r.halfWidth.toFixed(3)} (slices ${Math.min(...r.all).toFixed(3)} to ` +
  `${Math.max(...r.all).toFixed(3)})`;

/**
 * Runs the callgrind mode and prints instructions per request, the ETags' cost on the tiny record, and for each size
 * the 304s against the 200s beside the noise floor. `sizes` names the sizes to count (`tiny,2 KB,20 KB` by default);
 * the server from before ETags runs only when the tiny record is counted.
 */
export async function callgrindMain(slices: number, requests: number, warmup: number, sizes = SIZES): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const valgrind = (await run('valgrind', ['--version'])).stdout.trim();
  const withBefore = sizes.some((size) => size.text === 0);
  const scripts = {
    before: withBefore ? await bundle('before', beforeLib()) : undefined,
    etags: await bundle('etags', `${ROOT}lib/index.ts`),
  };
  const base = Number(process.env['BENCH_PORT'] ?? 0);
  // Both start at once (a server takes minutes to start under valgrind); if one fails, the other is stopped.
  const starting = await Promise.allSettled([
    start('etags', scripts.etags, base === 0 ? 0 : base + 1),
    ...(scripts.before === undefined ? [] : [start('before', scripts.before, base === 0 ? 0 : base)]),
  ]);
  const up = starting.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (up.length < starting.length) {
    await stopAll(up);
    throw (starting.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
  }
  const servers = { etags: up[0]!, before: up[1] };
  const started = performance.now();
  try {
    const tags: Record<string, string> = {};
    for (const size of sizes)
      for (const path of [size.read, size.search]) {
        const agent = new Agent({ keepAlive: false });
        const [b, a] = await Promise.all([
          send(agent, servers.etags.port, path),
          servers.before === undefined ? undefined : send(agent, servers.before.port, path),
        ]);
        if (b.status !== 200 || (a !== undefined && a.body !== b.body))
          throw new Error(`${path}: the servers disagree`);
        if (b.etag === undefined) throw new Error(`${path}: no ETag`);
        tags[path] = b.etag;
      }
    const beforeCases: Case[] = [
      { name: 'read 200', path: READ, conditional: false, status: 200 },
      { name: 'read, If-None-Match ignored', path: READ, conditional: true, status: 200 },
      { name: 'search page 200', path: SEARCH, conditional: false, status: 200 },
      { name: 'search, If-None-Match ignored', path: SEARCH, conditional: true, status: 200 },
    ];
    // Per size and route: the 200, the same 200 again (the noise floor), the 304.
    const etagCases: Case[] = sizes.flatMap((size) =>
      (['read', 'search page'] as const).flatMap((route) => {
        const path = route === 'read' ? size.read : size.search;
        return [
          { name: `${size.name} ${route} 200`, path, conditional: false, status: 200 },
          { name: `${size.name} ${route} 200 again`, path, conditional: false, status: 200 },
          { name: `${size.name} ${route} 304`, path, conditional: true, status: 304 },
        ];
      }),
    );
    const plan = { slices, requests, warmup };
    const [etags, before] = await Promise.all([
      measure(servers.etags, etagCases, tags, plan),
      servers.before === undefined ? undefined : measure(servers.before, beforeCases, tags, plan),
    ]);
    const minutes = ((performance.now() - started) / 60_000).toFixed(1);
    const counted = Math.min(...[etags, before].flatMap((m) => (m === undefined ? [] : [m.perRequest[0]!.length])));
    console.log(
      `ETags under callgrind: instructions per request, ${counted} slices per case (up to ${requests} requests each, ` +
        `fewer for costlier requests) after warm-up, one at a time, one process per lib, bundled (no tsx), SQLite`,
    );
    const load1 = loadavg().map((l) => l.toFixed(2));
    console.log(
      `  ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version} ${NODE_FLAGS.join(' ')}, ${valgrind}`,
    );
    console.log(`  load ${load1.join(' ')} (does not change the counts), ${minutes} min`);
    const rows = [
      ...(before === undefined ? [] : beforeCases.map((c, index) => ({ c, index, server: 'before', counted: before }))),
      ...etagCases.map((c, index) => ({ c, index, server: 'ETags', counted: etags })),
    ];
    for (const { c, index, server, counted } of rows) {
      const values = counted.perRequest[index]!;
      console.log(
        `  ${`${c.name} (${server})`.padEnd(40)} ${kilo(mean(values)).padStart(10)} Ir/req  ` +
          `(${counted.counts[index]} per slice; slices ${kilo(Math.min(...values))} to ${kilo(Math.max(...values))})`,
      );
    }
    const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(2)} %`;
    if (before !== undefined) {
      const at = (values: readonly number[][], index: number) => mean(values[index]!);
      const tinyRead = etagCases.findIndex((c) => c.path === READ);
      const tinyPage = etagCases.findIndex((c) => c.path === SEARCH);
      console.log(`  ETag cost on a read:           ${pct(at(etags.perRequest, tinyRead), at(before.perRequest, 0))}`);
      console.log(`  ETag cost on a search page:    ${pct(at(etags.perRequest, tinyPage), at(before.perRequest, 2))}`);
    }
    // Each slice's 304 against the same slice's 200, and the same 200 counted twice (the noise floor).
    for (let group = 0; group < etagCases.length; group += 3) {
      const [ok, again, notModified] = [0, 1, 2].map((k) => etags.perRequest[group + k]!);
      const r = ratioOf(notModified!, ok!);
      const floor = ratioOf(again!, ok!);
      const label = etagCases[group]!.name.replace(/ 200$/, '');
      console.log(
        `  304 / 200, ${label.padEnd(20)} ${ratioText(r)}; noise floor ${ratioText(floor)}: ${verdict(r, floor)}`,
      );
    }
  } finally {
    await stopAll(Object.values(servers).filter((server) => server !== undefined));
  }
}

/** Stops the servers and removes their last callgrind output. */
async function stopAll(servers: readonly CallgrindServer[]): Promise<void> {
  for (const server of servers) {
    await new Promise((resolve) => (server.child.once('exit', resolve), server.child.kill()));
    rmSync(server.out, { force: true });
  }
}
