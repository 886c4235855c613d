/** The OpenAPI document of a live resource: `GET <uri>/changes` as a text/event-stream with its events' shapes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { DataTypes, Sequelize } from 'sequelize';
import { CrudController, openApiDocument, openApiResource, resource } from '../../lib/index.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Book = sequelize.define('LvoBook', {
  id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
  title: { type: DataTypes.STRING, allowNull: false },
});
class BookController extends CrudController {
  override fillable = ['title'];
  override live = true;
  modelClassName() {
    return Book;
  }
}
const config = { global: { find_field_is_uuid: false } };
const documentOf = (live: boolean, form: 'resource' | 'class' = 'resource') =>
  openApiDocument({
    info: { title: 'Books', version: '1' },
    servers: [{ url: 'http://localhost:3000' }],
    resources: [
      openApiResource(
        'books',
        form === 'class' ? BookController : resource(Book, { policy: { fillable: ['title'] }, live }),
        { config, moduleName: 'lib' },
      ),
    ],
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  }) as { paths: Record<string, Record<string, any>> };

describe('openApiDocument with the change feed', () => {
  it('documents GET <uri>/changes only for a live resource, in both forms', () => {
    assert.equal(documentOf(false).paths['/books/changes'], undefined);
    for (const form of ['resource', 'class'] as const) {
      const operation = documentOf(true, form).paths['/books/changes']!['get'];
      assert.equal(operation.operationId, 'books.changes');
      assert.equal(operation['x-ability'], 'lib.access.search');
      const stream = operation.responses['200'].content['text/event-stream'];
      assert.deepEqual(Object.keys(stream['x-events']), [
        'created',
        'updated',
        'deleted',
        'softDeleted',
        'restored',
        'reset',
      ]);
      assert.deepEqual(stream['x-events'].updated.properties.ids, {
        type: 'array',
        items: { type: 'string' },
        description: 'Find-field values, as text',
      });
      assert.deepEqual(
        operation.parameters.map((parameter: { name: string; in: string }) => `${parameter.in} ${parameter.name}`),
        ['query ids', 'header Last-Event-ID'],
      );
      assert.deepEqual(operation.responses['503'].content['application/json'].schema.properties.code.enum, [
        'databaseUnavailable',
        'databaseTimeout',
        'tooManySubscribers',
      ]);
    }
  });

  it('passes the recommended lint rules', async () => {
    const problems = await lintFromString({
      source: JSON.stringify(documentOf(true)),
      absoluteRef: '/books.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const errors = problems.filter((problem) => problem.severity === 'error');
    assert.deepEqual(
      errors.map((e) => `${e.ruleId} at ${e.location[0]?.pointer}: ${e.message}`),
      [],
    );
  });
});
