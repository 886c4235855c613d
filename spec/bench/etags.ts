/**
 * Benchmark: what ETags cost and what a 304 saves. Two servers over the same SQLite rows, each a fresh child process:
 * one runs this checkout's lib/ (ETags on every read and search page), the other a copy of lib/ from before ETags
 * (the parent of the commit that added lib/core/etag.ts, or `BENCH_BEFORE_LIB=<dir>/lib/index.ts`). Rounds interleave
 * them; each server reports its own CPU time, and the figures are medians over rounds. Timed: a read and a search page
 * (200) on both, and on the ETag server the same requests with the ETag in If-None-Match (304). The replies' bodies are
 * checked equal first. It also times the hashes an ETag could use on the read's JSON, in this process.
 *   npm run bench -- etags [rounds=5] [requests=3000] [sizes]
 * Then, on the ETag server alone, each size of record (`SIZES`: the tiny product, 2 KB and 20 KB descriptions; `sizes`
 * picks some, comma-separated): its read and its search page as a 200, the same 200 again (the noise floor) and a 304
 * (a 20 KB page gets a tenth of the requests); per size, each round's 304 / 200 ratio, and whether it is below 1
 * beyond the noise floor.
 *   npm run bench -- etags callgrind [slices] [requests] [warm-up]: instructions per request instead of CPU time, under
 *   valgrind (spec/bench/etags-callgrind.ts)
 * `BENCH_PORT=<n>`: the servers listen on n and n+1 (a free port each by default).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { callgrindMain } from './etags-callgrind.js';
import { beforeLib, load, ratioOf, READ, ROOT, SEARCH, send, serveProducts, SIZES, verdict } from './etags-support.js';
import type { Ratio, Size } from './etags-support.js';

const self = fileURLToPath(import.meta.url);
/** Child: the products resource served by the lib at `libPath`, its port sent to the parent. */
async function server(libPath: string, port: number): Promise<void> {
  const lib = (await import(pathToFileURL(libPath).href)) as typeof import('../../lib/index.js');
  process.on('disconnect', () => process.exit(0));
  await serveProducts(lib, port, (port) => process.send!({ port }));
}

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
}

async function start(libPath: string, listenOn: number): Promise<Server> {
  const child = fork(self, ['server', libPath, String(listenOn)], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`server ${libPath} exited with ${code}`)));
  });
  return { child, port };
}

const headersOf = (c: { path: string; conditional: boolean }, tags: Record<string, string>): Record<string, string> =>
  c.conditional ? { 'if-none-match': tags[c.path]! } : {};

/** The status a case must answer: 0 (any) for If-None-Match on the server without ETags, which may be any lib/. */
const expectOf = (c: { server: string; conditional: boolean }) =>
  c.conditional ? (c.server === 'etags' ? 304 : 0) : 200;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** ns per call of `work`, best of 5 runs of `count`. */
function timeOf(work: () => unknown, count = 5_000): number {
  let best = Infinity;
  for (let run = 0; run < 5; run += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < count; i += 1) work();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / count);
  }
  return best;
}

/** ns per hash of `text`, best of 5 runs of `count`. */
function hashCost(algorithm: string, text: string, count = 20_000): number {
  let best = Infinity;
  for (let run = 0; run < 5; run += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < count; i += 1) createHash(algorithm).update(text).digest('base64url');
    best = Math.min(best, Number(process.hrtime.bigint() - started) / count);
  }
  return best;
}

