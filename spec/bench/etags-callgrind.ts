/**
 * The ETag benchmark's callgrind mode: the instructions a server executes per request, counted by valgrind's callgrind,
 * which a loaded machine does not change the way it changes CPU time. The same two servers as the timed mode (this
 * checkout's lib/ and a copy from before ETags), each bundled by esbuild into plain JavaScript (the library compiled
 * in, no tsx) and run under `valgrind --tool=callgrind`. After a warm-up, each case runs in slices, the cases
 * alternating within one process, and `callgrind_control --dump` after every slice gives that slice's instruction
 * count (every thread of the process: JIT code, V8's compiler and GC, sqlite3, libuv, the kernel calls' user side).
 *   npm run bench -- etags callgrind [slices=4] [requests per slice=150] [warm-up requests per case=400]
 * `BENCH_CALLGRIND_KEEP=<dir>` keeps every slice's dump there; `BENCH_NODE_FLAGS` replaces the servers' node flags; `BENCH_PORT`, `BENCH_BEFORE_LIB` as in the timed mode.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { beforeLib, load, READ, ROOT, SEARCH, send } from './etags-support.js';

const run = promisify(execFile);
const DIR = `${ROOT}.tmp/bench-callgrind/`;
const SUPPORT = new URL('./etags-support.ts', import.meta.url).pathname;
/**
 * V8's optimizing compiler off: its background compiles land in whichever slice a function turns hot in (they moved
 * slices of one case by 2× in a run with it); the counts are then of baseline-compiled JavaScript, and the ratios
 * compare the same code. `--expose-gc` lets each slice start after a full collection (`/__gc`).
 */
const NODE_FLAGS = (process.env['BENCH_NODE_FLAGS'] ?? '--no-opt --expose-gc').split(' ').filter(Boolean);

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
  const entry = `${DIR}${name}-entry.ts`;
  writeFileSync(
    entry,
    `import * as lib from ${JSON.stringify(libPath)};\nimport { serveProducts } from ${JSON.stringify(SUPPORT)};\n` +
      `await serveProducts(lib, Number(process.argv[2] ?? 0), (port) => console.log(\`listening \${port}\`), 600_000);\n`,
  );
  const outfile = `${DIR}${name}.mjs`;
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
  const out = `${DIR}${name}.callgrind`;
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

/** One server's cases: warmed up, then `slices` slices of `requests` each, the cases alternating; Ir per request. */
async function measure(
  server: CallgrindServer,
  cases: readonly Case[],
  tags: Record<string, string>,
  { slices, requests, warmup }: { slices: number; requests: number; warmup: number },
): Promise<number[][]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const headers = (c: Case): Record<string, string> => (c.conditional ? { 'if-none-match': tags[c.path]! } : {});
  try {
    for (const c of cases) await load(agent, server.port, c.path, headers(c), warmup, c.status);
    await dump(server, `${server.name}-warm-up`);
    const perRequest = cases.map(() => [] as number[]);
    for (let slice = 0; slice < slices; slice += 1) {
      const order = slice % 2 === 0 ? [...cases.keys()] : [...cases.keys()].reverse();
      for (const index of order) {
        const c = cases[index]!;
        await send(agent, server.port, '/__gc');
        await dump(server, `${server.name}-gc`);
        await load(agent, server.port, c.path, headers(c), requests, c.status);
        const label = `${server.name}-${c.name.replace(/\W+/g, '-')}-${slice}`;
        perRequest[index]!.push((await dump(server, label)) / requests);
      }
    }
    return perRequest;
  } finally {
    agent.destroy();
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: readonly number[]) => sum(values) / values.length;
const kilo = (ir: number) => `${(ir / 1000).toFixed(1)} k`;

