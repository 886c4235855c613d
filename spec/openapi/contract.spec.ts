// Real replies of every operation, validated against the OpenAPI document with ajv (JSON Schema 2020-12, as
// OpenAPI 3.1 uses it). ajv and ajv-formats are resolved from node_modules, where
// @seriousme/openapi-schema-validator brings them (ajv 8.20.0, ajv-formats 3.0.1); the package should list them
// as devDependencies of its own (see the report of issue #13).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import Koa from 'koa';
import { DataTypes, type Model, type Sequelize } from 'sequelize';
import {
  crud,
  openApiDocument,
  openApiResource,
  resource,
  type CrudTarget,
  type ResourceSpec,
} from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS, controllerOf } from '../support/forms.js';
import { serve, type TestResponse, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Every kind of attribute the document describes, nullable ones included. Table names start with `prefix`. */
function defineModel(sequelize: Sequelize, prefix: string) {
  return sequelize.define(
    `${prefix}Gadget`,
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      name: { type: DataTypes.STRING(60), allowNull: false },
      size: { type: DataTypes.ENUM('s', 'm', 'l'), allowNull: true },
      grade: { type: DataTypes.ENUM('a', 'b'), allowNull: false, defaultValue: 'a' },
      serial: { type: DataTypes.BIGINT, allowNull: true },
      price: { type: DataTypes.DECIMAL(10, 2), allowNull: true },
      ratio: { type: DataTypes.DOUBLE, allowNull: true },
      stock: { type: DataTypes.INTEGER, allowNull: true },
      active: { type: DataTypes.BOOLEAN, allowNull: true },
      day: { type: DataTypes.DATEONLY, allowNull: true },
      startsAt: { type: DataTypes.DATE, allowNull: true },
      data: { type: DataTypes.JSON, allowNull: true },
      note: { type: DataTypes.TEXT, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${prefix}_gadgets`, underscored: true },
  );
}

const spec: ResourceSpec<Model> = {
  policy: {
    fillable: [
      'name',
      'size',
      'grade',
      'serial',
      'price',
      'ratio',
      'stock',
      'active',
      'day',
      'startsAt',
      'data',
      'note',
    ],
  },
};

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };

const BASE = 'https://koa-fast-crud.test/openapi.json';

/** A `$ref` into the document, made absolute so that ajv finds it among the document's components. */
function absolute(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? BASE + value : absolute(value),
    ]),
  );
}

/** Validates replies against a document: one mismatch per reply whose status, content type or body the document does not describe. */
function contractOf(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: BASE, components: absolute(document.components) as object });
  const mismatches: string[] = [];
  const seen = new Set<string>();
  return {
    mismatches,
    seen,
    check(verb: string, template: string, res: TestResponse): void {
      const label = `${verb.toUpperCase()} ${template} ${res.status}`;
      seen.add(`${verb} ${template}`);
      const responses = document.paths[template]?.[verb]?.responses;
      const response = responses?.[String(res.status)];
      if (response === undefined) return void mismatches.push(`${label}: status not documented`);
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
      const content = response.content?.[type];
      if (content === undefined) return void mismatches.push(`${label}: content type ${type} not documented`);
      const body = type === 'application/json' ? res.body : res.text;
      const validate = ajv.compile(absolute(content.schema) as object);
      if (!validate(body)) mismatches.push(`${label}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`);
    },
  };
}

for (const db of databases)
  for (const form of FORMS) {
    describe(
      `every operation's replies against the OpenAPI document (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        const prefix = `oac${form.initial}`;
        let server: TestServer;
        let contract: ReturnType<typeof contractOf>;
        const errors: unknown[] = [];

        before(async () => {
          const Gadget = defineModel(db.sequelize!, prefix);
          await Gadget.sync({ force: true });
          const target: CrudTarget = form.name === 'class' ? controllerOf(Gadget, spec) : resource(Gadget, spec);
          const router = new Router();
          crud(router, 'gadgets', target);
          const document = openApiDocument({
            info: { title: 'Contract', version: '1' },
            resources: [openApiResource('gadgets', target)],
          }) as Document;
          contract = contractOf(document);
          server = await serve(new Koa().use(router.routes()), errors);
        });
        after(() => server?.close());

        const json = { 'content-type': 'application/json' };
        const send = async (verb: string, path: string, template: string, body?: unknown) => {
          const res = await server.request(
            verb.toUpperCase(),
            path,
            body === undefined ? {} : { headers: json, body: JSON.stringify(body) },
          );
          contract.check(verb, template, res);
          return res;
        };

        it('returns replies that all match the document: 0 mismatches over every operation, success and failure', async () => {
          const full = {
            name: 'Full',
            size: 'm',
            grade: 'b',
            serial: 9_007_199_254,
            price: '-5.5',
            ratio: 0.25,
            stock: 3,
            active: true,
            day: '2024-02-29',
            startsAt: '2024-02-29T10:00:00Z',
            data: { a: [1] },
            note: 'text',
          };
          const created = await send('post', '/gadgets', '/gadgets', full);
          assert.equal(created.status, 201, created.text);
          const id = created.body.data.id as string;
          const sparse = await send('post', '/gadgets', '/gadgets', { name: 'Sparse' });
          assert.equal(sparse.status, 201, sparse.text);
          await send('post', '/gadgets', '/gadgets', {
            name: 'Nulls',
            size: null,
            serial: null,
            price: null,
            active: null,
            day: null,
            startsAt: null,
            data: null,
          });
          await send('post', '/gadgets', '/gadgets', { name: 'Bad', size: 'xl' });
          await send('post', '/gadgets', '/gadgets', { size: 's' });
          await send('post', '/gadgets', '/gadgets', {});

          await send('get', '/gadgets', '/gadgets');
          await send('get', '/gadgets?filter[size]=m&sort=-serial,name&perPage=2', '/gadgets');
          await send('get', '/gadgets?filter[nope]=1', '/gadgets');
          await send('get', '/gadgets/options?label=name', '/gadgets/options');
          await send('get', '/gadgets/options?label=name&value=serial', '/gadgets/options');
          await send('get', '/gadgets/options', '/gadgets/options');
          await send('get', '/gadgets/export-csv', '/gadgets/export-csv');
          await send('get', '/gadgets/export-csv?filter[nope]=1', '/gadgets/export-csv');

          await send('get', `/gadgets/${id}`, '/gadgets/{id}');
          await send('get', `/gadgets/${sparse.body.data.id}`, '/gadgets/{id}');
          await send('get', '/gadgets/00000000-0000-4000-8000-000000000000', '/gadgets/{id}');
          for (const verb of ['put', 'patch', 'post']) {
            await send(verb, `/gadgets/${id}`, '/gadgets/{id}', { serial: 42, price: 7, size: null, stock: 4 });
            await send(verb, `/gadgets/${id}`, '/gadgets/{id}', { stock: 'many' });
          }
          await send('patch', '/gadgets/00000000-0000-4000-8000-000000000000', '/gadgets/{id}', { stock: 1 });
          await send('delete', `/gadgets/${id}/soft`, '/gadgets/{id}/soft');
          await send('patch', `/gadgets/${id}/restore`, '/gadgets/{id}/restore');
          await send('delete', `/gadgets/${id}/soft`, '/gadgets/{id}/soft');
          await send('put', `/gadgets/${id}/restore`, '/gadgets/{id}/restore');
          await send('delete', `/gadgets/${id}`, '/gadgets/{id}');
          await send('delete', `/gadgets/${id}`, '/gadgets/{id}');

          assert.deepEqual(contract.mismatches, []);
          assert.equal(contract.seen.size, 12, [...contract.seen].join(', '));
          assert.deepEqual(errors, []);
        });
      },
    );
  }
