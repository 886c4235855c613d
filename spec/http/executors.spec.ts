/**
 * The executors' probe and the state the library keeps per Sequelize instance: a model the fast
 * executor cannot serve exactly reads through the public one, says so once, and answers the same
 * bytes; a column added to or dropped from a table while the server runs is seen by options at once;
 * a hook's useMaster sends the fast executor's queries to the writer.
 * (The byte-for-byte comparison of both executors over random models is spec/http/fast-path.spec.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type FindOptions, type ModelStatic } from 'sequelize';
import { observeExecution, type SearchPath } from '../../lib/execute/state.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** The parse the fast executor applies to SQLite dates (a private member it checks for at its probe). */
const sqliteTypes = (DataTypes as unknown as { sqlite: { DATE: { parse?: unknown } } }).sqlite;

for (const db of databases)
  for (const form of FORMS) {
    describe(`executors (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let current = new Router();
      const fellBack: string[] = [];
      const paths: SearchPath[] = [];
      let stop: () => void = () => undefined;
      const define = (name: string) => {
        const Item = db.sequelize!.define(
          `Xq${form.initial}${name}`,
          {
            id: { type: DataTypes.INTEGER, primaryKey: true },
            name: { type: DataTypes.STRING(20), allowNull: false },
            hidden: { type: DataTypes.BOOLEAN, allowNull: false },
          },
          { tableName: `xq${form.initial}_${name.toLowerCase()}`, timestamps: false },
        );
        return Item;
      };
      const fill = async (Item: ModelStatic<Model>) => {
        await Item.sync({ force: true });
        await Item.bulkCreate([
          { id: 1, name: 'Kites', hidden: true },
          { id: 2, name: 'Tops', hidden: false },
          { id: 3, name: 'Yoyos', hidden: false },
        ]);
      };
      const register = (Item: ModelStatic<Model>) => {
        current = new Router();
        form.register(current, 'items', Item, { policy: { fillable: 'all' } } as never, {
          only: ['search', 'options'],
        });
      };

      before(async () => {
        stop = observeExecution(db.sequelize!, {
          force: (ctx) => ((ctx as Koa.Context).get('x-executor') === 'public' ? 'public' : undefined),
          searched: (_ctx, { path }) => paths.push(path),
          fellBack: (model) => fellBack.push(model.name),
        });
        server = await serve(new Koa().use((ctx, next) => current.routes()(ctx as never, next)));
      });
      after(() => {
        stop();
        return server?.close();
      });

      it('keeps a model on the public executor, with one log line, when a private member is missing', async () => {
        const Item = define('Missing');
        await fill(Item);
        register(Item);
        const warn = mock.method(console, 'warn', () => undefined);
        const parse = sqliteTypes.DATE.parse;
        delete sqliteTypes.DATE.parse;
        paths.length = 0;
        try {
          const first = await server.request('GET', '/items?sort=-name');
          const second = await server.request('GET', '/items/options?label=name');
          assert.equal(first.status, 200, first.text);
          assert.equal(second.status, 200, second.text);
          assert.deepEqual(paths, ['public']);
          assert.deepEqual(fellBack, [Item.name]);
          assert.equal(warn.mock.callCount(), 1);
          assert.match(
            String(warn.mock.calls[0]!.arguments[0]),
            new RegExp(`${Item.name} reads through Sequelize's public API.*DataTypes\\.sqlite\\.DATE\\.parse`),
          );
          // The same bytes as the public executor forced on a model whose probe passed.
          sqliteTypes.DATE.parse = parse;
          const Other = define('Complete');
          await fill(Other);
          register(Other);
          assert.equal((await server.request('GET', '/items?sort=-name')).text, first.text);
          assert.deepEqual(paths, ['public', 'driver']);
          assert.equal(warn.mock.callCount(), 1);
        } finally {
          sqliteTypes.DATE.parse = parse;
          warn.mock.restore();
          fellBack.length = 0;
        }
      });

      it("keeps a model on the public executor when the probe's SQL or rows differ: an app's own findAll holds", async () => {
        const Item = define('Override');
        await fill(Item);
        // The app's findAll leaves hidden rows out; the fast executor would read past it.
        const findAll = Item.findAll.bind(Item);
        Object.defineProperty(Item, 'findAll', {
          value: (options: FindOptions) => findAll({ ...options, where: { ...options.where, hidden: false } }),
        });
        const count = Item.count.bind(Item);
        Object.defineProperty(Item, 'count', {
          value: (options?: object) => count({ ...options, where: { hidden: false } }),
        });
        register(Item);
        const warn = mock.method(console, 'warn', () => undefined);
        paths.length = 0;
        try {
          const reply = await server.request('GET', '/items?sort=id');
          assert.equal(reply.status, 200, reply.text);
          assert.deepEqual(
            reply.body.data.map((row: { name: string }) => row.name),
            ['Tops', 'Yoyos'],
          );
          assert.equal(reply.body.meta.pagination.count, 2);
          assert.deepEqual(paths, ['public']);
          assert.deepEqual(fellBack, [Item.name]);
          assert.equal(warn.mock.callCount(), 1);
          assert.match(
            String(warn.mock.calls[0]!.arguments[0]),
            new RegExp(`${Item.name} reads through Sequelize's public API.*differ`),
          );
        } finally {
          warn.mock.restore();
          fellBack.length = 0;
        }
      });

      it('sees a value column added to the table while the server runs, and answers a dropped one with a 400', async () => {
        const Item = define('Columns');
        await fill(Item);
        register(Item);
        const table = Item.getTableName();
        const queryInterface = db.sequelize!.getQueryInterface();
        const options = () => server.request('GET', '/items/options?label=name&value=legacy');
        const absent = await options();
        assert.equal(absent.status, 400, absent.text);
        assert.equal(absent.body.data[0].field, 'legacy');
        await queryInterface.addColumn(table, 'legacy', { type: DataTypes.STRING(10), allowNull: true });
        await db.sequelize!.query(
          `UPDATE ${queryInterface.quoteIdentifier(String(table))} SET ${queryInterface.quoteIdentifier('legacy')} = 'L-1'`,
        );
        const added = await options();
        assert.equal(added.status, 200, added.text);
        assert.equal(added.body.data.length, 3);
        for (const reply of [
          added,
          await server.request('GET', '/items/options?label=name&value=legacy', {
            headers: { 'x-executor': 'public' },
          }),
        ]) {
          assert.equal(reply.status, 200, reply.text);
          assert.ok(
            reply.body.data.every((item: { value: string }) => item.value.startsWith('L-')),
            reply.text,
          );
        }
        // Not removeColumn: on MariaDB it fails reading the column's constraints.
        await db.sequelize!.query(
          `ALTER TABLE ${queryInterface.quoteIdentifier(String(table))} DROP COLUMN ${queryInterface.quoteIdentifier('legacy')}`,
        );
        for (const executor of ['fast', 'public']) {
          const dropped = await server.request('GET', '/items/options?label=name&value=legacy', {
            headers: { 'x-executor': executor },
          });
          assert.equal(dropped.status, 400, dropped.text);
          assert.equal(dropped.body.status, 'fail');
          assert.equal(dropped.body.data[0].field, 'legacy');
        }
      });
    });
  }