/** Runs the callgrind mode and prints instructions per request, the ETags' cost and the 304s against the 200s. */
export async function callgrindMain(slices: number, requests: number, warmup: number): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const valgrind = (await run('valgrind', ['--version'])).stdout.trim();
  const scripts = { before: await bundle('before', beforeLib()), etags: await bundle('etags', `${ROOT}lib/index.ts`) };
  const base = Number(process.env['BENCH_PORT'] ?? 0);
  // Both start at once (a server takes minutes to start under valgrind); if one fails, the other is stopped.
  const starting = await Promise.allSettled([
    start('before', scripts.before, base === 0 ? 0 : base),
    start('etags', scripts.etags, base === 0 ? 0 : base + 1),
  ]);
  const up = starting.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (up.length < 2) {
    await stopAll(up);
    throw (starting.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
  }
  const servers = { before: up[0]!, etags: up[1]! };
  const started = performance.now();
  try {
    const tags: Record<string, string> = {};
    for (const path of [READ, SEARCH]) {
      const agent = new Agent({ keepAlive: false });
      const [a, b] = await Promise.all([send(agent, servers.before.port, path), send(agent, servers.etags.port, path)]);
      if (a.status !== 200 || a.body !== b.body) throw new Error(`${path}: the servers disagree`);
      if (b.etag === undefined) throw new Error(`${path}: no ETag`);
      tags[path] = b.etag;
    }
    const cases = {
      before: [
        { name: 'read 200', path: READ, conditional: false, status: 200 },
        { name: 'read, If-None-Match ignored', path: READ, conditional: true, status: 200 },
        { name: 'search page 200', path: SEARCH, conditional: false, status: 200 },
        { name: 'search, If-None-Match ignored', path: SEARCH, conditional: true, status: 200 },
      ],
      etags: [
        { name: 'read 200', path: READ, conditional: false, status: 200 },
        { name: 'read 304', path: READ, conditional: true, status: 304 },
        { name: 'search page 200', path: SEARCH, conditional: false, status: 200 },
        { name: 'search page 304', path: SEARCH, conditional: true, status: 304 },
      ],
    } as const;
    const plan = { slices, requests, warmup };
    const [before, etags] = await Promise.all([
      measure(servers.before, cases.before, tags, plan),
      measure(servers.etags, cases.etags, tags, plan),
    ]);
    const minutes = ((performance.now() - started) / 60_000).toFixed(1);
    console.log(
      `ETags under callgrind: instructions per request, ${slices} slices of ${requests} requests per case after ` +
        `${warmup} warm-up requests each, one process per lib, bundled (no tsx), SQLite in memory`,
    );
    const load1 = loadavg().map((l) => l.toFixed(2));
    console.log(
      `  ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version} ${NODE_FLAGS.join(' ')}, ${valgrind}`,
    );
    console.log(`  load ${load1.join(' ')} (does not change the counts), ${minutes} min`);
    const rows = [
      ...cases.before.map((c, index) => ({ label: `${c.name} (before)`, values: before[index]! })),
      ...cases.etags.map((c, index) => ({ label: `${c.name} (ETags)`, values: etags[index]! })),
    ];
    for (const { label, values } of rows)
      console.log(
        `  ${label.padEnd(40)} ${kilo(mean(values)).padStart(9)} Ir/req  ` +
          `(slices ${kilo(Math.min(...values))} to ${kilo(Math.max(...values))})`,
      );
    const at = (values: readonly number[][], index: number) => mean(values[index]!);
    const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(2)} %`;
    console.log(`  ETag cost on a read:           ${pct(at(etags, 0), at(before, 0))}`);
    console.log(`  ETag cost on a search page:    ${pct(at(etags, 2), at(before, 2))}`);
    // The ratio of each slice's 304 to the same slice's 200: its spread is what one more run could move the ratio by.
    const bySlice = (a: readonly number[], b: readonly number[]) => {
      const ratios = a.map((value, slice) => value / b[slice]!);
      return `(per slice ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)})`;
    };
    console.log(
      `  304 against 200, read:         ${(at(etags, 1) / at(etags, 0)).toFixed(3)}× ${bySlice(etags[1]!, etags[0]!)}`,
    );
    console.log(
      `  304 against 200, search page:  ${(at(etags, 3) / at(etags, 2)).toFixed(3)}× ${bySlice(etags[3]!, etags[2]!)}`,
    );
    console.log(
      `  noise, the same request twice in one process (before, If-None-Match ignored against 200): ` +
        `read ${pct(at(before, 1), at(before, 0))}, page ${pct(at(before, 3), at(before, 2))}`,
    );
  } finally {
    await stopAll(Object.values(servers));
  }
}

/** Stops the servers and removes their last callgrind output. */
async function stopAll(servers: readonly CallgrindServer[]): Promise<void> {
  for (const server of servers) {
    await new Promise((resolve) => (server.child.once('exit', resolve), server.child.kill()));
    rmSync(server.out, { force: true });
  }
}
