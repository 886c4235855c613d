import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Sequelize } from 'sequelize';
import { openApiDocument, openApiResource, resource } from '../../lib/index.js';
import { defineRelationCatalog } from '../support/relations-catalog.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const { Product } = defineRelationCatalog(sequelize, 'oarel');
const products = resource(Product, {
  policy: { fillable: 'all' },
  relations: { category: { include: true }, order: {}, 'order.customer': {}, tags: { include: true } },
});

describe('openApiDocument with relations', () => {
  const document = openApiDocument({ info: { title: 'Shop', version: '1' }, resources: [openApiResource('products', products)] }) as {
    paths: Record<string, Record<string, { parameters?: { name: string; schema: { items?: { enum?: string[] } }; description: string }[] }>>;
  };
  const parameter = (path: string, verb: string, name: string) => document.paths[path]?.[verb]?.parameters?.find((p) => p.name === name);

  it('returns an include parameter listing the associations that may be included, on search and read', () => {
    assert.deepEqual(parameter('/products', 'get', 'include')?.schema.items?.enum, ['category', 'tags']);
    assert.deepEqual(parameter('/products/{id}', 'get', 'include')?.schema.items?.enum, ['category', 'tags']);
  });

  it('returns the association paths in the filter and sort descriptions', () => {
    assert.match(parameter('/products', 'get', 'filter')!.description, /associations: category, order, order\.customer, tags/);
    assert.match(parameter('/products', 'get', 'sort')!.description, /belongs-to and has-one/);
  });

  it('returns a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });
});
