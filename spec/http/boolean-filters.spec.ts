/**
 * `filter[$or]` and `filter[$and]` over HTTP: every operator and a relation path three groups deep means what it means
 * at the top, an `$or` is the union of its items, the tenant scope and soft deletes hold outside the groups, export and
 * batch writes read the same filters, and each mistake is a 400 naming its path. Tables `bo*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Sequelize } from 'sequelize';
import { tenantScope } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineModels(sequelize: Sequelize, prefix: string) {
  const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true };
  const options = { underscored: true, timestamps: false };
  const Category = sequelize.define(
    `${prefix}Category`,
    { id, name: DataTypes.STRING(20), tenant: DataTypes.STRING(8) },
    { ...options, tableName: `${prefix}_categories` },
  );
  const Product = sequelize.define(
    `${prefix}Product`,
    {
      id,
      name: DataTypes.STRING(20),
      price: DataTypes.DECIMAL(10, 2),
      stock: DataTypes.INTEGER,
      day: DataTypes.DATEONLY,
      tags: DataTypes.JSON,
      tenant: DataTypes.STRING(8),
      categoryId: DataTypes.INTEGER,
      deletedAt: DataTypes.DATE,
    },
    { ...options, tableName: `${prefix}_products` },
  );
  Product.belongsTo(Category, { as: 'category', foreignKey: 'categoryId', constraints: false });
  return { Category, Product };
}

async function seed({ Category, Product }: ReturnType<typeof defineModels>): Promise<void> {
  await Category.sync({ force: true });
  await Product.sync({ force: true });
  await Category.bulkCreate([
    { name: 'Fruit', tenant: 'a' },
    { name: 'Veg', tenant: 'a' },
    { name: 'B-cat', tenant: 'b' },
  ]);
  const row = (
    name: string,
    price: number,
    stock: number | null,
    day: string | null,
    tags: string[],
    categoryId: number,
  ) => ({
    name,
    price,
    stock,
    day,
    tags,
    categoryId,
    tenant: name.startsWith('B-') ? 'b' : 'a',
  });
  await Product.bulkCreate([
    row('Apple', 1.5, 10, '2024-01-10', ['red'], 1),
    row('Banana', 0.5, null, '2024-02-01', ['yellow'], 1),
    row('Carrot', 2, 0, '2024-03-15', ['orange'], 2),
    // Tenant a's product in tenant b's category: only the scope keeps B-cat out of a's filters.
    row('Durian', 9, 3, null, ['green', 'red'], 3),
    row('B-Eggplant', 3, 5, '2024-02-20', ['purple'], 3),
  ]);
  await Product.create({
    ...row('Fig', 4, 1, '2024-04-01', ['brown'], 1),
    deletedAt: new Date('2025-01-01T00:00:00Z'),
  });
}

/** One condition per operator (and a relation path, a date bound), as `[column][operator]=value` after `filter`. */
const EXAMPLES = [
  '[name][eq]=Apple',
  '[name][neq]=Apple',
  '[price][gt]=1.5',
  '[price][gte]=1.5',
  '[price][lt]=2',
  '[price][lte]=2',
  '[stock][gtn]=2',
  '[stock][ltn]=2',
  '[name][in]=Apple,Carrot',
  '[name][nin]=Apple,Carrot',
  '[price][btw]=1,2',
  '[stock][nn]=1',
  '[stock][null]=1',
  '[name][like]=AN',
  '[tags][json]=["red"]',
  '[category.name][like]=fru',
  '[day]=2024-02',
] as const;

