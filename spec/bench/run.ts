/**
 * Runs the benchmarks: `npm run bench` runs each in turn; `npm run bench -- <name> [arguments]` runs
 * one. A number as the first argument is the export benchmark's row count, as before:
 *   npm run bench -- 1000000          export-memory.ts with 1,000,000 rows
 *   npm run bench -- routing 500      routing.ts with 500 resources
 *   npm run bench -- search-options   search-options.ts: search and options against a hand-written floor
 *   npm run bench -- etags            etags.ts: what an ETag costs on a read and a search page, what a 304 saves
 *   npm run bench -- etags callgrind  the same in instructions per request, under valgrind (etags-callgrind.ts)
 *   npm run bench -- count 1000000    count-strategies.ts: search.count exact, none and estimate
 *   npm run bench -- write-mix 20     mixed-load.ts: 64 clients mixing every write, SQLite and PostgreSQL
 *   npm run bench -- soak 10          mixed-load.ts: N minutes of mixed load, memory sampled after GC
 *   npm run bench -- batch 1000       batch.ts: batch PATCH and array POST against single requests
 *   npm run bench -- options-autocomplete 1000000   options-autocomplete.ts: q= on PostgreSQL, with and without
 *                                     the documented indexes, against the bare driver
 *   npm run bench -- cursor 1000000   cursor.ts: a deep cursor page against the first, OFFSET as the foil
 *   npm run bench -- live 1000        live.ts: the change feed's write cost, idle subscribers and fan-out
 *   npm run bench -- full-text 1000000   full-text.ts: term search with LIKE against full text and its index,
 *                                     SQLite and PostgreSQL (and pg_trgm's GIN with LIKE)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Each benchmark: its file in spec/bench/, what it measures, and the arguments it takes first. */
const BENCHMARKS: Record<string, { readonly file: string; readonly about: string; readonly lead: readonly string[] }> =
  {
    export: {
      file: 'export-memory.ts',
      about: 'exportCsv peak memory and time against findAll, N rows',
      lead: ['run'],
    },
    routing: { file: 'routing.ts', about: 'requests with 500 resources registered against 1', lead: ['run'] },
    'search-options': {
      file: 'search-options.ts',
      about: 'search and options against a floor server (driver + hand-written SQL)',
      lead: ['run'],
    },
    etags: {
      file: 'etags.ts',
      about:
        'ETags on a read and a search page against a lib without them; 304 against 200 (`callgrind`: instructions)',
      lead: ['run'],
    },
    cursor: {
      file: 'cursor.ts',
      about:
        'a cursor page at row 800,000 of N (1M) against the first, OFFSET pages as the foil, SQLite and PostgreSQL',
      lead: [],
    },
    count: { file: 'count-strategies.ts', about: 'search.count exact, none and estimate on N rows', lead: [] },
    'write-mix': {
      file: 'mixed-load.ts',
      about: '64 clients mixing every write action: throughput and p99, SQLite and PostgreSQL',
      lead: ['write-mix'],
    },
    soak: {
      file: 'mixed-load.ts',
      about: 'N minutes (10) of mixed load: RSS and heap after GC over time',
      lead: ['soak'],
    },
    'options-autocomplete': {
      file: 'options-autocomplete.ts',
      about: 'options q= and limit on N (1M) PostgreSQL rows, without and with pg_trgm + btree, against the driver',
      lead: [],
    },
    batch: {
      file: 'batch.ts',
      about: 'PATCH by filter and array POST of N (1000) records against N single requests, SQLite and PostgreSQL',
      lead: ['run'],
    },
    'full-text': {
      file: 'full-text.ts',
      about: 'term search on N (1M) rows: LIKE against search.fullText with its index, SQLite and PostgreSQL',
      lead: [],
    },
    live: {
      file: 'live.ts',
      about: 'the change feed: a live write against a plain one; N (1000) idle subscribers, RSS and fan-out p99',
      lead: [],
    },
  };

function run(name: string, args: readonly string[]): void {
  const bench = BENCHMARKS[name]!;
  const file = fileURLToPath(new URL(bench.file, import.meta.url));
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', file, ...bench.lead, ...args], {
    stdio: 'inherit',
  });
  if (status !== 0) process.exit(status ?? 1);
}

const [first, ...rest] = process.argv.slice(2);
if (first === undefined) {
  for (const name of Object.keys(BENCHMARKS)) run(name, []);
} else if (/^\d+$/.test(first)) {
  run('export', [first, ...rest]);
} else if (first in BENCHMARKS) {
  run(first, rest);
} else {
  console.error(`Unknown benchmark '${first}'. Run one of:`);
  for (const [name, { about }] of Object.entries(BENCHMARKS))
    console.error(`  npm run bench -- ${name.padEnd(14)} ${about}`);
  process.exit(2);
}
