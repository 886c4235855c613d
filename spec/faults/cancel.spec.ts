// Issue #12 item 2: a client that disconnects mid-search cancels its query. The search's hook makes
// the query sleep 30 s in the database; once the database shows it running, the client aborts,
// and the database must show it gone (pg_stat_activity; MariaDB's processlist) well before 30 s.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { observeExecution } from '../../lib/execute/state.js';
import { DataTypes, Op, literal, type Model, type Sequelize } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Polls `probe` every 50 ms until it is true, for at most `ms`; whether it became true. */
async function eventually(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const start = Date.now(); Date.now() - start < ms; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (await probe()) return true;
  }
  return false;
}

for (const db of databases) {
  if (db.dialect === 'sqlite') continue;
  for (const form of FORMS) {
    describe(`a client that disconnects mid-search (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const sequelize = db.sequelize as Sequelize;
      // Each form sleeps for its own number of seconds, so the probes never see the other's query.
      const seconds = form.name === 'class' ? 30 : 31;
      const sleep = db.dialect === 'postgres' ? `pg_sleep(${seconds}) IS NOT NULL` : `SLEEP(${seconds}) = 0`;
      const running =
        db.dialect === 'postgres'
          ? `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep(${seconds})%' AND pid <> pg_backend_pid()`
          : `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE '%SLEEP(${seconds})%' AND ID <> CONNECTION_ID()`;
      const sleeping = async () =>
        Number(((await sequelize.query(running, { type: 'SELECT' })) as { n: number }[])[0]!.n);
      let server: TestServer;
      const errors: unknown[] = [];
      const paths: string[] = [];

      before(async () => {
        const Item = sequelize.define(
          `Cnl${form.initial}Item`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            name: DataTypes.STRING(40),
          },
          { tableName: `cnl${form.initial}_items`, timestamps: false },
        );
        await Item.sync({ force: true });
        await Item.create({ name: 'one' });
        // A heavy search: its hook adds a condition that sleeps in the database.
        const spec: ResourceSpec<Model> = {
          policy: { fillable: [] },
          hooks: {
            modifySearchQuery: (query) => ({ ...query, where: { [Op.and]: [query.where ?? {}, literal(sleep)] } }),
          },
        };
        const router = new Router();
        form.register(router, 'items', Item, spec);
        form.register(router, 'plain', Item, { policy: { fillable: [] } });
        // The path search took: the driver path sends its query past Sequelize, and must apply the deadline itself.
        observeExecution(sequelize, { searched: (_ctx, { path }) => paths.push(path) });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server.close());

      it('cancels the query: the database shows it gone, and nothing is reported', async () => {
        const client = new AbortController();
        const request = fetch(`${server.url}/items`, { signal: client.signal }).catch((error: Error) => error);
        assert.ok(await eventually(async () => (await sleeping()) > 0, 5000), 'the search never showed as running');
        client.abort();
        assert.ok((await request) instanceof Error);
        assert.ok(
          await eventually(async () => (await sleeping()) === 0, 5000),
          'the query still runs 5 s after the client left',
        );
        assert.deepEqual(errors, []);
        assert.deepEqual(paths, ['driver']);
      });

      it('leaves the pool serving the next request', async () => {
        assert.equal((await server.get('/plain')).status, 200);
      });
    });
  }
}
