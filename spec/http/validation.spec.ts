import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import type { Model } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import type { StandardSchemaV1 } from '../../lib/core.js';
import { defineCatalog, syncCatalog, type Catalog } from '../support/catalog.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';
import { IssuesError, standardSchema } from '../support/schemas.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** What the fill hooks and the schemas were given, in order, for the test under way. */
const seen: { readonly by: string; readonly value: unknown }[] = [];

type Body = Record<string, unknown>;
const isObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A create schema, synchronous: a name of 2 characters or more, tags (if any) each with a name, and a
 * refusal without a path; its output upper-cases the sku, defaults the stock and adds a field that
 * is not fillable (which must not be written).
 */
const createSchema = standardSchema((value) => {
  seen.push({ by: 'create schema', value });
  const body = isObject(value) ? value : {};
  const issues: StandardSchemaV1.Issue[] = [];
  if (typeof body['name'] !== 'string' || body['name'].length < 2)
    issues.push({ message: 'name must have at least 2 characters', path: ['name'] });
  const tags = body['tags'];
  if (tags !== undefined && !Array.isArray(tags)) issues.push({ message: 'tags must be a list', path: ['tags'] });
  if (Array.isArray(tags)) {
    tags.forEach((tag: unknown, i) => {
      if (!isObject(tag) || typeof tag['name'] !== 'string' || tag['name'] === '')
        issues.push({ message: 'a tag needs a name', path: ['tags', i, { key: 'name' }] });
    });
  }
  if (body['sku'] === 'REFUSE') issues.push({ message: 'This body is refused' });
  if (issues.length > 0) return { issues };
  return {
    value: {
      ...body,
      sku: String(body['sku']).trim().toUpperCase(),
      stock: body['stock'] ?? 0,
      secret: 'from the schema',
    },
  };
});

/** An update schema, asynchronous: a name, when sent, of 2 characters or more once trimmed; its output is trimmed. */
const updateSchema = standardSchema(
  (value) => {
    seen.push({ by: 'update schema', value });
    const body = isObject(value) ? value : {};
    if (!('name' in body)) return { value: body };
    const name = typeof body['name'] === 'string' ? body['name'].trim() : '';
    return name.length < 2
      ? { issues: [{ message: 'name must have at least 2 characters', path: ['name'] }] }
      : { value: { ...body, name } };
  },
  { async: true },
);

function specs() {
  const checked: ResourceSpec<Model> = {
    policy: { fillable: ['sku', 'name', 'price', 'stock', 'active', 'tags', 'releasedOn'], hidden: ['secret'] },
    validate: { create: createSchema, update: updateSchema },
    hooks: {
      beforeCreateFill(data) {
        seen.push({ by: 'beforeCreateFill', value: data });
      },
      beforeUpdateFill(data) {
        seen.push({ by: 'beforeUpdateFill', value: data });
      },
    },
  };
  /** Hooks that throw schema-style errors: issues in the right shape, and errors that only look close. */
  const throwing: ResourceSpec<Model> = {
    policy: { fillable: 'all', hidden: ['secret'] },
    hooks: {
      beforeCreate(data) {
        if (data['name'] === 'issues') {
          throw new IssuesError([
            {
              code: 'invalid_type',
              expected: 'number',
              message: 'Expected a number',
              path: ['price'],
              input: 'secret input',
            },
            { message: 'Too small', path: ['tags', 0, { key: 'name', origin: 'value' }] },
            { message: 'The whole body is wrong' },
          ]);
        }
        if (data['name'] === 'no issues') throw new IssuesError([]);
        if (data['name'] === 'bad issues')
          throw new IssuesError([{ message: 'SELECT secret FROM vault', path: [{ nokey: 1 }] }]);
        if (data['name'] === 'not an error') throw { issues: [{ message: 'plain object' }] };
        return data;
      },
      beforeUpdate(_record, data) {
        if (data['name'] === 'issues') throw new IssuesError([{ message: 'Not allowed', path: ['name'] }]);
        return data;
      },
    },
  };
  const plain: ResourceSpec<Model> = { policy: { fillable: 'all', hidden: ['secret'] } };
  return { checked, throwing, plain };
}

