import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { bodyArb, queryStringArb } from '../arbitraries/request-arb.js';
import { defineCatalog, syncCatalog, type Catalog } from '../support/catalog.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Runs per property, form and dialect: half the old single-form default, so both forms take the time one did. */
const RUNS = Number(process.env['FAST_CRUD_FUZZ_RUNS'] ?? 75);

for (const db of databases)
  for (const form of FORMS) {
    describe(`random requests (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let catalog: Catalog;
      let id: string;
      const errors: unknown[] = [];

      before(async () => {
        catalog = defineCatalog(db.sequelize!, `fz${form.initial}`);
        await syncCatalog(catalog);
        const product = await catalog.Product.create({ sku: 'F-1', name: 'Fuzz', price: 1, tags: ['a'] });
        id = product.get('id') as string;
        const router = new Router();
        form.register(router, 'products', catalog.Product, {
          policy: { fillable: 'all', hidden: ['secret'] },
          search: { termFields: ['name'] },
          relations: { category: { include: true } },
          aggregate: true,
        });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      const noServerFault = (res: { status: number; text: string }, what: string) => {
        assert.ok(res.status < 500, `${what} → ${res.status} ${res.text}\n${errors.map(String).join('\n')}`);
        assert.deepEqual(errors, []);
      };

      it('answers any query string of search, export, options and aggregate with no 5xx', async () => {
        await fc.assert(
          fc.asyncProperty(
            queryStringArb,
            fc.constantFrom('/products', '/products/export-csv', '/products/options', '/products/aggregate'),
            async (query, path) => {
              errors.length = 0;
              noServerFault(await server.get(`${path}?${query}`), `GET ${path}?${query}`);
            },
          ),
          { numRuns: RUNS },
        );
      });

      it('answers any body of create and update with no 5xx', async () => {
        await fc.assert(
          fc.asyncProperty(bodyArb, fc.constantFrom('POST', 'PATCH'), async (body, verb) => {
            const path = verb === 'POST' ? '/products' : `/products/${id}`;
            errors.length = 0;
            const res = await server.request(verb, path, {
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            noServerFault(res, `${verb} ${JSON.stringify(body)}`);
          }),
          { numRuns: RUNS },
        );
      });
    });
  }
