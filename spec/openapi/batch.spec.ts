/** The OpenAPI document of a resource with batch routes: one operation per batch route, create's array body. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { DataTypes, Sequelize } from 'sequelize';
import { openApiDocument, openApiResource, resource } from '../../lib/index.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Book = sequelize.define(
  'OabBook',
  {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    title: { type: DataTypes.STRING, allowNull: false },
    deletedAt: DataTypes.DATE,
  },
  { underscored: true },
);
const config = { global: { find_field_is_uuid: false }, batch: { max_records: 50 } };
const documentOf = (batch: boolean) =>
  openApiDocument({
    info: { title: 'Books', version: '1' },
    resources: [
      openApiResource('books', resource(Book, { policy: { fillable: ['title'] }, batch }), {
        config,
        moduleName: 'lib',
      }),
    ],
  }) as { paths: Record<string, Record<string, any>> };

describe('openApiDocument with batch routes', () => {
  it('documents every batch route with its operation id, ability and array reply', () => {
    const { paths } = documentOf(true);
    const batch = [
      ['/books', 'patch', 'books.updateMany', 'lib.access.update'],
      ['/books', 'delete', 'books.deleteMany', 'lib.access.delete'],
      ['/books/soft', 'delete', 'books.softDeleteMany', 'lib.access.delete'],
      ['/books/restore', 'patch', 'books.restoreMany', 'lib.access.restore'],
    ] as const;
    for (const [path, verb, id, ability] of batch) {
      const operation = paths[path]![verb];
      assert.equal(operation.operationId, id);
      assert.equal(operation['x-ability'], ability);
      assert.ok(
        operation.parameters.some((p: { name: string }) => p.name.startsWith('filter')),
        id,
      );
      assert.equal(operation.responses['200'].content['application/json'].schema.properties.data.type, 'array');
      assert.equal(operation.responses['200'].content['application/json'].schema.properties.data.maxItems, 50);
      assert.ok(operation.responses['400'], `${id}: filterRequired and tooManyRows`);
    }
    assert.equal(
      paths['/books']!['patch'].requestBody.content['application/json'].schema.$ref,
      '#/components/schemas/OabBookInputPatch',
    );
    // The single routes keep their ids.
    assert.equal(paths['/books/{id}']!['patch'].operationId, 'books.updatePatch');
    assert.equal(paths['/books/{id}']!['delete'].operationId, 'books.delete');
  });

  it("documents create's body as one object or an array of 1 to batch.max_records", () => {
    const create = documentOf(true).paths['/books']!['post'];
    const body = create.requestBody.content['application/json'].schema;
    assert.deepEqual(body.oneOf[0], { $ref: '#/components/schemas/OabBookInput' });
    assert.deepEqual([body.oneOf[1].type, body.oneOf[1].minItems, body.oneOf[1].maxItems], ['array', 1, 50]);
    assert.equal(create.responses['201'].content['application/json'].schema.properties.data.oneOf.length, 2);
  });

  it('documents If-Match and the 412 on every batch route, and the 428 where require_if_match is on', () => {
    const strict = openApiDocument({
      info: { title: 'Books', version: '1' },
      resources: [
        openApiResource('books', resource(Book, { policy: { fillable: ['title'] }, batch: true }), {
          config: { ...config, update: { require_if_match: true }, restore: { require_if_match: true } },
          moduleName: 'lib',
        }),
      ],
    }) as { paths: Record<string, Record<string, any>> };
    const routes = [
      ['/books', 'patch', true],
      ['/books', 'delete', false],
      ['/books/soft', 'delete', false],
      ['/books/restore', 'patch', true],
    ] as const;
    for (const [path, verb, required] of routes) {
      const operation = strict.paths[path]![verb];
      const header = operation.parameters.find((p: { name: string; in: string }) => p.name === 'If-Match');
      assert.deepEqual([header?.in, header?.required], ['header', required], `${verb} ${path}`);
      assert.ok(operation.responses['412'], `${verb} ${path}: 412`);
      assert.equal(Boolean(operation.responses['428']), required, `${verb} ${path}: 428`);
    }
  });

  it('documents no batch route, and create as before, without batch', () => {
    const plain = documentOf(false).paths;
    assert.equal(plain['/books']!['patch'], undefined);
    assert.equal(plain['/books/soft'], undefined);
    assert.equal(
      plain['/books']!['post'].requestBody.content['application/json'].schema.$ref,
      '#/components/schemas/OabBookInput',
    );
  });
});

describe("Redocly's recommended rules on a document with batch routes", () => {
  it('report no error, the open options route included (security: [])', async () => {
    const document = openApiDocument({
      info: { title: 'Books', version: '1', description: 'Books', license: { name: 'MIT', url: 'https://mit.edu' } },
      servers: [{ url: 'https://books.example.com' }],
      resources: [
        openApiResource('books', resource(Book, { policy: { fillable: ['title'] }, batch: true }), {
          config,
          moduleName: 'lib',
        }),
      ],
    });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: '/books.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const errors = problems.filter((problem) => problem.severity === 'error');
    assert.deepEqual(
      errors.map((e) => `${e.ruleId} at ${e.location[0]?.pointer}: ${e.message}`),
      [],
    );
    assert.deepEqual((document as { paths: Record<string, any> }).paths['/books/options'].get.security, []);
  });
});