for (const db of databases)
  for (const form of FORMS) {
    describe(`validation and form bodies (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let catalog: Catalog;
      const errors: unknown[] = [];
      const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const urlencoded = (text: string) => ({
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: text,
      });
      const post = (path: string, body: unknown) => server.request('POST', path, json(body));
      const patch = (path: string, body: unknown) => server.request('PATCH', path, json(body));
      const items = (res: { body: { data: { field: string | null; error: string }[] } }) =>
        res.body.data.map((f) => [f.field, f.error]);
      const idOf = async (sku: string) => (await catalog.Product.findOne({ where: { sku } }))!.get('id') as string;

      before(async () => {
        catalog = defineCatalog(db.sequelize!, `val${form.initial}`);
        await syncCatalog(catalog);
        await catalog.Product.bulkCreate([
          { sku: 'U-1', name: 'Umbrella', price: '9.00', stock: 2, active: true },
          { sku: 'U-2', name: 'Urn', price: '19.00', stock: 1, active: true },
        ]);
        const { checked, throwing, plain } = specs();
        const router = new Router();
        form.register(router, 'checked', catalog.Product, checked);
        form.register(router, 'checked-422', catalog.Product, checked, {
          config: { global: { validation: { http_status: 422 } } },
        });
        form.register(router, 'throwing', catalog.Product, throwing);
        form.register(router, 'throwing-422', catalog.Product, throwing, {
          only: ['create'],
          config: { global: { validation: { http_status: 422 } } },
        });
        form.register(router, 'plain', catalog.Product, plain);
        form.register(router, 'small', catalog.Product, plain, {
          only: ['create'],
          config: { global: { body_limit: 64 } },
        });
        server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()), errors);
      });
      after(() => server?.close());
      beforeEach(() => {
        seen.length = 0;
        errors.length = 0;
      });

      describe('a create schema', () => {
        it('returns 201 writing the schema output, limited to fillable fields, and the fill hook sees that output', async () => {
          const res = await post('/checked', { sku: ' k-1 ', name: 'Kite', price: 3, id: 'not written' });
          assert.equal(res.status, 201, res.text);
          assert.equal(res.body.data.sku, 'K-1');
          assert.equal(res.body.data.stock, 0);
          const row = await catalog.Product.findOne({ where: { sku: 'K-1' } });
          assert.equal(row!.get('secret'), null, 'the schema added a field that is not fillable: it is not written');
          assert.deepEqual(seen, [
            { by: 'create schema', value: { sku: ' k-1 ', name: 'Kite', price: 3, id: 'not written' } },
            { by: 'beforeCreateFill', value: { sku: 'K-1', name: 'Kite', price: 3, stock: 0 } },
          ]);
        });

        it('returns 400 with one schema item per issue, naming the path joined with dots, and writes nothing', async () => {
          const res = await post('/checked', {
            sku: 'k-2',
            name: 'K',
            price: 3,
            tags: [{ name: 'red' }, { name: '' }, {}],
          });
          assert.equal(res.status, 400, res.text);
          assert.deepEqual(res.body, {
            status: 'fail',
            data: [
              { field: 'name', error: 'schema', message: 'name must have at least 2 characters' },
              { field: 'tags.1.name', error: 'schema', message: 'a tag needs a name' },
              { field: 'tags.2.name', error: 'schema', message: 'a tag needs a name' },
            ],
            meta: {},
          });
          assert.equal(await catalog.Product.count({ where: { sku: ['k-2', 'K-2'] } }), 0);
          assert.deepEqual(
            seen.map((s) => s.by),
            ['create schema'],
          );
        });

        it('returns an issue without a path with field null', async () => {
          const res = await post('/checked', { sku: 'REFUSE', name: 'Refused', price: 1 });
          assert.deepEqual(
            [res.status, res.body.data],
            [400, [{ field: null, error: 'schema', message: 'This body is refused' }]],
          );
        });

        it('returns the configured validation status for a failed schema', async () => {
          const res = await post('/checked-422', { sku: 'k-3', name: 'K', price: 3 });
          assert.deepEqual([res.status, items(res)], [422, [['name', 'schema']]]);
        });

        it('returns emptyPayload before the schema runs, and type failures for the schema output', async () => {
          const empty = await post('/checked', {});
          assert.deepEqual([empty.status, items(empty)], [400, [['body', 'emptyPayload']]]);
          assert.deepEqual(seen, []);
          const typed = await post('/checked', { sku: 'k-4', name: 'Kite', price: 'cheap' });
          assert.deepEqual([typed.status, items(typed)], [400, [['price', 'type']]]);
        });

        it('validates a form body as sent: values are strings, nested paths are named the same way', async () => {
          const bad = await server.request(
            'POST',
            '/checked',
            urlencoded('sku=f-1&name=Form&price=2&tags[0][name]=red&tags[1][name]='),
          );
          assert.deepEqual(
            [bad.status, bad.body.data],
            [400, [{ field: 'tags.1.name', error: 'schema', message: 'a tag needs a name' }]],
          );
          assert.deepEqual(seen[0], {
            by: 'create schema',
            value: { sku: 'f-1', name: 'Form', price: '2', tags: [{ name: 'red' }, { name: '' }] },
          });
          const ok = await server.request(
            'POST',
            '/checked',
            urlencoded('sku=f-1&name=Form&price=2&active=false&tags[0][name]=red'),
          );
          assert.equal(ok.status, 201, ok.text);
          assert.deepEqual(
            [ok.body.data.sku, Number(ok.body.data.price), ok.body.data.active, ok.body.data.tags],
            ['F-1', 2, false, [{ name: 'red' }]],
          );
        });
      });

      describe('an update schema (asynchronous)', () => {
        it('returns 200 writing the trimmed name, and leaves alone a body without one', async () => {
          const id = await idOf('U-1');
          const res = await patch(`/checked/${id}`, { name: '  Parasol  ' });
          assert.equal(res.status, 200, res.text);
          assert.equal(res.body.data.name, 'Parasol');
          assert.deepEqual(seen, [
            { by: 'update schema', value: { name: '  Parasol  ' } },
            { by: 'beforeUpdateFill', value: { name: 'Parasol' } },
          ]);
          const stock = await patch(`/checked/${id}`, { stock: 4 });
          assert.deepEqual([stock.status, stock.body.data.stock, stock.body.data.name], [200, 4, 'Parasol']);
        });

        it('returns 400 (or the configured status) naming the field, and changes nothing', async () => {
          const id = await idOf('U-2');
          const res = await patch(`/checked/${id}`, { name: '   ' });
          assert.deepEqual(
            [res.status, res.body.data],
            [400, [{ field: 'name', error: 'schema', message: 'name must have at least 2 characters' }]],
          );
          assert.deepEqual([(await patch(`/checked-422/${id}`, { name: 'x' })).status], [422]);
          assert.equal((await catalog.Product.findByPk(id))!.get('name'), 'Urn');
        });

        it('validates a form body too, on every update verb', async () => {
          const id = await idOf('U-2');
          for (const verb of ['PATCH', 'PUT', 'POST']) {
            const res = await server.request(verb, `/checked/${id}`, urlencoded(`name=%20Wide%20${verb}%20&stock=6`));
            assert.deepEqual([res.status, res.body.data.name, res.body.data.stock], [200, `Wide ${verb}`, 6], res.text);
          }
          const bad = await server.request('PATCH', `/checked/${id}`, urlencoded('name=+'));
          assert.deepEqual([bad.status, items(bad)], [400, [['name', 'schema']]]);
        });
      });

      describe('schema errors thrown by hooks', () => {
        it('returns 400 with one schema item per issue, and nothing else of the error', async () => {
          const res = await post('/throwing', { sku: 't-1', name: 'issues', price: 1 });
          assert.equal(res.status, 400, res.text);
          assert.deepEqual(res.body, {
            status: 'fail',
            data: [
              { field: 'price', error: 'schema', message: 'Expected a number' },
              { field: 'tags.0.name', error: 'schema', message: 'Too small' },
              { field: null, error: 'schema', message: 'The whole body is wrong' },
            ],
            meta: {},
          });
          assert.doesNotMatch(res.text, /secret input|invalid_type|origin/);
          assert.equal(await catalog.Product.count({ where: { sku: 't-1' } }), 0);
          assert.deepEqual(errors, []);
        });

        it('returns the configured validation status, on update too', async () => {
          assert.equal((await post('/throwing-422', { sku: 't-2', name: 'issues', price: 1 })).status, 422);
          const res = await patch(`/throwing/${await idOf('U-1')}`, { name: 'issues' });
          assert.deepEqual(
            [res.status, res.body.data],
            [400, [{ field: 'name', error: 'schema', message: 'Not allowed' }]],
          );
        });

        it('returns a bare 500 for errors that only look like schema errors', async () => {
          for (const name of ['no issues', 'bad issues', 'not an error']) {
            const res = await post('/throwing', { sku: `t-${name.length}`, name, price: 1 });
            assert.deepEqual(
              [res.status, res.body],
              [500, { status: 'error', message: 'Internal Server Error' }],
              name,
            );
            assert.doesNotMatch(res.text, /SELECT|plain object/);
          }
          assert.equal(errors.length, 3);
        });
      });

      describe('form bodies (application/x-www-form-urlencoded)', () => {
        it('creates from a form, coercing numbers, booleans, dates and lists as the query string does', async () => {
          const res = await server.request(
            'POST',
            '/plain',
            urlencoded(
              'sku=p-1&name=Pen+%26+ink&price=2.50&stock=3&active=false&releasedOn=2024-02-02&tags[]=red&tags[]=blue&secret=s',
            ),
          );
          assert.equal(res.status, 201, res.text);
          const { sku, name, price, stock, active, releasedOn, tags } = res.body.data;
          assert.deepEqual(
            [sku, name, Number(price), stock, active, releasedOn, tags],
            ['p-1', 'Pen & ink', 2.5, 3, false, '2024-02-02', ['red', 'blue']],
          );
          assert.equal('secret' in res.body.data, false);
        });

        it('updates from a form, with true and 1 as booleans', async () => {
          const id = await idOf('p-1');
          for (const [text, active] of [
            ['active=true', true],
            ['active=0', false],
            ['active=1', true],
          ] as const) {
            const res = await server.request('PATCH', `/plain/${id}`, urlencoded(`${text}&stock=8`));
            assert.deepEqual([res.status, res.body.data.active, res.body.data.stock], [200, active, 8], res.text);
          }
        });

        it('returns 400 type for a value that does not fit, and keeps JSON bodies strict about booleans', async () => {
          const form = await server.request(
            'POST',
            '/plain',
            urlencoded('sku=p-2&name=P&price=cheap&active=maybe&name=again'),
          );
          assert.deepEqual(
            [form.status, items(form)],
            [
              400,
              [
                ['name', 'type'],
                ['price', 'type'],
                ['active', 'type'],
              ],
            ],
          );
          const text = await post('/plain', { sku: 'p-2', name: 'P', price: 1, active: 'true' });
          assert.deepEqual([text.status, items(text)], [400, [['active', 'type']]]);
          const empty = await server.request('POST', '/plain', urlencoded(''));
          assert.deepEqual([empty.status, items(empty)], [400, [['body', 'emptyPayload']]]);
        });

        it('returns 400 invalidForm beyond the query-string limits, instead of dropping parameters', async () => {
          const params = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
          const ok = await server.request('POST', '/plain', urlencoded(`sku=p-3&name=Many&price=1&${params(197)}`));
          assert.equal(ok.status, 201, ok.text);
          const cases: [string, string][] = [
            [`sku=p-4&name=Many&price=1&${params(198)}`, 'The body has more than 200 parameters'],
            ['sku=p-4&name=Deep&price=1&tags[a][b][c][d]=1', 'The body nests deeper than 3 brackets'],
            [
              `sku=p-4&name=Long&price=1&${Array.from({ length: 101 }, () => 'tags[]=x').join('&')}`,
              'A list in the body has more than 100 items',
            ],
          ];
          for (const [text, message] of cases) {
            const res = await server.request('POST', '/plain', urlencoded(text));
            assert.deepEqual([res.status, res.body.data], [400, [{ field: 'body', error: 'invalidForm', message }]]);
          }
          assert.equal(await catalog.Product.count({ where: { sku: 'p-4' } }), 0);
        });

        it('returns 413 for a form over the body limit, and 415 for a type that is neither JSON nor a form', async () => {
          const large = await server.request('POST', '/small', urlencoded(`sku=L&price=1&name=${'x'.repeat(100)}`));
          assert.deepEqual([large.status, items(large)], [413, [['body', 'contentTooLarge']]]);
          for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
            const res = await server.request('POST', '/plain', { headers: { 'content-type': type }, body: 'sku=x' });
            assert.deepEqual([res.status, items(res)], [415, [['body', 'unsupportedMediaType']]], type);
            const update = await server.request('PATCH', `/plain/${await idOf('U-1')}`, {
              headers: { 'content-type': type },
              body: 'sku=x',
            });
            assert.equal(update.status, 415, type);
          }
        });
      });
    });
  }

describe('validation schemas at registration', () => {
  const db = databases[0]!;
  for (const form of FORMS) {
    it(`throws a TypeError naming the schema that is not a Standard Schema (${form.name} form)`, () => {
      const { Product } = defineCatalog(db.sequelize!, `valreg${form.initial}`);
      const parseOnly = { parse: (value: unknown) => value } as unknown as StandardSchemaV1;
      const wrongVersion = {
        '~standard': { version: 2, vendor: 'x', validate: () => ({ value: 1 }) },
      } as unknown as StandardSchemaV1;
      assert.throws(
        () =>
          form.register(new Router(), 'bad', Product, { policy: { fillable: 'all' }, validate: { create: parseOnly } }),
        {
          name: 'TypeError',
          message: /validate\.create \(the class form's createValidateRules\) is not a Standard Schema \(version 1\)/,
        },
      );
      assert.throws(
        () =>
          form.register(new Router(), 'bad', Product, {
            policy: { fillable: 'all' },
            validate: { update: wrongVersion },
          }),
        {
          name: 'TypeError',
          message: /validate\.update \(the class form's updateValidateRules\) is not a Standard Schema/,
        },
      );
      assert.doesNotThrow(() =>
        form.register(new Router(), 'good', Product, {
          policy: { fillable: 'all' },
          validate: { create: createSchema, update: undefined },
        }),
      );
    });
  }
});
