// Every query parameter the OpenAPI document gives is one the server reads: its examples and defaults are
// accepted, a value its schema allows is accepted, and a value its schema refuses is a fail naming it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import Koa from 'koa';
import { Sequelize } from 'sequelize';
import { crud, openApiDocument, openApiResource, resource } from '../../lib/index.js';
import { stableId } from '../../docs/examples/demo/seed.js';
import { serveDemoInSuite } from '../support/demo.js';
import { serve, type TestServer } from '../support/http.js';
import { defineRelationCatalog } from '../support/relations-catalog.js';

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  items?: Schema;
  minItems?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
  examples?: unknown[];
  example?: unknown;
};
type Parameter = {
  name: string;
  in: string;
  schema: Schema;
  style?: string;
  explode?: boolean;
  required?: boolean;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
};
type Document = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

const ajv = new Ajv2020({ strict: false });
addFormats.default(ajv);

/** A value the schema allows, as a typed client would pass it. */
function sample(schema: Schema): unknown {
  if (schema.enum) return schema.enum.find((value) => value !== null);
  if (schema.type === 'array') return Array.from({ length: schema.minItems ?? 1 }, () => sample(schema.items!));
  if (schema.type === 'integer') return 3;
  if (schema.type === 'number') return 10.5;
  if (schema.type === 'boolean') return true;
  if (schema.format === 'uuid') return randomUUID();
  if (schema.pattern) return ['2024-01-31', '2024'].find((text) => new RegExp(schema.pattern!).test(text));
  return 'a';
}

/**
 * A value the schema refuses that a query string can carry, or undefined when every text is allowed, or
 * when the server ignores the value (an operator without one, `nn`, documented as `true`).
 */
function refused(schema: Schema): string | undefined {
  const item = schema.type === 'array' ? schema.items! : schema;
  if (item.type === 'boolean' && item.enum?.length === 1) return undefined;
  if (
    item.enum !== undefined ||
    ['integer', 'number', 'boolean'].includes(String(item.type)) ||
    item.format === 'uuid' ||
    item.pattern !== undefined
  )
    return 'not-a-value';
  return undefined;
}

/** The query string of one parameter as OpenAPI serializes it: style form, arrays repeated (explode) or comma-joined. */
function queryOf(parameter: Parameter, value: unknown, explode = parameter.explode ?? true): string {
  const values = Array.isArray(value) ? (explode ? value : [value.join(',')]) : [value];
  return values.map((item) => `${encodeURIComponent(parameter.name)}=${encodeURIComponent(String(item))}`).join('&');
}

/** A deep object's query string, brackets after the name: `filter[$or]` of `[{ id: { nn: true } }]` → `filter[$or][0][id][nn]=true`. */
function deepQueryOf(name: string, value: unknown): string {
  if (value === null || typeof value !== 'object')
    return `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`;
  return Object.entries(value)
    .map(([key, inner]) => deepQueryOf(`${name}[${key}]`, inner))
    .join('&');
}

/** Every example and default the document gives a parameter. */
function examplesOf(parameter: Parameter): unknown[] {
  return [
    ...(parameter.example === undefined ? [] : [parameter.example]),
    ...Object.values(parameter.examples ?? {}).map((example) => example.value),
    ...(parameter.schema.example === undefined ? [] : [parameter.schema.example]),
    ...(parameter.schema.examples ?? []),
    ...(parameter.schema.default === undefined ? [] : [parameter.schema.default]),
  ];
}

/** The GET operations of a document, with their query parameters and a concrete path. */
function getOperations(document: Document, id: string): { path: string; parameters: Parameter[]; required: string }[] {
  return Object.entries(document.paths).flatMap(([template, item]) =>
    item['get']
      ? [
          {
            path: template.replace('{id}', id),
            parameters: (item['get'].parameters ?? []).filter((p) => p.in === 'query'),
            // Options' label is required: every request to it names the id column.
            required: (item['get'].parameters ?? []).some((p) => p.name === 'label' && p.required) ? 'label=id&' : '',
          },
        ]
      : [],
  );
}

