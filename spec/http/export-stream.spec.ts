import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import type { Model, ModelStatic } from 'sequelize';
import { bigTable } from '../support/big-table.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const ROWS = Number(process.env['FAST_CRUD_EXPORT_ROWS'] ?? 20_000);

for (const db of databases)
  for (const form of FORMS) {
    describe(`exportCsv of ${ROWS} rows (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let Big: ModelStatic<Model>;

      before(async () => {
        Big = await bigTable(db.sequelize!, ROWS, `big${form.initial}`);
        const router = new Router();
        form.register(
          router,
          'big',
          Big,
          { policy: { fillable: 'all' } },
          { only: ['exportCsv'], config: { export_csv: { batch_size: 500 } } },
        );
        server = await serve(new Koa().use(router.routes()));
      });
      after(() => server?.close());

      for (const [label, query] of [
        ['by primary key (keyset batches)', ''],
        ['in a client sort order (one cursor)', '?sort=-price,name'],
      ] as const) {
        it(`streams every row ${label}, reporting peak memory`, async (t) => {
          const before = process.memoryUsage();
          let peakRss = before.rss;
          const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
          const response = await fetch(`${server.url}/big/export-csv${query}`);
          let lines = 0;
          let bytes = 0;
          let tail = '';
          for await (const chunk of response.body!) {
            const text = Buffer.from(chunk as Uint8Array).toString('utf8');
            bytes += text.length;
            lines += text.split('\n').length - 1;
            tail = (tail + text).slice(-200);
          }
          clearInterval(sampler);
          assert.equal(response.status, 200);
          assert.equal(lines, ROWS + 1);
          if (query === '') assert.match(tail, new RegExp(`^${ROWS},SKU-${ROWS},`, 'm'));
          t.diagnostic(
            `${(bytes / 1e6).toFixed(1)} MB of CSV; peak RSS ${(peakRss / 1e6).toFixed(0)} MB (+${((peakRss - before.rss) / 1e6).toFixed(0)} MB during the export)`,
          );
        });
      }
    });
  }
