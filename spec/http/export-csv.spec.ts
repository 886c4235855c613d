import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, type FindOptions, type Model, type Sequelize } from 'sequelize';
import { csvCell, csvColumns, valueAt } from '../../lib/core/csv-cells.js';
import type { ResourceSpec } from '../../lib/index.js';
import { cellTextArb, centsArb, storedDateArb } from '../arbitraries/csv-arb.js';
import { parseCsv } from '../support/csv.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Runs of the CSV-equals-JSON property per form and dialect. */
const RUNS = Number(process.env['FAST_CRUD_EXPORT_RUNS'] ?? 15);

/** ISO 8601 as `Date.prototype.toISOString` writes it. */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Products with a DECIMAL getter, a plain DECIMAL that may be negative, dates, JSON and free text,
 * a category soft-deleted by the configured `deleted_at` column and a paranoid brand.
 */
function defineShop(sequelize: Sequelize, prefix: string) {
  const Category = sequelize.define(
    `${prefix}Category`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(40), allowNull: false },
      deletedAt: DataTypes.DATE,
    },
    { tableName: `${prefix}_categories`, underscored: true, timestamps: false },
  );
  const Brand = sequelize.define(
    `${prefix}Brand`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(40), allowNull: false },
    },
    { tableName: `${prefix}_brands`, underscored: true, paranoid: true },
  );
  const Product = sequelize.define(
    `${prefix}Product`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(40), allowNull: false },
      price: {
        type: DataTypes.DECIMAL(10, 2),
        allowNull: false,
        get(this: Model) {
          const price = this.getDataValue('price') as unknown;
          return price === null || price === undefined ? price : Number(price).toFixed(2);
        },
      },
      cost: { type: DataTypes.DECIMAL(10, 2), allowNull: true },
      stock: { type: DataTypes.INTEGER, allowNull: true },
      active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      releasedAt: { type: DataTypes.DATE, allowNull: true },
      releasedOn: { type: DataTypes.DATEONLY, allowNull: true },
      tags: { type: DataTypes.JSON, allowNull: true },
      note: { type: DataTypes.STRING(40), allowNull: true },
      secret: { type: DataTypes.STRING(40), allowNull: true },
      categoryId: { type: DataTypes.INTEGER, allowNull: true },
      brandId: { type: DataTypes.INTEGER, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${prefix}_products`, underscored: true },
  );
  Product.belongsTo(Category, { as: 'category', foreignKey: 'categoryId', constraints: false });
  Product.belongsTo(Brand, { as: 'brand', foreignKey: 'brandId', constraints: false });
  return { Category, Brand, Product };
}

type Shop = ReturnType<typeof defineShop>;

async function syncShop(shop: Shop): Promise<void> {
  for (const model of Object.values(shop)) await model.sync({ force: true });
}

/** Every visible attribute of a product, then its category's and brand's names. */
const COLUMNS = [
  'id',
  'name',
  'price',
  'cost',
  'stock',
  'active',
  'releasedAt',
  'releasedOn',
  'tags',
  'note',
  'categoryId',
  'brandId',
  'deletedAt',
  'createdAt',
  'updatedAt',
  'category.name',
  'brand.name',
];

/** The search shows the associations the export names, soft-deleted ones left out as the export leaves them. */
const withAssociations = (query: FindOptions): FindOptions => ({
  ...query,
  include: [
    { association: 'category', attributes: ['name'], required: false, where: { deletedAt: null } },
    { association: 'brand', attributes: ['name'], required: false },
  ],
});

function productSpec(): ResourceSpec<Model> {
  return {
    policy: { fillable: 'all', hidden: ['secret'] },
    csv: { columns: Object.fromEntries(COLUMNS.map((path) => [path, path])) },
    hooks: { modifySearchQuery: withAssociations },
  };
}

/** The export's rows as search's JSON would write them: csvCell of each JSON value, column by column. */
function expectedRows(model: Shop['Product'], rows: readonly Record<string, unknown>[]): string[][] {
  const columns = csvColumns(model, Object.fromEntries(COLUMNS.map((path) => [path, path])));
  return rows.map((row) => columns.map((column) => csvCell(valueAt(row, column.path), column.kind)));
}

const productArb = fc.record({
  name: cellTextArb.filter((name) => name.trim() !== ''),
  cents: centsArb.map((cents) => Math.abs(cents)),
  cost: fc.option(centsArb, { nil: null }),
  stock: fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null }),
  active: fc.boolean(),
  releasedAt: fc.option(storedDateArb, { nil: null }),
  releasedOn: fc.option(
    storedDateArb.map((date) => date.toISOString().slice(0, 10)),
    { nil: null },
  ),
  tags: fc.option(fc.array(cellTextArb, { maxLength: 3 }), { nil: null }),
  note: fc.option(cellTextArb, { nil: null }),
  category: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  brand: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  deleted: fc.boolean(),
});

for (const db of databases)
  for (const form of FORMS) {
    describe(`exportCsv cells (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `exc${form.initial}`;
      let server: TestServer;
      let shop: Shop;
      let random: Shop;
      const errors: unknown[] = [];
      const ids: Record<string, number> = {};

      before(async () => {
        shop = defineShop(db.sequelize!, prefix);
        random = defineShop(db.sequelize!, `${prefix}p`);
        await syncShop(shop);
        await syncShop(random);
        const { Category, Brand, Product } = shop;
        const books = await Category.create({ name: 'Books' });
        const gone = await Category.create({ name: 'Gone category', deletedAt: new Date() });
        const acme = await Brand.create({ name: 'Acme' });
        const retired = await Brand.create({ name: 'Retired brand' });
        await retired.destroy();
        const rows = [
          {
            name: 'Atlas',
            price: '100.50',
            cost: '-5.00',
            stock: -3,
            releasedAt: new Date(Date.UTC(2024, 0, 1)),
            releasedOn: '2024-01-01',
            note: '=1+1',
            categoryId: books.get('id'),
            brandId: acme.get('id'),
          },
          {
            name: '-Minus',
            price: '7.00',
            cost: '-0.50',
            stock: 0,
            releasedAt: null,
            releasedOn: null,
            note: ' =HYPERLINK("x")',
            categoryId: gone.get('id'),
            brandId: retired.get('id'),
          },
          {
            name: 'Wide',
            price: '0.10',
            cost: '12.00',
            stock: null,
            releasedAt: new Date(Date.UTC(2023, 11, 24, 18, 30, 5)),
            releasedOn: null,
            note: '＝1+1',
            categoryId: null,
            brandId: null,
          },
        ];
        for (const row of rows) ids[row.name] = (await Product.create({ ...row, secret: 's' })).get('id') as number;
        const router = new Router();
        form.register(router, 'products', Product, productSpec(), { only: ['search', 'exportCsv'] });
        form.register(router, 'random', random.Product, productSpec(), {
          only: ['search', 'exportCsv'],
          config: { export_csv: { batch_size: 3 } },
        });
        form.register(
          router,
          'plain',
          Product,
          { policy: { fillable: 'all', hidden: ['secret'] } },
          { only: ['exportCsv'] },
        );
        const redact = {
          name: 'redact',
          rows: (rows: Record<string, unknown>[]) =>
            rows.map((row) => ({ ...row, note: row['note'] === null ? null : '[redacted]' })),
        };
        form.register(router, 'redacted', Product, productSpec(), { only: ['search', 'exportCsv'], plugins: [redact] });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      /** The export's records by product name, each as header → cell. */
      async function exported(path = '/products/export-csv?sort=id'): Promise<Record<string, Record<string, string>>> {
        const res = await server.get(path);
        assert.equal(res.status, 200, res.text);
        const [header, ...records] = parseCsv(res.text);
        return Object.fromEntries(
          records.map((record) => {
            const cells = Object.fromEntries(header!.map((name, i) => [name, record[i]!]));
            return [cells['name']!.replace(/^'/, ''), cells];
          }),
        );
      }

      it('sends the export with Cache-Control: no-store, Pragma: no-cache and X-Content-Type-Options: nosniff', async () => {
        const res = await server.get('/products/export-csv');
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.equal(res.headers.get('pragma'), 'no-cache');
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
      });

      it('returns a getter\'s value, as search\'s JSON shows it ("100.50", not 100.5)', async () => {
        const cells = await exported();
        const json = (await server.get('/products?sort=id')).body.data as Record<string, unknown>[];
        assert.deepEqual(
          json.map((row) => row['price']),
          ['100.50', '7.00', '0.10'],
        );
        assert.deepEqual(
          ['Atlas', '-Minus', 'Wide'].map((name) => cells[name]!['price']),
          ['100.50', '7.00', '0.10'],
        );
      });

      it('returns dates as ISO 8601 (Date.toISOString) on every dialect, DATEONLY as YYYY-MM-DD', async () => {
        const cells = await exported();
        assert.equal(cells['Atlas']!['releasedAt'], '2024-01-01T00:00:00.000Z');
        assert.equal(cells['Wide']!['releasedAt'], '2023-12-24T18:30:05.000Z');
        assert.equal(cells['Atlas']!['releasedOn'], '2024-01-01');
        assert.equal(cells['-Minus']!['releasedAt'], '');
        for (const row of Object.values(cells))
          for (const column of ['createdAt', 'updatedAt']) assert.match(row[column]!, ISO, `${column} ${row[column]}`);
      });

      it('writes negative numbers, DECIMAL text included, as values with no formula quote', async () => {
        const cells = await exported();
        // PostgreSQL returns a DECIMAL as text ('-5.00'), SQLite and MariaDB as a number.
        const decimals = db.dialect === 'postgres' ? ['-5.00', '-0.50'] : ['-5', '-0.5'];
        assert.deepEqual(
          [cells['Atlas']!['cost'], cells['-Minus']!['cost'], cells['Atlas']!['stock']],
          [...decimals, '-3'],
        );
        assert.equal(cells['Atlas']!['active'], 'true');
      });

      it('guards text cells: a trigger first, whitespace before one, or a full-width ＝', async () => {
        const cells = await exported();
        assert.deepEqual(
          [cells['Atlas']!['note'], cells['-Minus']!['note'], cells['Wide']!['note'], cells['-Minus']!['name']],
          ["'=1+1", `' =HYPERLINK("x")`, "'＝1+1", "'-Minus"],
        );
      });

      it('shows a soft-deleted category (deleted_at column) and a destroyed paranoid brand as empty cells', async () => {
        const cells = await exported();
        assert.deepEqual([cells['Atlas']!['category.name'], cells['Atlas']!['brand.name']], ['Books', 'Acme']);
        assert.deepEqual([cells['-Minus']!['category.name'], cells['-Minus']!['brand.name']], ['', '']);
        assert.deepEqual([cells['Wide']!['category.name'], cells['Wide']!['brand.name']], ['', '']);
        assert.equal(Object.keys(cells).length, 3, 'a soft-deleted association never drops its product');
      });

      it('exports every visible attribute by default, with the same cells', async () => {
        const cells = await exported('/plain/export-csv?sort=id');
        assert.ok(!('secret' in cells['Atlas']!));
        assert.deepEqual(
          [cells['Atlas']!['price'], cells['Atlas']!['cost'], cells['Atlas']!['releasedAt']],
          ['100.50', db.dialect === 'postgres' ? '-5.00' : '-5', '2024-01-01T00:00:00.000Z'],
        );
      });

      it("writes the rows a plugin's rows stage returns, as search shows them", async () => {
        const cells = await exported('/redacted/export-csv?sort=id');
        const json = (await server.get('/redacted?sort=id')).body.data as Record<string, unknown>[];
        assert.deepEqual(
          json.map((row) => row['note']),
          ['[redacted]', '[redacted]', '[redacted]'],
        );
        assert.deepEqual(
          Object.values(cells).map((row) => row['note']),
          ['[redacted]', '[redacted]', '[redacted]'],
        );
      });

      it("agrees with search's JSON cell by cell: each cell is csvCell of the JSON value (random rows)", async () => {
        const { Category, Brand, Product } = random;
        await fc.assert(
          fc.asyncProperty(
            fc.array(productArb, { maxLength: 8 }),
            fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
            async (products, deletedAssociations) => {
              for (const model of [Product, Category, Brand])
                await model.destroy({ where: {}, truncate: true, force: true });
              const categories = await Promise.all(
                ['Books', '=Toys', '-Tools'].map((name, i) =>
                  Category.create({ name, deletedAt: deletedAssociations[i] ? new Date() : null }),
                ),
              );
              const brands = await Promise.all(['Acme', '+Brand', ' @Co'].map((name) => Brand.create({ name })));
              for (const [i, brand] of brands.entries()) if (deletedAssociations[(i + 1) % 3]) await brand.destroy();
              for (const p of products) {
                await Product.create({
                  name: p.name,
                  price: (p.cents / 100).toFixed(2),
                  cost: p.cost === null ? null : (p.cost / 100).toFixed(2),
                  stock: p.stock,
                  active: p.active,
                  releasedAt: p.releasedAt,
                  releasedOn: p.releasedOn,
                  tags: p.tags,
                  note: p.note,
                  categoryId: p.category === null ? null : categories[p.category]!.get('id'),
                  brandId: p.brand === null ? null : brands[p.brand]!.get('id'),
                  deletedAt: p.deleted ? new Date() : null,
                });
              }
              const json = await server.get('/random?sort=id&perPage=500');
              assert.equal(json.status, 200, json.text);
              const csv = await server.get('/random/export-csv?sort=id');
              assert.equal(csv.status, 200, csv.text);
              const [header, ...records] = parseCsv(csv.text);
              assert.deepEqual(header, COLUMNS);
              assert.deepEqual(records, expectedRows(Product, json.body.data));
            },
          ),
          { numRuns: RUNS },
        );
        assert.deepEqual(errors, []);
      });
    });
  }
