/**
 * The fast executor takes its driver connection straight from the pool of a PostgreSQL or MariaDB connection manager
 * (`privateSequelize.acquire`) when `getConnection` would only wrap the pool: these checks pin what `getConnection`
 * does and the direct take must keep. A read replica still answers unless a hook sets `useMaster`; a pool with no
 * connection left within `pool.acquire` gives Sequelize's `ConnectionAcquireTimeoutError` (a 503
 * `databaseUnavailable`), not the pool's own error; a `beforePoolAcquire` or `afterPoolAcquire` hook sees every
 * acquisition. SQLite's connection manager has no such pool and is not concerned.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type FindOptions, type Options } from 'sequelize';
import { observeExecution, type SearchPath } from '../../lib/execute/state.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

for (const db of databases.filter((database) => database.dialect !== 'sqlite'))
  for (const form of FORMS) {
    describe(
      `the driver connection taken from the pool (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        let sequelize: Sequelize;
        let server: TestServer;
        const errors: unknown[] = [];
        const paths: SearchPath[] = [];
        /** The `queryType` of each connection given back to the pool ('read' or 'write' with replication). */
        const released: string[] = [];

        before(async () => {
          const { database, username, password, host, port } = db.sequelize!.config;
          const address = { host: host!, port: Number(port) };
          const options: Options = {
            dialect: db.dialect,
            logging: false,
            replication: { read: [address], write: address },
            pool: { max: 1, acquire: 300 },
          };
          sequelize = new Sequelize(database, username, password ?? '', options);
          const manager = sequelize.connectionManager;
          const release = manager.releaseConnection.bind(manager);
          manager.releaseConnection = (connection) => {
            released.push((connection as { queryType?: string }).queryType ?? 'none');
            return release(connection);
          };
          observeExecution(sequelize, { searched: (_ctx, { path }) => paths.push(path) });
          const Item = sequelize.define(
            `Dpa${form.initial}Item`,
            { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(20) },
            { tableName: `dpa${form.initial}_items`, timestamps: false },
          );
          await Item.sync({ force: true });
          await Item.bulkCreate([
            { id: 1, name: 'Kites' },
            { id: 2, name: 'Tops' },
          ]);
          const router = new Router();
          form.register(router, 'items', Item, { policy: { fillable: 'all' } } as never, {
            only: ['search', 'options'],
          });
          const master = { hooks: { modifySearchQuery: (query: FindOptions) => ({ ...query, useMaster: true }) } };
          form.register(router, 'master', Item, { policy: { fillable: 'all' }, ...master } as never, {
            only: ['search'],
          });
          server = await serve(new Koa().use(router.routes()), errors);
          // The probe's reads, at the model's first request, are not counted.
          assert.equal((await server.get('/items')).status, 200);
          assert.equal((await server.get('/items/options?label=name')).status, 200);
        });
        after(async () => {
          await server?.close();
          await sequelize?.close();
        });

        it('reads on a reader, and on the writer when a hook sets useMaster', async () => {
          released.length = 0;
          paths.length = 0;
          // A search reads its page and count on one connection (one query string on PostgreSQL, one snapshot on MariaDB).
          const each = 1;
          const plain = await server.get('/items?sort=-name');
          assert.deepEqual(released, Array(each).fill('read'));
          released.length = 0;
          const master = await server.get('/master?sort=-name');
          assert.deepEqual(released, Array(each).fill('write'));
          released.length = 0;
          assert.equal((await server.get('/items/options?label=name')).status, 200);
          assert.deepEqual(released, ['read']);
          assert.deepEqual(paths, ['driver', 'driver']);
          assert.equal(master.text, plain.text);
        });

        it("answers a 503 databaseUnavailable with Sequelize's error when no connection comes within pool.acquire", async () => {
          errors.length = 0;
          // The only reader connection is held by a transaction (replication: a transaction takes the writer, so hold
          // the reader itself).
          const held = await sequelize.connectionManager.getConnection({ type: 'SELECT' } as never);
          try {
            for (const path of ['/items?sort=-name', '/items/options?label=name']) {
              const reply = await server.get(path);
              assert.equal(reply.status, 503, reply.text);
              assert.equal(reply.body.code, 'databaseUnavailable', reply.text);
            }
          } finally {
            sequelize.connectionManager.releaseConnection(held);
          }
          assert.equal(errors.length, 2);
          for (const error of errors) assert.equal((error as Error).name, 'SequelizeConnectionAcquireTimeoutError');
          assert.equal((await server.get('/items')).status, 200);
        });

        it('runs the pool hooks of the instance on every acquisition', async () => {
          const seen: string[] = [];
          sequelize.addHook('beforePoolAcquire', 'dpa-before', (options) => {
            seen.push(`before ${(options as { useMaster?: boolean }).useMaster === true ? 'master' : 'any'}`);
          });
          sequelize.addHook('afterPoolAcquire', 'dpa-after', (connection) => {
            seen.push(`after ${(connection as { queryType?: string }).queryType ?? 'none'}`);
          });
          try {
            paths.length = 0;
            assert.equal((await server.get('/master?sort=name')).status, 200);
            assert.deepEqual(seen.sort(), ['after write', 'before master']);
            assert.deepEqual(paths, ['driver']);
          } finally {
            sequelize.removeHook('beforePoolAcquire', 'dpa-before');
            sequelize.removeHook('afterPoolAcquire', 'dpa-after');
          }
        });
      },
    );
  }
