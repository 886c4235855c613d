/**
 * `npm run bench -- [name] [arguments]`: runs one benchmark by name, or every one.
 *   npm run bench                          every benchmark, with its defaults
 *   npm run bench -- 1000000               the export benchmark at that many rows (as before)
 *   npm run bench -- export [rows]         spec/bench/export-memory.ts
 *   npm run bench -- search-options [rounds] [seconds]   spec/bench/search-options.ts
 *   npm run bench -- count [rows]          spec/bench/count-strategies.ts
 */
import { execFileSync } from 'node:child_process';

const BENCHMARKS: Readonly<Record<string, (args: string[]) => string[]>> = {
  export: (args) => ['spec/bench/export-memory.ts', 'run', ...args],
  'search-options': (args) => ['spec/bench/search-options.ts', 'run', ...args],
  count: (args) => ['spec/bench/count-strategies.ts', ...args],
};

const [first, ...rest] = process.argv.slice(2);
const runs: [string, string[]][] =
  first === undefined ? Object.keys(BENCHMARKS).map((name) => [name, []]) : /^\d+$/.test(first) ? [['export', [first, ...rest]]] : [[first, rest]];
for (const [name, args] of runs) {
  const command = BENCHMARKS[name];
  if (command === undefined) throw new Error(`No benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  execFileSync(process.execPath, ['--import', 'tsx', ...command(args)], { stdio: 'inherit' });
}