/** Checks every parameter of every GET operation against a server; returns one line per reply that was not as expected. */
async function checkEveryParameter(
  server: TestServer,
  base: string,
  document: Document,
  id: string,
): Promise<{ problems: string[]; sent: number }> {
  const problems: string[] = [];
  let sent = 0;
  const expectAt = async (path: string, query: string, status: number, field?: string) => {
    sent++;
    const res = await server.get(`${base}${path}?${query}`);
    if (res.status !== status)
      return void problems.push(
        `${path}?${decodeURIComponent(query)}: ${res.status}, expected ${status}: ${res.text.slice(0, 200)}`,
      );
    if (field !== undefined && !(res.body.data as { field: string }[]).some((item) => item.field === field))
      problems.push(`${path}?${decodeURIComponent(query)}: the fail does not name ${field}: ${res.text.slice(0, 200)}`);
  };
  for (const { path, parameters, required } of getOperations(document, id)) {
    const expect = (at: string, query: string, status: number, field?: string) =>
      expectAt(at, required + query, status, field);
    const examples = parameters.flatMap((parameter) =>
      examplesOf(parameter).map((value) =>
        parameter.style === 'deepObject' ? deepQueryOf(parameter.name, value) : queryOf(parameter, value),
      ),
    );
    for (const query of examples) await expect(path, query, 200);
    // As the explorer sends them after "Try it out": every prefilled value at once.
    if (examples.length > 1) await expect(path, examples.join('&'), 200);
    // $or and $and: a list of filter objects as a deep object; a bare value is no list of filters. Their example is the
    // empty list, since Swagger UI's "Try it out" sends any other unreadably with every request: the list is built
    // here, one item per documented column filter (a sample of each), ORed or ANDed.
    const columnFilters = parameters.filter((p) => p.name.startsWith('filter[') && p.style !== 'deepObject');
    for (const parameter of parameters.filter((p) => p.style === 'deepObject')) {
      if (!examplesOf(parameter).every((example) => Array.isArray(example) && example.length === 0))
        problems.push(`${parameter.name}: an example other than [], which Swagger UI would send with every search`);
      const items = columnFilters.slice(0, 3).map((filter, i) => {
        const inner = filter.name.slice('filter'.length);
        return queryOf({ ...filter, name: `${parameter.name}[${i}]${inner}` }, sample(filter.schema));
      });
      if (items.length > 0) await expect(path, items.join('&'), 200);
      await expect(path, `${encodeURIComponent(parameter.name)}=a`, 400, `filter.${parameter.name.slice(7, -1)}`);
    }
    for (const parameter of parameters.filter((p) => p.name.startsWith('filter[') && p.style !== 'deepObject')) {
      const value = sample(parameter.schema);
      if (!ajv.validate(parameter.schema, value))
        problems.push(`${parameter.name}: the sample ${JSON.stringify(value)} does not fit its own schema`);
      await expect(path, queryOf(parameter, value), 200);
      if (Array.isArray(value)) await expect(path, queryOf(parameter, value, false), 200);
      const bad = refused(parameter.schema);
      const column = /^filter\[([^\]]+)\]/.exec(parameter.name)![1]!;
      if (bad !== undefined)
        await expect(
          path,
          queryOf(parameter, parameter.schema.type === 'array' ? Array(parameter.schema.minItems ?? 1).fill(bad) : bad),
          400,
          column,
        );
    }
  }
  return { problems, sent };
}

