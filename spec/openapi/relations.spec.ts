import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Sequelize } from 'sequelize';
import { openApiDocument, openApiResource, resource } from '../../lib/index.js';
import { orders } from '../../docs/examples/relations/writes.js';
import { defineRelationCatalog } from '../support/relations-catalog.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const { Product } = defineRelationCatalog(sequelize, 'oarel');
const products = resource(Product, {
  policy: { fillable: 'all' },
  relations: { category: { include: true }, order: {}, 'order.customer': {}, tags: { include: true } },
});

describe('openApiDocument with relations', () => {
  const document = openApiDocument({
    info: { title: 'Shop', version: '1' },
    resources: [openApiResource('products', products)],
  }) as {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: { name: string; schema: { type?: string; items?: { enum?: string[] } }; description: string }[] }
      >
    >;
  };
  const parameter = (path: string, verb: string, name: string) =>
    document.paths[path]?.[verb]?.parameters?.find((p) => p.name === name);

  it('returns an include parameter listing the associations that may be included, on search and read', () => {
    assert.deepEqual(parameter('/products', 'get', 'include')?.schema.items?.enum, ['category', 'tags']);
    assert.deepEqual(parameter('/products/{id}', 'get', 'include')?.schema.items?.enum, ['category', 'tags']);
  });

  it('returns a filter parameter per filterable column of each association, typed by that column', () => {
    assert.equal(parameter('/products', 'get', 'filter[category.rank][gte]')?.schema.type, 'integer');
    assert.equal(parameter('/products', 'get', 'filter[order.customer.email][like]')?.schema.type, 'string');
    assert.equal(parameter('/products', 'get', 'filter[tags.title][in]')?.schema.type, 'array');
    assert.equal(parameter('/products', 'get', 'filter[category.rank][like]'), undefined);
  });

  it('returns sort items through belongs-to and has-one associations only', () => {
    const items = parameter('/products', 'get', 'sort')!.schema.items!.enum!;
    assert.ok(items.includes('-category.name') && items.includes('order.customer.email'));
    assert.deepEqual(
      items.filter((item) => item.includes('tags.')),
      [],
    );
  });

  it('returns a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });
});

describe('openApiDocument with relational writes', () => {
  const document = openApiDocument({
    info: { title: 'Orders', version: '1' },
    resources: [openApiResource('orders', orders, { config: { global: { find_field_is_uuid: false } } })],
  }) as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };
  const { OrderInput, OrderInputPatch } = document.components.schemas;

  it('returns a belongs-to-many as an array of ids or an add/remove object, on create and update', () => {
    const ids = { type: 'array', items: { type: 'integer' } };
    for (const input of [OrderInput!, OrderInputPatch!]) {
      const labels = input.properties['labels']!;
      assert.deepEqual(labels['oneOf'], [
        ids,
        { type: 'object', properties: { add: ids, remove: ids }, additionalProperties: false, minProperties: 1 },
      ]);
    }
  });

  it('returns a has-many as an array of rows of its own fillable attributes, on create only', () => {
    const lines = OrderInput!.properties['lines'] as {
      type: string;
      items: { properties: object; required: string[] };
    };
    assert.equal(lines.type, 'array');
    assert.deepEqual(Object.keys(lines.items.properties), ['sku', 'quantity']);
    assert.deepEqual(lines.items.required, ['sku', 'quantity']);
    assert.equal(OrderInputPatch!.properties['lines'], undefined);
  });

  it('returns a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });
});
