/**
 * Benchmark: exportCsv streaming a large table, against a baseline measured in the same run —
 * loading every row with findAll (raw) and building the CSV in memory, as a naive export does.
 * Each side runs in its own fresh process so its peak RSS and CPU time are its own (the export's
 * HTTP client is a process of its own too, so the figures are the server's); the sides
 * alternate (baseline, export, baseline, export, …) so a busy machine slows both alike.
 * On SQLite (a WAL file under .tmp/, so the export reads one snapshot) and on PostgreSQL when
 * FAST_CRUD_PG_URL (default postgres://postgres@127.0.0.1:5432/test) answers.
 *   npm run bench -- 1000000 [repeats=3] [dialects=sqlite,postgres] [sorted]
 * `sorted` adds an export in a client sort order (?sort=-name, no index), which reads from one cursor over the sorted
 * result (keyset batches would each sort the table again), and prints its time against the primary key order's.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import { stringify } from 'csv-stringify/sync';
import Koa from 'koa';
import { Sequelize } from 'sequelize';
import { CrudController, crud } from '../../lib/index.js';
import { bigTable } from '../support/big-table.js';

const [mode = 'run', rowsArg = '1000000', third = '3', fourth = 'sqlite,postgres', fifth = ''] = process.argv.slice(2);
const rows = Number(rowsArg);
const PG_URL = process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const storage = `.tmp/bench-export-${rows}.sqlite`;
const connect = (dialect: string) =>
  dialect === 'postgres'
    ? new Sequelize(PG_URL, { logging: false })
    : new Sequelize({ dialect: 'sqlite', storage, logging: false });

/**
 * The download client: a separate Node process that reads the response and prints its size, so the
 * measured process is the server alone (an in-process `fetch` added about 8 MB of peak RSS and its CPU).
 */
const CLIENT =
  "require('node:http').get(process.argv[1], (res) => { let n = 0; res.on('data', (c) => { n += c.length; }); res.on('end', () => process.stdout.write(String(n))); }).on('error', (e) => { console.error(e); process.exit(1); })";

