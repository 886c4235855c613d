import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Op, type FindOptions, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import {
  CrudController,
  createFastCrud,
  crud,
  resource,
  tenantScope,
  type CrudTarget,
  type ResourceHooks,
} from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineInvoice(sequelize: Sequelize): ModelStatic<Model> {
  return sequelize.define(
    'TenInvoice',
    {
      id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
      tenantId: { type: DataTypes.STRING(20), allowNull: false },
      title: { type: DataTypes.STRING(60), allowNull: false },
      amount: { type: DataTypes.INTEGER, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'ten_invoices', underscored: true },
  );
}

/** Every row of tenant B has a title starting `B `: what the widening hooks try to let in. */
const B_TITLES = { title: { [Op.like]: 'B %' } };

/** A modify-query hook that tries to widen the query to tenant B's rows; the plugin runs after it. */
function widen(query: FindOptions): FindOptions {
  return { ...query, where: { [Op.or]: [query.where ?? { id: { [Op.ne]: null } }, B_TITLES] } };
}

const QUERY_HOOKS = [
  'modifySearchQuery',
  'modifyOptionsQuery',
  'modifyExportCsvQuery',
  'modifyReadQuery',
  'modifyUpdateQuery',
  'modifyDeleteQuery',
  'modifySoftDeleteQuery',
  'modifyRestoreQuery',
] as const;

/** The tenant of a request, set from its `x-tenant` header by the app's own middleware. */
const tenantOf = (ctx: { state: Record<string, unknown> }) => ctx.state['tenant'];

/** One way of registering the resource: its form, where the plugin comes from, whether the tenant is fillable. */
interface Variant {
  readonly uri: string;
  readonly form: 'resource' | 'class';
  readonly plugins: 'crud options' | 'createFastCrud';
  /** The name the plugin is given: the attribute or its column. */
  readonly attribute: 'tenantId' | 'tenant_id';
  readonly tenantFillable: boolean;
}

const VARIANTS: readonly Variant[] = [
  { uri: 'resource-crud', form: 'resource', plugins: 'crud options', attribute: 'tenantId', tenantFillable: false },
  { uri: 'resource-app', form: 'resource', plugins: 'createFastCrud', attribute: 'tenant_id', tenantFillable: true },
  { uri: 'class-crud', form: 'class', plugins: 'crud options', attribute: 'tenant_id', tenantFillable: true },
  { uri: 'class-app', form: 'class', plugins: 'createFastCrud', attribute: 'tenantId', tenantFillable: false },
];

function targetOf(variant: Variant, Invoice: ModelStatic<Model>): CrudTarget {
  const fillable = variant.tenantFillable ? ('all' as const) : ['title', 'amount'];
  if (variant.form === 'resource') {
    const hooks: ResourceHooks<Model> = Object.fromEntries(QUERY_HOOKS.map((name) => [name, widen]));
    return resource(Invoice, { policy: { fillable }, hooks });
  }
  return class InvoiceController extends CrudController {
    override fillable = fillable;
    modelClassName() {
      return Invoice;
    }
    override modifySearchQuery = widen;
    override modifyOptionsQuery = widen;
    override modifyExportCsvQuery = widen;
    override modifyReadQuery = widen;
    override modifyUpdateQuery = widen;
    override modifyDeleteQuery = widen;
    override modifySoftDeleteQuery = widen;
    override modifyRestoreQuery = widen;
  };
}

function register(router: Router, variant: Variant, Invoice: ModelStatic<Model>): void {
  const plugin = tenantScope(variant.attribute, tenantOf);
  const target = targetOf(variant, Invoice);
  if (variant.plugins === 'crud options') crud(router, variant.uri, target, { plugins: [plugin] });
  else createFastCrud({ plugins: [plugin] }).crud(router, variant.uri, target);
}

for (const db of databases) {
  describe(`tenantScope on ${db.dialect}`, { skip: db.skip }, () => {
    let server: TestServer;
    let Invoice: ModelStatic<Model>;
    const errors: unknown[] = [];
    /** Row ids by title, reseeded before every test. */
    const ids: Record<string, string> = {};

    before(async () => {
      Invoice = defineInvoice(db.sequelize!);
      await Invoice.sync({ force: true });
      const router = new Router();
      for (const variant of VARIANTS) register(router, variant, Invoice);
      const app = new Koa().use(async (ctx, next) => {
        const tenant = ctx.get('x-tenant');
        if (tenant !== '') ctx.state['tenant'] = tenant;
        await next();
      });
      server = await serve(app.use(router.routes()), errors);
    });
    after(() => server?.close());

    beforeEach(async () => {
      errors.length = 0;
      await Invoice.destroy({ where: {}, force: true });
      const rows = [
        { tenantId: 'a', title: 'A one', amount: 10 },
        { tenantId: 'a', title: 'A two', amount: 20 },
        { tenantId: 'a', title: 'A gone', amount: 30, deletedAt: new Date() },
        { tenantId: 'b', title: 'B one', amount: 11 },
        { tenantId: 'b', title: 'B two', amount: 21 },
        { tenantId: 'b', title: 'B gone', amount: 31, deletedAt: new Date() },
      ].map((row) => ({ ...row, id: randomUUID() }));
      await Invoice.bulkCreate(rows);
      for (const row of rows) ids[row.title] = row.id;
    });

    const as = (tenant: string | undefined, init: RequestInit = {}): RequestInit => ({
      ...init,
      headers: { ...(tenant && { 'x-tenant': tenant }), 'content-type': 'application/json' },
    });
    const send = (tenant: string | undefined, method: string, path: string, body?: unknown) =>
      server.request(method, path, as(tenant, body === undefined ? {} : { body: JSON.stringify(body) }));
    const stored = async (title: string) =>
      (await Invoice.findByPk(ids[title], { paranoid: false }))?.toJSON() as Record<string, unknown> | undefined;
    const assertNotFound = (response: { status: number; body: any }, what: string) => {
      assert.equal(response.status, 404, what);
      assert.equal(response.body.status, 'fail', what);
      assert.equal(response.body.data[0].error, 'recordNotFound', what);
    };

    for (const variant of VARIANTS) {
      const base = `/${variant.uri}`;
      const title = `${variant.form} form, plugin from ${variant.plugins}, tenant ${variant.tenantFillable ? '' : 'not '}fillable`;

      describe(title, () => {
        it("search shows only the tenant's rows, whatever the filter asks", async () => {
          const all = await send('a', 'GET', base);
          assert.equal(all.status, 200);
          assert.deepEqual(all.body.data.map((row: { title: string }) => row.title).sort(), ['A one', 'A two']);
          assert.equal(all.body.meta.pagination.count, 2);
          const theirs = await send('a', 'GET', `${base}?filter[tenantId]=b`);
          assert.deepEqual(theirs.body.data, []);
          const trashed = await send('a', 'GET', `${base}?filter[deletedAt][nn]=1`);
          assert.deepEqual(
            trashed.body.data.map((row: { title: string }) => row.title),
            ['A gone'],
          );
          // For tenant B the hook's widening lets in B's own trashed row, and nothing of A's.
          const asB = await send('b', 'GET', base);
          assert.deepEqual(asB.body.data.map((row: { title: string }) => row.title).sort(), [
            'B gone',
            'B one',
            'B two',
          ]);
          assert.ok(asB.body.data.every((row: { tenantId: string }) => row.tenantId === 'b'));
        });

        it("export and options list only the tenant's rows", async () => {
          const csv = await send('a', 'GET', `${base}/export-csv`);
          assert.equal(csv.status, 200);
          assert.match(csv.text, /A one/);
          assert.doesNotMatch(csv.text, /B one|B two|B gone/);
          const options = await send('a', 'GET', `${base}/options?label=title&value=id`);
          assert.equal(options.status, 200);
          assert.deepEqual(options.body.data.map((item: { label: string }) => item.label).sort(), ['A one', 'A two']);
        });

        it("read, update, delete, softDelete and restore of the other tenant's rows are 404s that change nothing", async () => {
          const before = await stored('B one');
          assertNotFound(await send('a', 'GET', `${base}/${ids['B one']}`), 'read');
          assertNotFound(await send('a', 'PATCH', `${base}/${ids['B one']}`, { title: 'B taken' }), 'update');
          assertNotFound(await send('a', 'PUT', `${base}/${ids['B one']}`, { title: 'B taken' }), 'update (PUT)');
          assertNotFound(await send('a', 'DELETE', `${base}/${ids['B one']}`), 'delete');
          assertNotFound(await send('a', 'DELETE', `${base}/${ids['B one']}/soft`), 'softDelete');
          assertNotFound(await send('a', 'PATCH', `${base}/${ids['B gone']}/restore`), 'restore');
          assert.deepEqual(await stored('B one'), before);
          assert.notEqual((await stored('B gone'))?.['deletedAt'], null);
        });

        it("reads, updates, soft-deletes, restores and deletes the tenant's own rows", async () => {
          const read = await send('a', 'GET', `${base}/${ids['A one']}`);
          assert.equal(read.status, 200);
          assert.equal(read.body.data.title, 'A one');
          assert.equal((await send('a', 'PATCH', `${base}/${ids['A one']}`, { title: 'A first' })).status, 200);
          assert.equal((await stored('A one'))?.['title'], 'A first');
          assert.equal((await send('a', 'DELETE', `${base}/${ids['A two']}/soft`)).status, 200);
          assert.notEqual((await stored('A two'))?.['deletedAt'], null);
          assert.equal((await send('a', 'PATCH', `${base}/${ids['A gone']}/restore`)).status, 200);
          assert.equal((await stored('A gone'))?.['deletedAt'], null);
          assert.equal((await send('a', 'DELETE', `${base}/${ids['A one']}`)).status, 200);
          assert.equal(await stored('A one'), undefined);
        });

        it("create writes the request's tenant even when the body names another", async () => {
          for (const key of ['tenantId', 'tenant_id']) {
            const created = await send('a', 'POST', base, { title: `A new ${key}`, amount: 1, [key]: 'b' });
            assert.equal(created.status, 201);
            assert.equal(created.body.data.tenantId, 'a');
            assert.equal((await Invoice.findByPk(created.body.data.id))?.get('tenantId'), 'a');
          }
          assert.equal(await Invoice.count({ where: { tenantId: 'b' }, paranoid: false }), 3);
        });

        it('update never moves a row to another tenant', async () => {
          for (const key of ['tenantId', 'tenant_id']) {
            const updated = await send('a', 'PATCH', `${base}/${ids['A one']}`, {
              title: `A moved ${key}`,
              [key]: 'b',
            });
            assert.equal(updated.status, 200);
            assert.equal(updated.body.data.tenantId, 'a');
            assert.deepEqual(
              [(await stored('A one'))?.['tenantId'], (await stored('A one'))?.['title']],
              ['a', `A moved ${key}`],
            );
          }
        });

        it('a request without a tenant is a 403 JSend fail on every route, and writes nothing', async () => {
          const routes: [string, string, unknown?][] = [
            ['GET', base],
            ['GET', `${base}/options?label=title&value=id`],
            ['GET', `${base}/export-csv`],
            ['POST', base, { title: 'A orphan', amount: 1 }],
            ['GET', `${base}/${ids['A one']}`],
            ['PATCH', `${base}/${ids['A one']}`, { title: 'A orphan' }],
            ['DELETE', `${base}/${ids['A one']}`],
            ['DELETE', `${base}/${ids['A two']}/soft`],
            ['PATCH', `${base}/${ids['A gone']}/restore`],
          ];
          for (const [method, path, body] of routes) {
            const response = await send(undefined, method, path, body);
            assert.equal(response.status, 403, `${method} ${path}`);
            assert.equal(response.body.status, 'fail', `${method} ${path}`);
            assert.deepEqual(
              response.body.data,
              [{ field: null, error: 'forbidden', message: 'This request has no tenant' }],
              `${method} ${path}`,
            );
          }
          assert.equal(await Invoice.count({ paranoid: false }), 6);
          assert.equal((await stored('A one'))?.['title'], 'A one');
          assert.equal((await stored('A two'))?.['deletedAt'], null);
          assert.notEqual((await stored('A gone'))?.['deletedAt'], null);
        });

        it('served every request without a server fault', () => {
          assert.deepEqual(errors, []);
        });
      });
    }
  });
}
