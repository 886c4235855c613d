/** `npm start`: the demo on an embedded SQLite file, seeded afresh at every start. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Sequelize } from 'sequelize';
import { createDemoApp } from './app.js';
import { seedDemo } from './seed.js';

const storage = process.env['DEMO_DB'] ?? '.tmp/demo.sqlite';
const port = Number(process.env['PORT'] ?? 3000);

mkdirSync(dirname(storage), { recursive: true });
// koa-fast-crud runs its writes on one SQLite file one at a time. WAL lets reads go on during a write, and
// `retry` waits out a lock another process (a sqlite3 shell, a second server) holds, instead of failing at once.
const sequelize = new Sequelize({ dialect: 'sqlite', storage, logging: false, retry: { match: [/SQLITE_BUSY/], max: 10, backoffBase: 50 } });
await sequelize.query('PRAGMA journal_mode = WAL');
const { app, models, router } = createDemoApp(sequelize);
await seedDemo(models);

const server = app.listen(port, '127.0.0.1', () => {
  const base = `http://localhost:${(server.address() as AddressInfo).port}`;
  const routes = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `  ${m.padEnd(6)} ${layer.path}`));
  console.log(`koa-fast-crud demo on ${base} (SQLite file ${storage}, seeded afresh)\n`);
  console.log(`Routes:\n${routes.join('\n')}\n`);
  console.log(`Demo page:    ${base}/   (a product form, a category autocomplete and a product table)`);
  console.log(`API explorer: ${base}/docs   (OpenAPI document: ${base}/api/openapi.json)\n`);
  console.log('Try:');
  console.log(`  curl '${base}/api/categories/options?label=name'`);
  console.log(`  curl '${base}/api/products?filter[price][gte]=30&sort=-price&perPage=3'`);
  console.log(`  curl '${base}/api/products?filter[term]=pan'`);
  console.log(`  curl '${base}/api/products/export-csv' -o products.csv`);
  console.log(`  curl '${base}/api/products/options?label=name&value=sku'`);
  console.log(`  curl '${base}/api/categories/options'              # 400: label is required`);
  console.log(`  curl '${base}/api/categories/options?label=colour'  # 400: no such column`);
});

const stop = () => server.close(() => void sequelize.close());
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
