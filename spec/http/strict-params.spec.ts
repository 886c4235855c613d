/**
 * The `null` filter operator (`col IS NULL`) and `search.strict_params` over HTTP: on every column
 * kind and through an association, and an unknown query parameter of search and exportCsv answered
 * with a 400 naming it, on SQLite, PostgreSQL and MariaDB, in both forms. Tables start with `sp`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Items with a nullable column of each kind, and parts (has-many) with a nullable size. */
function defineModels(sequelize: Sequelize, prefix: string) {
  const id = { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 };
  const Item = sequelize.define(
    `${prefix}Item`,
    {
      id,
      name: { type: DataTypes.STRING(40), allowNull: false },
      note: { type: DataTypes.STRING(40), allowNull: true },
      stock: { type: DataTypes.INTEGER, allowNull: true },
      seenAt: { type: DataTypes.DATE, allowNull: true },
      meta: { type: DataTypes.JSON, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${prefix}_items`, underscored: true, timestamps: false },
  );
  const Part = sequelize.define(
    `${prefix}Part`,
    { id, itemId: { type: DataTypes.UUID, allowNull: false }, size: { type: DataTypes.STRING(10), allowNull: true } },
    { tableName: `${prefix}_parts`, underscored: true, timestamps: false },
  );
  Item.hasMany(Part, { as: 'parts', foreignKey: 'itemId' });
  return { Item, Part };
}

const spec: ResourceSpec<Model> = {
  policy: { fillable: ['name', 'note', 'stock'] },
  relations: { parts: { filterable: ['size'] } },
};

for (const db of databases)
  for (const form of FORMS) {
    describe(
      `null operator and strict query parameters (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        const prefix = `sp${form.initial}`;
        let server: TestServer;
        const errors: unknown[] = [];
        const names = async (path: string): Promise<string[]> => {
          const res = await server.get(path);
          assert.equal(res.status, 200, `${path}: ${res.text}`);
          return res.body.data.map((row: { name: string }) => row.name).sort();
        };
        const fails = async (path: string): Promise<[string, string][]> => {
          const res = await server.get(path);
          assert.equal(res.status, 400, `${path}: ${res.text}`);
          assert.match(res.headers.get('content-type') ?? '', /json/);
          return res.body.data.map((f: { field: string; error: string }) => [f.field, f.error]);
        };

        before(async () => {
          const { Item, Part } = defineModels(db.sequelize!, prefix);
          await Part.drop().catch(() => undefined);
          await Item.sync({ force: true });
          await Part.sync({ force: true });
          const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
          await Item.bulkCreate([
            { id: a, name: 'Alpha', note: 'n', stock: 1, seenAt: new Date('2024-01-01T00:00:00Z'), meta: { k: 1 } },
            { id: b, name: 'Beta', note: null, stock: null, seenAt: null, meta: null },
            { id: c, name: 'Gamma', note: null, stock: 3, seenAt: null, meta: { k: 2 } },
            { id: d, name: 'Trashed', note: null, stock: null, deletedAt: new Date('2024-02-02T00:00:00Z') },
          ]);
          await Part.bulkCreate([
            { itemId: a, size: 'L' },
            { itemId: b, size: null },
            { itemId: c, size: 'S' },
          ]);
          const router = new Router();
          form.register(router, 'strict', Item, spec);
          form.register(router, 'lenient', Item, spec, { config: { search: { strict_params: false } } });
          server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()), errors);
        });
        after(() => server?.close());

        it('returns the rows whose column IS NULL for null, on text, integer, date and json columns, whatever the value', async () => {
          assert.deepEqual(await names('/strict?filter[note][null]=1'), ['Beta', 'Gamma']);
          assert.deepEqual(
            await names('/strict?filter[note][null]='),
            ['Beta', 'Gamma'],
            'an empty value still applies',
          );
          assert.deepEqual(await names('/strict?filter[note][null]'), ['Beta', 'Gamma']);
          assert.deepEqual(await names('/strict?filter[stock][null]=1'), ['Beta']);
          assert.deepEqual(await names('/strict?filter[seenAt][null]=1'), ['Beta', 'Gamma']);
          assert.deepEqual(await names('/strict?filter[meta][null]=1'), ['Beta']);
        });

        it('is the complement of nn: together they match nothing, apart they split the rows', async () => {
          assert.deepEqual(await names('/strict?filter[stock][null]=1&filter[stock][nn]=1'), []);
          const all = await names('/strict');
          const split = [
            ...(await names('/strict?filter[stock][null]=1')),
            ...(await names('/strict?filter[stock][nn]=1')),
          ].sort();
          assert.deepEqual(split, all);
        });

        it('matches through an association: the items that have a part whose size IS NULL', async () => {
          assert.deepEqual(await names('/strict?filter[parts.size][null]=1'), ['Beta']);
        });

        it('lists live rows only for null on the deleted-at column, as with no condition', async () => {
          assert.deepEqual(await names('/strict?filter[deletedAt][null]=1'), ['Alpha', 'Beta', 'Gamma']);
          assert.deepEqual(await names('/strict?filter[deletedAt][nn]=1'), ['Trashed']);
        });

        it('returns 400 unknownParameter naming each parameter search does not read, with the nearest known one, beside the other failures', async () => {
          const res = await server.get('/strict?perpage=2&filters[name]=Alpha&_sort=name&sort=colour');
          assert.equal(res.status, 400);
          assert.deepEqual(
            res.body.data.map((f: { field: string; error: string; message: string }) => [
              f.field,
              f.error,
              /did you mean '(\w+)'/.exec(f.message)?.[1],
            ]),
            [
              ['perpage', 'unknownParameter', 'perPage'],
              ['filters', 'unknownParameter', 'filter'],
              ['_sort', 'unknownParameter', 'sort'],
              ['colour', 'columnNotFound', undefined],
            ],
          );
          assert.deepEqual(await fails('/strict?q=alp'), [['q', 'unknownParameter']]);
        });

        it('accepts every parameter search reads', async () => {
          assert.deepEqual(
            await names('/strict?filter[name][like]=a&sort=-name&page=1&perPage=2&skipPagination=false&include='),
            ['Beta', 'Gamma'],
          );
        });

        it('returns a JSON 400 for an export given a page, include or a misspelt parameter, and the CSV for filter and sort', async () => {
          assert.deepEqual(await fails('/strict/export-csv?page=1&perPage=5'), [
            ['page', 'unknownParameter'],
            ['perPage', 'unknownParameter'],
          ]);
          assert.deepEqual(await fails('/strict/export-csv?include=parts'), [['include', 'unknownParameter']]);
          const csv = await server.get('/strict/export-csv?filter[note][null]=1&sort=name');
          assert.equal(csv.status, 200, csv.text);
          assert.deepEqual(
            csv.text
              .trim()
              .split(/\r?\n/)
              .slice(1)
              .map((line) => line.split(',')[1]),
            ['Beta', 'Gamma'],
          );
        });

        it('leaves options unchecked: its hook may read a parameter of its own', async () => {
          const res = await server.get('/strict/options?label=name&startsWith=A');
          assert.equal(res.status, 200, res.text);
          assert.equal(res.body.data.length, 3);
        });

        it('ignores unknown parameters with search.strict_params false, on search and export alike', async () => {
          assert.deepEqual(await names('/lenient?perpage=1&_sort=name&filter[note][null]=1'), ['Beta', 'Gamma']);
          assert.equal((await server.get('/lenient/export-csv?page=2')).status, 200);
        });

        it('answered no request with a server error', () => assert.deepEqual(errors, []));
      },
    );
  }
