/**
 * Sparse fieldsets (`fields=`) on search, read and exportCsv, and the reply of a lowered `perPage`, on every database and
 * in both forms (issue 24 items 1 and 5).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import type { Model } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { observeExecution } from '../../lib/execute/state.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { defineRelationCatalog, seedRelationCatalog, type RelationCatalog } from '../support/relations-catalog.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const products: ResourceSpec<Model> = {
  policy: { fillable: 'all' },
  relations: {
    category: { hidden: ['secret'], include: true },
    order: { include: true },
    'order.customer': { hidden: ['secret'], include: true },
    tags: { include: true },
  },
};

for (const db of databases)
  for (const form of FORMS) {
    describe(`sparse fieldsets (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let catalog: RelationCatalog;
      let ids: Record<string, string>;
      let stop: () => void = () => undefined;
      const errors: unknown[] = [];

      before(async () => {
        catalog = defineRelationCatalog(db.sequelize!, `sf${form.initial}`);
        ids = await seedRelationCatalog(catalog);
        const router = new Router();
        form.register(router, 'products', catalog.Product, products);
        form.register(
          router,
          'priceless',
          catalog.Product,
          { policy: { fillable: 'all', hidden: ['price'] } },
          { only: ['search'] },
        );
        const open = { policy: { fillable: 'all' as const } };
        form.register(router, 'capped', catalog.Product, open, {
          only: ['search'],
          config: { search: { max_per_page: 2 } },
        });
        form.register(router, 'uncounted', catalog.Product, open, {
          only: ['search'],
          config: { search: { max_per_page: 2, count: 'none' } },
        });
        stop = observeExecution(db.sequelize!, {
          searched: (ctx, { path }) => (ctx as Koa.Context).set('x-search-path-taken', path),
        });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(async () => {
        stop();
        await server?.close();
        assert.deepEqual(errors, []);
      });

      it('search keeps exactly the named fields, in their order, and selects them on the fast path', async () => {
        const res = await server.get('/products?fields=price,name&sort=name&perPage=2');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data, [
          { price: 10, name: 'Ball' },
          { price: 900, name: 'Laptop' },
        ]);
        assert.notEqual(res.headers.get('x-search-path-taken'), 'instance');
        assert.deepEqual(res.body.meta.pagination, { current: 1, perPage: 2, pagesCount: 3, count: 6 });
        // A column name and a repeat read as the attribute, once.
        const again = await server.get('/products?fields=name,category_id,name&filter[name]=Ball');
        assert.deepEqual(again.body.data, [{ name: 'Ball', categoryId: 4 }]);
      });

      it('keeps the named fields on cursor pages too, next page included', async () => {
        const first = await server.get('/products?fields=price,name&sort=name&perPage=2&cursor=');
        assert.equal(first.status, 200, first.text);
        assert.deepEqual(first.body.data, [
          { price: 10, name: 'Ball' },
          { price: 900, name: 'Laptop' },
        ]);
        const next = first.body.meta.pagination.next as string;
        const second = await server.get(`/products?fields=price,name&sort=name&perPage=2&cursor=${next}`);
        assert.equal(second.status, 200, second.text);
        assert.deepEqual(
          second.body.data.map((row: object) => Object.keys(row)),
          [
            ['price', 'name'],
            ['price', 'name'],
          ],
        );
      });

      it('limits each included record to its named fields, a list of them too, and keeps an association named whole', async () => {
        const one = await server.get('/products?fields=name,category.name&include=category&sort=name');
        assert.equal(one.status, 200, one.text);
        assert.deepEqual(one.body.data, [
          { name: 'Ball', category: { name: 'Toys' } },
          { name: 'Laptop', category: { name: 'Electronics' } },
          { name: 'Loose', category: null },
          { name: 'Novel', category: { name: 'Books' } },
          { name: 'Phone', category: { name: 'Electronics' } },
          // Its category is soft-deleted: not included, as without a fieldset.
          { name: 'Relic', category: null },
        ]);
        const many = await server.get('/products?fields=name,tags.title&include=tags&filter[name]=Laptop');
        assert.equal(many.status, 200, many.text);
        assert.deepEqual(
          many.body.data.map((p: { tags: { title: string }[] }) => ({ ...p, tags: p.tags.map((t) => t.title).sort() })),
          [{ name: 'Laptop', tags: ['sale', 'salex'] }],
        );
        assert.ok(many.body.data[0].tags.every((t: object) => Object.keys(t).join() === 'title'));
        const whole = await server.get('/products?fields=name,category&include=category&filter[name]=Ball');
        assert.deepEqual(Object.keys(whole.body.data[0]), ['name', 'category']);
        assert.deepEqual(Object.keys(whole.body.data[0].category).sort(), ['deletedAt', 'id', 'meta', 'name', 'rank']);
        const deep = await server.get(
          '/products?fields=name,order.customer.email&include=order.customer&filter[name]=Phone',
        );
        assert.equal(deep.status, 200, deep.text);
        assert.deepEqual(deep.body.data, [{ name: 'Phone', order: { customer: { email: 'a@b.c' } } }]);
        // An included association the fieldset does not name is left out.
        const unnamed = await server.get('/products?fields=name&include=category&filter[name]=Ball');
        assert.deepEqual(unnamed.body.data, [{ name: 'Ball' }]);
      });

      it('a hidden or unknown name is a 400 naming it on the field fields, with the nearest name', async () => {
        const typo = await server.get('/products?fields=id,nmae');
        assert.equal(typo.status, 400, typo.text);
        assert.equal(typo.body.data[0].field, 'fields');
        assert.equal(typo.body.data[0].error, 'columnNotFound');
        assert.match(typo.body.data[0].message, /"nmae".*did you mean 'name'\?/);
        const hidden = await server.get('/priceless?fields=name,price');
        assert.equal(hidden.status, 400, hidden.text);
        assert.match(hidden.body.data[0].message, /"price", which is not a field of this resource/);
        const related = await server.get('/products?fields=name,category.secret,category.nmae&include=category');
        assert.deepEqual(
          related.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
          [
            ['fields', 'columnNotFound'],
            ['fields', 'columnNotFound'],
          ],
        );
        assert.match(related.body.data[1].message, /did you mean 'category.name'\?/);
        const empty = await server.get('/products?fields=');
        assert.equal(empty.status, 400, empty.text);
        assert.equal(empty.body.data[0].error, 'invalidValue');
      });

      it('a relation path needs its include, else a 400 naming it', async () => {
        const res = await server.get('/products?fields=name,category.name');
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body.data, [
          {
            field: 'fields',
            error: 'invalidValue',
            message: 'fields names "category.name", which needs include=category',
          },
        ]);
        const read = await server.get(`/products/${ids['Phone']}?fields=name,tags.title`);
        assert.equal(read.status, 400, read.text);
        assert.match(read.body.data[0].message, /needs include=tags/);
      });

      it('read keeps the named fields, with a tag of its own for what it shows', async () => {
        const full = await server.get(`/products/${ids['Phone']}`);
        const res = await server.get(`/products/${ids['Phone']}?fields=name,category.name&include=category`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data, { name: 'Phone', category: { name: 'Electronics' } });
        const tag = res.headers.get('etag')!;
        assert.ok(tag !== null && tag !== full.headers.get('etag'), `${tag} against ${full.headers.get('etag')}`);
        const cached = await server.request(
          'GET',
          `/products/${ids['Phone']}?fields=name,category.name&include=category`,
          {
            headers: { 'If-None-Match': tag },
          },
        );
        assert.equal(cached.status, 304);
        const other = await server.request('GET', `/products/${ids['Phone']}?fields=name`, {
          headers: { 'If-None-Match': tag },
        });
        assert.equal(other.status, 200);
        assert.deepEqual(other.body.data, { name: 'Phone' });
        const hidden = await server.get(`/products/${ids['Phone']}?fields=category.secret&include=category`);
        assert.equal(hidden.status, 400, hidden.text);
      });

      it('search gives a sparse page a tag of its own', async () => {
        const full = await server.get('/products?sort=name');
        const sparse = await server.get('/products?sort=name&fields=name');
        assert.notEqual(sparse.headers.get('etag'), full.headers.get('etag'));
        const cached = await server.request('GET', '/products?sort=name&fields=name', {
          headers: { 'If-None-Match': sparse.headers.get('etag')! },
        });
        assert.equal(cached.status, 304);
      });

      it('export-csv writes the named columns alone, in their order; a relation path is a 400', async () => {
        const res = await server.get('/products/export-csv?fields=price,name&sort=name');
        assert.equal(res.status, 200, res.text);
        assert.equal(res.text, 'price,name\n10,Ball\n900,Laptop\n5,Loose\n20,Novel\n300,Phone\n50,Relic\n');
        const related = await server.get('/products/export-csv?fields=name,category.name');
        assert.equal(related.status, 400, related.text);
        assert.equal(related.body.data[0].field, 'fields');
        const unknown = await server.get('/products/export-csv?fields=name,secret');
        assert.equal(unknown.status, 400, unknown.text);
      });

      it('says in Fast-Crud-Per-Page-Lowered and meta.pagination.perPage that a perPage above the cap was lowered', async () => {
        const res = await server.get('/capped?perPage=5&sort=name&fields=name');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data, [{ name: 'Ball' }, { name: 'Laptop' }]);
        assert.equal(res.headers.get('fast-crud-per-page-lowered'), '2');
        assert.deepEqual(res.body.meta.pagination, { current: 1, perPage: 2, pagesCount: 3, count: 6 });
        const none = await server.get('/uncounted?perPage=1000&page=3&sort=name');
        assert.equal(none.headers.get('fast-crud-per-page-lowered'), '2');
        assert.deepEqual(none.body.meta.pagination, { current: 3, perPage: 2, hasMore: false });
        // Within the cap, or no perPage at all (the server's own per_page is lowered without a word): no header.
        for (const path of ['/capped?perPage=2', '/capped', '/products?perPage=500', '/capped?skipPagination=true'])
          assert.equal((await server.get(path)).headers.get('fast-crud-per-page-lowered'), null, path);
      });
    });
  }