async function main(rounds: number, requests: number, sizes: readonly Size[]): Promise<void> {
  const libs = { before: beforeLib(), etags: `${ROOT}lib/index.ts` };
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  // Both servers serve the same requests, so neither is warmer; the server without ETags ignores If-None-Match.
  // Then, on the ETag server, each size's read and page: the 200, the same 200 again (the noise floor) and the 304.
  const sized = sizes.flatMap((size) =>
    (['read', 'search page'] as const).flatMap((route) => {
      const path = route === 'read' ? size.read : size.search;
      const share = route === 'read' || size.text <= 2_000 ? 1 : 2_000 / size.text;
      return ([' 200', ' 200 again', ' 304'] as const).map((kind) => ({
        name: `${size.name} ${route}${kind}`,
        server: 'etags' as const,
        path,
        conditional: kind === ' 304',
        share,
      }));
    }),
  );
  const cases = [
    ...[
      { name: 'read 200', server: 'before', path: READ, conditional: false },
      { name: 'read 200', server: 'etags', path: READ, conditional: false },
      { name: 'read, If-None-Match ignored', server: 'before', path: READ, conditional: true },
      { name: 'read 304', server: 'etags', path: READ, conditional: true },
      { name: 'search page 200', server: 'before', path: SEARCH, conditional: false },
      { name: 'search page 200', server: 'etags', path: SEARCH, conditional: false },
      { name: 'search, If-None-Match ignored', server: 'before', path: SEARCH, conditional: true },
      { name: 'search page 304', server: 'etags', path: SEARCH, conditional: true },
    ].map((c) => ({ ...c, server: c.server as 'before' | 'etags', share: 1 })),
    ...sized,
  ] as const;
  const cpu = cases.map(() => [] as number[]);
  const slices = 6;
  let readJson = '';
  let searchBody: unknown;
  for (let round = 0; round < rounds; round += 1) {
    const base = Number(process.env['BENCH_PORT'] ?? 0);
    const before = await start(libs.before, base === 0 ? 0 : base);
    const etags = await start(libs.etags, base === 0 ? 0 : base + 1);
    const servers = { before, etags };
    try {
      const tags: Record<string, string> = {};
      for (const path of new Set([READ, SEARCH, ...sized.map((c) => c.path)])) {
        const [a, b] = await Promise.all([send(agent, before.port, path), send(agent, etags.port, path)]);
        if (a.status !== 200 || a.body !== b.body) throw new Error(`${path}: the servers disagree`);
        if (b.etag === undefined) throw new Error(`${path}: no ETag`);
        tags[path] = b.etag;
        if (path === READ) readJson = JSON.stringify(JSON.parse(b.body).data);
        if (path === SEARCH) searchBody = JSON.parse(b.body);
      }
      // Each case in small slices, the servers alternating, so drifting machine load falls on all of them alike.
      const countOf = (c: (typeof cases)[number]) => Math.max(slices, Math.ceil((requests * c.share) / slices));
      for (const c of cases)
        await load(agent, servers[c.server].port, c.path, headersOf(c, tags), countOf(c) * 2, expectOf(c));
      const spent = cases.map(() => 0);
      for (let slice = 0; slice < slices; slice += 1) {
        const order = slice % 2 === 0 ? [...cases.keys()] : [...cases.keys()].reverse();
        for (const index of order) {
          const c = cases[index]!;
          const { port } = servers[c.server];
          const start0 = JSON.parse((await send(agent, port, '/__cpu')).body).micros as number;
          await load(agent, port, c.path, headersOf(c, tags), countOf(c), expectOf(c));
          const end = JSON.parse((await send(agent, port, '/__cpu')).body).micros as number;
          spent[index]! += end - start0;
        }
      }
      for (const [index, c] of cases.entries()) cpu[index]!.push(spent[index]! / (countOf(c) * slices));
    } finally {
      for (const s of [before, etags]) await new Promise((resolve) => (s.child.once('exit', resolve), s.child.kill()));
    }
  }
  agent.destroy();
  const load1 = loadavg().map((l) => l.toFixed(2));
  console.log(`ETags: ${rounds} rounds of ${requests} requests per case, fresh processes, interleaved, SQLite`);
  console.log(`  ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${load1.join(' ')}`);
  const at = (name: string, server: string) =>
    median(cpu[cases.findIndex((c) => c.name === name && c.server === server)]!);
  for (const [index, c] of cases.entries())
    console.log(
      `  ${`${c.name} (${c.server === 'etags' ? 'ETags' : 'before'})`.padEnd(30)} ${median(cpu[index]!).toFixed(1).padStart(7)} µs CPU/req`,
    );
  const ratio = (a: number, b: number) => `${((a / b - 1) * 100).toFixed(1)} %`;
  console.log(`  ETag cost on a read:           ${ratio(at('read 200', 'etags'), at('read 200', 'before'))}`);
  console.log(
    `  ETag cost on a search page:    ${ratio(at('search page 200', 'etags'), at('search page 200', 'before'))}`,
  );
  console.log(`  304 against 200, read:         ${(at('read 304', 'etags') / at('read 200', 'etags')).toFixed(2)}×`);
  console.log(
    `  304 against 200, search page:  ${(at('search page 304', 'etags') / at('search page 200', 'etags')).toFixed(2)}×`,
  );
  // Each round's 304 against the same round's 200, and the same 200 twice (the noise floor), per size.
  const rounds0 = (name: string) => cpu[cases.findIndex((c) => c.name === name)]!;
  const text = (r: Ratio) =>
    `${r.mean.toFixed(3)}× ± ${r.halfWidth.toFixed(3)} (rounds ${Math.min(...r.all).toFixed(2)} to ` +
    `${Math.max(...r.all).toFixed(2)})`;
  for (const size of sizes)
    for (const route of ['read', 'search page']) {
      const label = `${size.name} ${route}`;
      const r = ratioOf(rounds0(`${label} 304`), rounds0(`${label} 200`));
      const floor = ratioOf(rounds0(`${label} 200 again`), rounds0(`${label} 200`));
      console.log(`  304 / 200, ${label.padEnd(20)} ${text(r)}; noise floor ${text(floor)}: ${verdict(r, floor)}`);
    }
  const hashes = ['sha1', 'md5', 'sha256'].map((name) => `${name} ${hashCost(name, readJson).toFixed(0)} ns`);
  const pageText = JSON.stringify(searchBody);
  const pageHash = timeOf(() => createHash('sha1').update(pageText).digest('base64url'));
  const pageJson = timeOf(() => JSON.stringify(searchBody));
  const added = pageHash / 1000;
  console.log(
    `  a search page's weak ETag: sha1 of ${JSON.stringify(searchBody).length} bytes ${added.toFixed(1)} µs ` +
      `(${((added / at('search page 200', 'etags')) * 100).toFixed(1)} % of the page's CPU); its JSON.stringify ` +
      `(${(pageJson / 1000).toFixed(1)} µs) is the text the reply sends, made once`,
  );
  const readCost = timeOf(() =>
    createHash('sha1')
      .update(JSON.stringify(JSON.parse(readJson)))
      .digest('base64url'),
  );
  console.log(
    `  a read's ETag (JSON.stringify + sha1): ${(readCost / 1000).toFixed(1)} µs ` +
      `(${((readCost / 1000 / at('read 200', 'etags')) * 100).toFixed(1)} % of the read's CPU)`,
  );
  console.log(`  one hash of the read's JSON (${readJson.length} bytes): ${hashes.join(', ')}`);
  // What a 304 skips that the 200 does: the body only. A read's envelope is serialized by Koa (a search page's JSON is
  // made for its tag, so a 304 of a page skips no serialization at all); both skip the body's bytes on the socket.
  const envelope = { status: 'success', data: JSON.parse(readJson) as unknown, meta: {} };
  const bodyOnly = timeOf(() => Buffer.byteLength(JSON.stringify(envelope))) / 1000;
  console.log(
    `  what a read's 304 skips: the body's JSON.stringify + byteLength ${bodyOnly.toFixed(1)} µs ` +
      `(${((bodyOnly / at('read 200', 'etags')) * 100).toFixed(1)} % of the read's CPU), and ` +
      `${JSON.stringify(envelope).length} bytes; a page's 304 skips ${pageText.length} bytes`,
  );
}

const [mode = 'run', ...rest] = process.argv.slice(2);
if (mode === 'server') await server(rest[0]!, Number(rest[1] ?? 0));
else if (rest[0] === 'callgrind')
  await callgrindMain(Number(rest[1] ?? 4), Number(rest[2] ?? 150), Number(rest[3] ?? 400), sizesNamed(rest[4]));
else await main(Number(rest[0] ?? 5), Number(rest[1] ?? 3000), sizesNamed(rest[2]));

/** The sizes a comma-separated list names (`tiny,20 KB`, spaces optional), or all of them. */
function sizesNamed(list: string | undefined): readonly Size[] {
  if (list === undefined) return SIZES;
  const squash = (name: string) => name.replace(/\s+/g, '').toLowerCase();
  const names = list.split(',').map(squash);
  const picked = SIZES.filter((size) => names.includes(squash(size.name)));
  if (picked.length !== names.length) throw new Error(`sizes: ${list}; known: ${SIZES.map((s) => s.name).join(', ')}`);
  return picked;
}
