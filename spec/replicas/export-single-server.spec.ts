/**
 * `export_csv.use_master` on a single server (no `replication`): the export reads the same rows
 * in one snapshot as without it, on SQLite, PostgreSQL and MariaDB, over both forms. A row
 * inserted while the export streams stays out of it either way (PostgreSQL and MariaDB, where the
 * export reads one snapshot). Tables `rexs*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const ROWS = 30;

for (const db of databases)
  for (const form of FORMS) {
    describe(
      `export_csv.use_master without replication (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        let Item: ModelStatic<Model>;
        const servers: Record<'standby' | 'primary', TestServer | undefined> = {
          standby: undefined,
          primary: undefined,
        };

        before(async () => {
          Item = db.sequelize!.define(
            `rexs${form.initial}Item`,
            {
              id: { type: DataTypes.INTEGER, primaryKey: true },
              name: { type: DataTypes.STRING(40), allowNull: false },
            },
            { tableName: `rexs${form.initial}_items`, timestamps: false },
          );
          await Item.sync({ force: true });
          await Item.bulkCreate(Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` })));
          for (const useMaster of [false, true]) {
            const router = new Router();
            form.register(
              router,
              'items',
              Item,
              { policy: { fillable: 'all' } },
              { only: ['exportCsv'], config: { export_csv: { batch_size: 7, use_master: useMaster } } },
            );
            servers[useMaster ? 'primary' : 'standby'] = await serve(new Koa().use(router.routes()));
          }
        });
        after(() => Promise.all(Object.values(servers).map((server) => server?.close())));

        it('exports the same CSV with and without it', async () => {
          const [without, withIt] = await Promise.all([
            servers.standby!.get('/items/export-csv'),
            servers.primary!.get('/items/export-csv'),
          ]);
          assert.equal(withIt.status, 200);
          assert.equal(withIt.text, without.text);
          assert.equal(withIt.text.split('\n').length - 1, ROWS + 1);
        });

        if (db.dialect !== 'sqlite')
          it('reads one snapshot with it: a row inserted after the first batch stays out', async () => {
            // A `rows` plugin (the instance path) inserts a row, outside the export, while the first batch is written.
            let inserted = false;
            const late = {
              name: 'late-insert',
              rows: async (rows: Record<string, unknown>[]) => {
                if (!inserted) {
                  inserted = true;
                  await Item.create({ id: ROWS + 1, name: 'late' });
                }
                return rows;
              },
            };
            const router = new Router();
            form.register(
              router,
              'items',
              Item,
              { policy: { fillable: 'all' } },
              { only: ['exportCsv'], config: { export_csv: { batch_size: 7, use_master: true } }, plugins: [late] },
            );
            const server = await serve(new Koa().use(router.routes()));
            try {
              const csv = await server.get('/items/export-csv');
              assert.ok(inserted);
              assert.equal(csv.text.split('\n').length - 1, ROWS + 1);
              assert.doesNotMatch(csv.text, /late/);
            } finally {
              await server.close();
              await Item.destroy({ where: { id: ROWS + 1 } });
            }
          });
      },
    );
  }