for (const db of databases)
  for (const form of FORMS) {
    describe(`filter[$or] and filter[$and] (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let models: ReturnType<typeof defineModels>;

      before(async () => {
        models = defineModels(db.sequelize!, `bo${form.initial}`);
        await seed(models);
        const config = { global: { find_field_is_uuid: false } };
        const plugins = [tenantScope('tenant', (ctx) => ctx.get('x-tenant') || null)];
        const router = new Router();
        form.register(router, 'categories', models.Category, { policy: { fillable: ['name'] } }, { config, plugins });
        form.register(
          router,
          'products',
          models.Product,
          { policy: { fillable: ['name', 'stock'] }, relations: { category: {} }, batch: true },
          { config, plugins },
        );
        server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()));
      });
      after(() => server?.close());

      const get = (query: string, tenant = 'a') =>
        server.request('GET', `/products?${query}`, { headers: { 'x-tenant': tenant } });
      const names = async (query: string, tenant = 'a'): Promise<string[]> => {
        const res = await get(`${query}&sort=id`, tenant);
        assert.equal(res.status, 200, `${query}: ${res.text}`);
        return res.body.data.map((row: { name: string }) => row.name);
      };
      const failures = async (query: string): Promise<string[]> => {
        const res = await get(query);
        assert.equal(res.status, 400, `${query}: ${res.text}`);
        assert.equal(res.body.status, 'fail');
        return res.body.data.map((f: { field: string; error: string }) => `${f.field} ${f.error}`);
      };

      it('answers an $or with the rows of any item, and an $and with the rows of every item', async () => {
        assert.deepEqual(await names('filter[$or][0][name][like]=app&filter[$or][1][price][lt]=1'), [
          'Apple',
          'Banana',
        ]);
        assert.deepEqual(await names('filter[$and][0][price][gte]=1&filter[$and][1][stock][lte]=3'), [
          'Carrot',
          'Durian',
        ]);
        // A top-level condition is ANDed with the groups; an item of several conditions ANDs them.
        assert.deepEqual(
          await names(
            'filter[price][lt]=5&filter[$or][0][name]=Durian&filter[$or][1][stock][gte]=0&filter[$or][1][day][lt]=2024-03',
          ),
          ['Apple'],
        );
      });

      it('runs every operator and a relation path three groups deep ($or › $and › $or) as at the top, and ORs them', async () => {
        const carrot = await names('filter[name]=Carrot');
        let nonEmpty = 0;
        for (const example of EXAMPLES) {
          const top = await names(`filter${example}`);
          nonEmpty += top.length > 0 ? 1 : 0;
          assert.deepEqual(await names(`filter[$or][0][$and][0][$or][0]${example}`), top, example);
          const union = await names(`filter[$or][0]${example}&filter[$or][1][name]=Carrot`);
          assert.deepEqual(
            union,
            (await names('')).filter((name) => top.includes(name) || carrot.includes(name)),
            example,
          );
        }
        assert.equal(nonEmpty, EXAMPLES.length, 'every example matches some row');
      });

      it('keeps the tenant scope outside the groups: no $or item, relation path or column reaches another tenant', async () => {
        const query = 'filter[$or][0][category.name]=B-cat&filter[$or][1][name][like]=eggplant';
        assert.deepEqual(await names(query, 'a'), []);
        assert.deepEqual(await names(query, 'b'), ['B-Eggplant']);
        const widened = await get('filter[$or][0][tenant]=b&filter[$or][1][id][gt]=0');
        assert.equal(widened.status, 200, widened.text);
        assert.ok(!/B-/.test(widened.text), widened.text);
        assert.equal(widened.body.meta.pagination.count, 4);
      });

      it('leaves soft-deleted rows out unless a condition on the deleted-at column, in a group too, asks for them', async () => {
        assert.deepEqual(await names('filter[$or][0][name]=Fig&filter[$or][1][name]=Apple'), ['Apple']);
        assert.deepEqual(await names('filter[$or][0][deletedAt][nn]=1&filter[$or][1][name]=Apple'), ['Apple', 'Fig']);
      });

      it('drops an item of empty values, and a group of them, as it drops an empty field', async () => {
        assert.deepEqual(await names('filter[$or][0][name]=&filter[$or][1][name]=Apple'), ['Apple']);
        assert.deepEqual(await names('filter[$or][0][name][like]=&filter[name]=Banana'), ['Banana']);
      });

      it('exports and batch-writes the rows the same groups match', async () => {
        const csv = await server.request(
          'GET',
          '/products/export-csv?filter[$or][0][name]=Apple&filter[$or][1][price][gte]=9',
          {
            headers: { 'x-tenant': 'a' },
          },
        );
        assert.equal(csv.status, 200, csv.text);
        const lines = csv.text.trim().split(/\r?\n/);
        assert.equal(lines.length, 3, csv.text);
        assert.ok(lines[1]!.includes('Apple') && lines[2]!.includes('Durian'), csv.text);
        const patch = await server.request(
          'PATCH',
          '/products?filter[$or][0][name]=Banana&filter[$or][1][$and][0][name][like]=e&filter[$or][1][$and][1][price][lt]=3',
          {
            headers: { 'x-tenant': 'a', 'content-type': 'application/json' },
            body: JSON.stringify({ stock: 42 }),
          },
        );
        assert.equal(patch.status, 200, patch.text);
        const changed = await models.Product.findAll({ where: { stock: 42 }, order: [['id', 'ASC']], paranoid: false });
        assert.deepEqual(
          changed.map((p) => p.get('name')),
          ['Apple', 'Banana'],
        );
        const refused = await server.request('PATCH', '/products?filter[$or][0][price][lt]=x', {
          headers: { 'x-tenant': 'a', 'content-type': 'application/json' },
          body: JSON.stringify({ stock: 1 }),
        });
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.data[0].field, 'filter.$or.0.price');
      });

      it('refuses each mistake with a 400 naming its path', async () => {
        assert.deepEqual(await failures('filter[$or][0][name][like]=x&filter[$or][1][price][lt]=cheap'), [
          'filter.$or.1.price invalidValue',
        ]);
        assert.deepEqual(await failures('filter[$or][0][nope]=1&filter[$and][0][name][regex]=x'), [
          'filter.$or.0.nope columnNotFound',
          'filter.$and.0.name invalidOperator',
        ]);
        assert.deepEqual(await failures('filter[$or][0][constructor]=1'), ['filter.$or.0.constructor columnNotFound']);
        assert.deepEqual(await failures('filter[$or][0][$and][0][$or][0][$and][0][name]=x'), [
          'filter.$or.0.$and.0.$or.0.$and invalidValue',
        ]);
        assert.deepEqual(await failures('filter[$or][0][$and][0][$or][0][name][in][][x]=1'), ['filter invalidValue']);
        assert.deepEqual(await failures('filter[$or]='), ['filter.$or invalidValue']);
        assert.deepEqual(await failures('filter[$or][0]=x'), ['filter.$or.0 invalidValue']);
        assert.deepEqual(await failures('filter[$xor][0][name]=x'), ['filter.$xor invalidOperator']);
        assert.deepEqual(await failures('filter[$or][0][category.secret]=x'), [
          'filter.$or.0.category.secret columnNotFound',
        ]);
      });
    });
  }