// A replicated connection to each server database: a read pool and a write pool on the same server.
for (const db of databases.filter((database) => database.dialect !== 'sqlite'))
  for (const form of FORMS) {
    describe(`the fast executor keeps useMaster (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let sequelize: Sequelize;
      let server: TestServer;
      const acquired: string[] = [];
      const paths: SearchPath[] = [];

      before(async () => {
        const { database, username, password, host, port } = db.sequelize!.config;
        const address = { host: host!, port: Number(port) };
        const replication = { read: [address], write: address };
        sequelize = new Sequelize(database, username, password ?? '', {
          dialect: db.dialect,
          logging: false,
          replication,
        } as never);
        sequelize.addHook('afterPoolAcquire', (connection) => {
          acquired.push((connection as { queryType?: string }).queryType ?? 'none');
        });
        observeExecution(sequelize, { searched: (_ctx, { path }) => paths.push(path) });
        const Item = sequelize.define(
          `Xm${form.initial}Item`,
          { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING(20) },
          { tableName: `xm${form.initial}_items`, timestamps: false },
        );
        await Item.sync({ force: true });
        await Item.bulkCreate([
          { id: 1, name: 'Kites' },
          { id: 2, name: 'Tops' },
        ]);
        const router = new Router();
        form.register(router, 'items', Item, { policy: { fillable: 'all' } } as never, { only: ['search'] });
        const master = { hooks: { modifySearchQuery: (query: FindOptions) => ({ ...query, useMaster: true }) } };
        form.register(router, 'master', Item, { policy: { fillable: 'all' }, ...master } as never, {
          only: ['search'],
        });
        server = await serve(new Koa().use(router.routes()));
        // The probe's reads, at the model's first request, are not counted.
        assert.equal((await server.request('GET', '/items')).status, 200);
      });
      after(async () => {
        await server?.close();
        await sequelize?.close();
      });

      it('reads a page and its count on the readers, and on the writer when a hook sets useMaster', async () => {
        acquired.length = 0;
        paths.length = 0;
        // The page and the count read one snapshot, on one connection (PostgreSQL: one query string; MariaDB: pipelined).
        const each = 1;
        const plain = await server.request('GET', '/items?sort=-name');
        assert.deepEqual(acquired, Array(each).fill('read'));
        acquired.length = 0;
        const master = await server.request('GET', '/master?sort=-name');
        assert.deepEqual(acquired, Array(each).fill('write'));
        assert.deepEqual(paths, ['driver', 'driver']);
        assert.equal(master.text, plain.text);
      });
    });
  }