describe("the demo document's query parameters, sent to the demo", () => {
  const demo = serveDemoInSuite();

  it('accepts every example and default, alone and all at once, every filter value its schema allows, and refuses one it does not, naming the column', async () => {
    const document = (await demo().get('/api/openapi.json')).body as Document;
    const groups = document.paths['/products']!['get']!.parameters!.filter((p) => p.style === 'deepObject');
    assert.deepEqual(
      groups.map((p) => p.name),
      ['filter[$or]', 'filter[$and]'],
    );
    const { problems, sent } = await checkEveryParameter(demo(), '/api', document, stableId('product:BK-001'));
    assert.deepEqual(problems, []);
    assert.ok(sent > 400, `${sent} requests`);
  });

  it('filters as described: filter[price][gte]=30 returns only the rows priced 30 or more, the list form of in finds both', async () => {
    const all = (await demo().get('/api/products?perPage=100')).body.data as { price: number }[];
    const rows = (await demo().get('/api/products?filter%5Bprice%5D%5Bgte%5D=30&perPage=100')).body.data as {
      price: number;
    }[];
    assert.deepEqual(
      rows,
      all.filter((row) => Number(row.price) >= 30),
    );
    assert.ok(rows.length > 0 && rows.length < all.length);
    const listed = (
      await demo().get('/api/products?filter%5Bsku%5D%5Bin%5D=BK-001&filter%5Bsku%5D%5Bin%5D=KT-001&sort=sku')
    ).body.data as { sku: string }[];
    assert.deepEqual(
      listed.map((row) => row.sku),
      ['BK-001', 'KT-001'],
    );
  });
});

describe('the query parameters of a resource with relations, sent to it', () => {
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const { Product } = defineRelationCatalog(sequelize, 'oapar');
  const products = resource(Product, {
    policy: { fillable: 'all' },
    relations: { category: { include: true }, order: {}, 'order.customer': {}, tags: { include: true } },
  });
  let server: TestServer;
  let id: string;

  before(async () => {
    await sequelize.sync({ force: true });
    id = (await Product.create({ name: 'Lamp', price: 20 })).get('id') as string;
    const router = new Router();
    crud(router, 'products', products);
    server = await serve(new Koa().use(router.routes()));
  });
  after(async () => {
    await server?.close();
    await sequelize.close();
  });

  it('accepts every filter, sort and include the document offers, through every association', async () => {
    const document = openApiDocument({
      info: { title: 'Shop', version: '1' },
      resources: [openApiResource('products', products)],
    }) as Document;
    const names = document.paths['/products']!['get']!.parameters!.map((p) => p.name);
    for (const name of [
      'filter[category.name][like]',
      'filter[order.customer.email][eq]',
      'filter[tags.title][in]',
      'include',
    ])
      assert.ok(names.includes(name), name);
    const { problems } = await checkEveryParameter(server, '', document, id);
    assert.deepEqual(problems, []);
  });

  it('accepts every field the fields parameter offers, on search and read with the include it needs, on export alone', async () => {
    const document = openApiDocument({
      info: { title: 'Shop', version: '1' },
      resources: [openApiResource('products', products)],
    }) as Document;
    const offered = (path: string) =>
      (
        document.paths[path]!['get']!.parameters!.find((p) => p.name === 'fields')!.schema as {
          items: { enum: string[] };
        }
      ).items.enum;
    const records = offered('/products');
    assert.deepEqual(offered('/products/{id}'), records);
    for (const name of ['name', 'category', 'category.name', 'tags.title']) assert.ok(records.includes(name), name);
    const includable = ['category', 'tags'];
    const problems: string[] = [];
    for (const name of records) {
      const include = includable.includes(name) ? name : name.includes('.') ? name.split('.')[0]! : undefined;
      const query = `fields=${name}${include === undefined ? '' : `&include=${include}`}`;
      for (const path of ['/products', `/products/${id}`]) {
        const res = await server.get(`${path}?${query}`);
        if (res.status !== 200) problems.push(`${path}?${query}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    const csv = offered('/products/export-csv');
    assert.ok(csv.length > 0 && csv.every((name) => !name.includes('.') && records.includes(name)));
    const exported = await server.get(`/products/export-csv?fields=${csv.join(',')}`);
    assert.equal(exported.status, 200, exported.text);
    assert.deepEqual(problems, []);
  });
});
