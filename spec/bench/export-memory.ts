/**
 * Benchmark: peak memory of exportCsv streaming a large table, against a baseline measured in the
 * same run — loading every row with findAll and building the CSV in memory, as a naive export does.
 * Each side runs in its own process so its peak RSS is its own.
 *   npm run bench -- 1000000      (rows; default 1,000,000, SQLite file under .tmp/)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import { stringify } from 'csv-stringify/sync';
import Koa from 'koa';
import { Sequelize } from 'sequelize';
import { CrudController, crud } from '../../lib/index.js';
import { bigTable } from '../support/big-table.js';

const [mode = 'run', rowsArg = '1000000'] = process.argv.slice(2);
const rows = Number(rowsArg);
const storage = `.tmp/bench-export-${rows}.sqlite`;
const connect = () => new Sequelize({ dialect: 'sqlite', storage, logging: false });

async function measure(work: () => Promise<number>): Promise<void> {
  const started = performance.now();
  const bytes = await work();
  console.log(JSON.stringify({ ms: performance.now() - started, maxRssMb: process.resourceUsage().maxRSS / 1024, bytes }));
}

if (mode === 'baseline') {
  const sequelize = connect();
  const Big = await bigTable.define(sequelize);
  await measure(async () => {
    const all = (await Big.findAll({ raw: true, order: [['id', 'ASC']] })) as unknown as Record<string, unknown>[];
    return stringify(all, { header: true }).length;
  });
} else if (mode === 'stream') {
  const sequelize = connect();
  const Big = await bigTable.define(sequelize);
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
  await measure(async () => {
    const response = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/big/export-csv`);
    let bytes = 0;
    for await (const chunk of response.body!) bytes += (chunk as Uint8Array).length;
    return bytes;
  });
  server.close();
} else {
  mkdirSync('.tmp', { recursive: true });
  if (!existsSync(storage)) {
    console.log(`Filling ${storage} with ${rows} rows…`);
    await bigTable(connect(), rows);
  }
  const self = fileURLToPath(import.meta.url);
  const run = (side: string) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', self, side, String(rows)], { encoding: 'utf8' }).trim().split('\n').at(-1)!);
  const baseline = run('baseline');
  const streamed = run('stream');
  console.log(`exportCsv of ${rows} rows (${(streamed.bytes / 1e6).toFixed(0)} MB of CSV), SQLite, one process each`);
  console.log(`  baseline findAll + in-memory CSV: peak RSS ${baseline.maxRssMb.toFixed(0)} MB, ${(baseline.ms / 1000).toFixed(1)} s`);
  console.log(`  exportCsv streaming over HTTP:    peak RSS ${streamed.maxRssMb.toFixed(0)} MB, ${(streamed.ms / 1000).toFixed(1)} s`);
  console.log(`  ratio streaming / baseline: memory ${(streamed.maxRssMb / baseline.maxRssMb).toFixed(2)}, time ${(streamed.ms / baseline.ms).toFixed(2)}`);
}
