/**
 * `npm start`: the demo on an embedded SQLite file, seeded afresh at every start. `DEMO_DATABASE_URL`
 * (`postgres://…`, `mariadb://…`) runs it on that database instead, and `DEMO_SEED=0` keeps the data
 * found there: a second process on the same database, whose writes the first one's change feed sees.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Sequelize } from 'sequelize';
import { openSqlite } from '../databases/sqlite.js';
import { createDemoApp } from './app.js';
import { seedDemo } from './seed.js';

const storage = process.env['DEMO_DB'] ?? '.tmp/demo.sqlite';
const url = process.env['DEMO_DATABASE_URL'];
const seeded = process.env['DEMO_SEED'] !== '0';
const port = Number(process.env['PORT'] ?? 3000);

/** The database, as the first line says it (no password). */
const where = url === undefined ? `SQLite file ${storage}` : `${new URL(url).protocol.slice(0, -1)} database ${new URL(url).pathname.slice(1)}`;
if (url === undefined) mkdirSync(dirname(storage), { recursive: true });
// koa-fast-crud runs its writes on one SQLite file one at a time; openSqlite adds WAL, IMMEDIATE transactions
// and retries of SQLITE_BUSY, the settings docs/guide/operations.md gives for concurrent writes.
const sequelize = url === undefined ? await openSqlite(storage) : new Sequelize(url, { logging: false });
const { app, models, openApi, admin } = createDemoApp(sequelize);
// A client that closes a streamed reply (an admin tab's change feed, a CSV download cut off) is no server fault, though
// Koa reports it as ERR_STREAM_PREMATURE_CLOSE: every other error is printed, as Koa's default listener would.
app.on('error', (error: Error & { code?: string }) => {
  if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') console.error(error);
});
if (seeded) await seedDemo(models);

// A URL up to 64 KiB reaches the library, which answers a JSend 414 past global.max_url_length (8,192
// characters); with Node's default 16 KiB, Node itself would answer a bare 431 and close the connection.
const server = createServer({ maxHeaderSize: 65_536 }, app.callback()).listen(port, '127.0.0.1', () => {
  const base = `http://localhost:${(server.address() as AddressInfo).port}`;
  // The routes as the OpenAPI document lists them: on the router, crud's one layer per resource serves them all.
  const operations = Object.entries(openApi.paths ?? {}).flatMap(([path, item]) => Object.keys(item ?? {}).map((verb) => [verb, path] as const));
  const routes = [...operations, ['get', '/openapi.json'] as const].map(([verb, path]) => `  ${verb.toUpperCase().padEnd(6)} /api${path}`);
  console.log(`koa-fast-crud demo on ${base} (${where}, ${seeded ? 'seeded afresh' : 'data kept'})\n`);
  console.log(`Routes:\n${routes.join('\n')}\n`);
  console.log(`Demo page:    ${base}/   (a product form, a category autocomplete and a product table)`);
  console.log(`Admin app:    ${base}/admin   (react-admin through koa-fast-crud/react-admin, bundled by esbuild)`);
  console.log(`API explorer: ${base}/docs   (OpenAPI document: ${base}/api/openapi.json)\n`);
  // -g: curl reads [ ] in a URL as its own ranges unless told not to. spec/docs/demo-commands.spec.ts runs each command.
  console.log('Try:');
  console.log(`  curl '${base}/api/categories/options?label=name'`);
  console.log(`  curl -g '${base}/api/products?filter[price][gte]=30&sort=-price&perPage=3'`);
  console.log(`  curl -g '${base}/api/products?filter[term]=pan'`);
  console.log(`  curl '${base}/api/products/export-csv' -o products.csv`);
  console.log(`  curl '${base}/api/products/options?label=name&value=sku'`);
  console.log(`  curl '${base}/api/categories/options'                # 400: label is required`);
  console.log(`  curl '${base}/api/categories/options?label=colour'   # 400: no such column`);
  console.log('\nCtrl-C stops it.');
});

// Bundle the admin app now, so that its first visitor does not wait for esbuild.
admin.ready().catch((error: unknown) => console.error('The admin app did not bundle:', error));

// closeAllConnections: an open admin's change feed is a request that never ends, and would hold close() forever.
const stop = () => {
  server.close(() => void sequelize.close());
  server.closeAllConnections();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