async function download(url: string): Promise<number> {
  const child = spawn(process.execPath, ['-e', CLIENT, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the download client exited with ${code}`);
  return Number(out);
}

/** Serves `GET /big/export-csv` over the big table (a class-form controller) while `use` runs against its origin. */
async function serveExport(use: (origin: string) => Promise<void>): Promise<void> {
  const Big = bigTable.define(connect(third));
  const router = new Router();
  crud(
    router,
    'big',
    class extends CrudController {
      modelClassName() {
        return Big;
      }
    },
    { only: ['exportCsv'] },
  );
  const server = new Koa().use(router.routes()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  await use(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  server.close();
}

async function measure(work: () => Promise<number>): Promise<void> {
  const started = performance.now();
  const bytes = await work();
  const cpu = process.cpuUsage();
  console.log(
    JSON.stringify({
      ms: performance.now() - started,
      cpuMs: (cpu.user + cpu.system) / 1000,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      bytes,
    }),
  );
}

if (mode === 'baseline') {
  const Big = bigTable.define(connect(third));
  await measure(async () => {
    const all = (await Big.findAll({ raw: true, order: [['id', 'ASC']] })) as unknown as Record<string, unknown>[];
    return stringify(all, { header: true }).length;
  });
} else if (mode === 'bare') {
  // The same process as 'stream' (modules, model, router, server) answering one empty request: the RSS before any row.
  await serveExport((origin) => measure(() => download(`${origin}/nothing`)));
} else if (mode === 'stream') {
  await serveExport((origin) =>
    measure(() => download(`${origin}/big/export-csv${fourth === 'sorted' ? '?sort=-name' : ''}`)),
  );
} else {
  const repeats = Number(third);
  const self = fileURLToPath(import.meta.url);
  for (const dialect of fourth.split(',')) {
    if (!(await prepare(dialect))) continue;
    // Under tsx from the sources; as plain JavaScript when this file was bundled (see DEVELOPERS.md), as an app runs compiled code.
    const loader = self.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const run = (side: string, variant = '') =>
      JSON.parse(
        execFileSync(process.execPath, [...loader, self, side, String(rows), dialect, variant], { encoding: 'utf8' })
          .trim()
          .split('\n')
          .at(-1)!,
      );
    const results: Record<string, { ms: number; cpuMs: number; maxRssMb: number; bytes: number }[]> = {
      baseline: [],
      export: [],
      sorted: [],
      bare: [],
    };
    const loads: number[] = [];
    for (let i = 0; i < repeats; i++) {
      loads.push(loadavg()[0]!);
      results['bare']!.push(run('bare'));
      results['baseline']!.push(run('baseline'));
      results['export']!.push(run('stream'));
      if (fifth === 'sorted') results['sorted']!.push(run('stream', 'sorted'));
    }
    const bare = median(results['bare']!.map((r) => r.maxRssMb).sort((a, b) => a - b));
    console.log(
      `exportCsv of ${rows} rows (${(results['export']![0]!.bytes / 1e6).toFixed(0)} MB of CSV) on ${dialect}, ${repeats} interleaved runs, one fresh process each (${loader.length > 0 ? 'tsx' : 'bundled JavaScript'}); load average ${loads.map((l) => l.toFixed(1)).join(', ')}`,
    );
    console.log(`  ${'bare process (modules, model, server)'.padEnd(42)} peak RSS median ${bare.toFixed(0)} MB`);
    for (const [label, side] of [
      ['baseline findAll({ raw }) + in-memory CSV', 'baseline'],
      ['exportCsv over HTTP, primary key order', 'export'],
      ['exportCsv over HTTP, ?sort=-name', 'sorted'],
    ] as const) {
      const all = results[side]!;
      if (all.length === 0) continue;
      const rates = all.map((r) => rows / (r.ms / 1000)).sort((a, b) => a - b);
      const rss = all.map((r) => r.maxRssMb).sort((a, b) => a - b);
      const cpu = all.map((r) => r.cpuMs).sort((a, b) => a - b);
      console.log(
        `  ${label.padEnd(42)} rows/s best ${fmt(rates.at(-1)!)} median ${fmt(median(rates))}; peak RSS best ${rss[0]!.toFixed(0)} MB median ${median(rss).toFixed(0)} MB (${(median(rss) - bare).toFixed(0)} MB above the bare process); CPU median ${(median(cpu) / 1000).toFixed(1)} s`,
      );
    }
    if (results['sorted']!.length > 0) {
      const time = (side: string) => median(results[side]!.map((r) => r.ms).sort((a, b) => a - b));
      console.log(
        `  ?sort=-name against the primary key order: ${(time('sorted') / time('export')).toFixed(2)}× the time (medians ${(time('sorted') / 1000).toFixed(1)} s and ${(time('export') / 1000).toFixed(1)} s; target ≤ 2×)`,
      );
    }
  }
}

function median(sorted: number[]): number {
  return sorted[Math.floor(sorted.length / 2)]!;
}

function fmt(rate: number): string {
  return `${Math.round(rate / 1000)}k`;
}

/** Fills the table once per database (a SQLite file in WAL mode); false when the database does not answer. */
async function prepare(dialect: string): Promise<boolean> {
  const sequelize = connect(dialect);
  try {
    await sequelize.authenticate();
  } catch (error) {
    console.log(`${dialect}: not reachable (${(error as Error).message}), skipped`);
    return false;
  }
  mkdirSync('.tmp', { recursive: true });
  const Big = bigTable.define(sequelize);
  const filled =
    dialect === 'sqlite'
      ? existsSync(storage) && (await Big.count().catch(() => 0)) === rows
      : (await Big.count().catch(() => 0)) === rows;
  if (!filled) {
    console.log(`Filling big_products on ${dialect} with ${rows} rows…`);
    await bigTable(sequelize, rows);
  }
  if (dialect === 'sqlite') await sequelize.query('PRAGMA journal_mode = WAL');
  if (dialect === 'postgres') await sequelize.query('VACUUM ANALYZE big_products');
  await sequelize.close();
  return true;
}
