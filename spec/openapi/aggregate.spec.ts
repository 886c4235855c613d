/** The OpenAPI document of a resource declared with `aggregate`: `GET <uri>/aggregate` with the names it takes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { DataTypes, Sequelize } from 'sequelize';
import { CrudController, openApiDocument, openApiResource, resource } from '../../lib/index.js';
import type { AggregateDeclaration } from '../../lib/core/aggregate-policy.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Author = sequelize.define('AggoAuthor', { name: DataTypes.STRING, secret: DataTypes.STRING });
const Book = sequelize.define('AggoBook', {
  id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
  title: { type: DataTypes.STRING, allowNull: false },
  genre: DataTypes.STRING,
  pages: DataTypes.INTEGER,
  price: DataTypes.DECIMAL(8, 2),
  cost: DataTypes.INTEGER,
});
Book.belongsTo(Author, { as: 'author' });
class BookController extends CrudController {
  override fillable = ['title'];
  override hidden = ['cost'];
  override relations = { author: { hidden: ['secret'] } };
  override aggregate: AggregateDeclaration = true;
  modelClassName() {
    return Book;
  }
}
const config = { global: { find_field_is_uuid: false } };
const documentOf = (aggregate: AggregateDeclaration | undefined, form: 'resource' | 'class' = 'resource') =>
  openApiDocument({
    info: { title: 'Books', version: '1' },
    servers: [{ url: 'http://localhost:3000' }],
    resources: [
      openApiResource(
        'books',
        form === 'class'
          ? BookController
          : resource(Book, {
              policy: { fillable: ['title'], hidden: ['cost'] },
              relations: { author: { hidden: ['secret'] } },
              ...(aggregate !== undefined && { aggregate }),
            }),
        { config, moduleName: 'lib' },
      ),
    ],
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  }) as { paths: Record<string, Record<string, any>> };

const parameter = (operation: any, name: string) =>
  operation.parameters.find((p: { name: string }) => p.name === name) as { description: string } | undefined;

describe('openApiDocument with aggregates', () => {
  it('documents GET <uri>/aggregate only when declared, in both forms, with the names it takes', () => {
    assert.equal(documentOf(undefined).paths['/books/aggregate'], undefined);
    for (const form of ['resource', 'class'] as const) {
      const operation = documentOf(true, form).paths['/books/aggregate']!['get'];
      assert.equal(operation.operationId, 'books.aggregate');
      assert.equal(operation['x-ability'], 'lib.access.search');
      assert.match(parameter(operation, 'aggregate[sum]')!.description, /: id, pages, price, authorId$/);
      assert.match(parameter(operation, 'groupBy')!.description, /author\.name/);
      assert.doesNotMatch(JSON.stringify(operation), /cost|secret/);
      assert.ok(parameter(operation, 'filter[genre]') ?? parameter(operation, 'filter[genre][eq]'));
      assert.equal(operation.responses['200'].content['application/json'].schema.properties.data.type, 'array');
    }
  });

  it('narrows the names to an object declaration', () => {
    const operation = documentOf({ groupBy: ['genre'], sum: ['price'], avg: [] }).paths['/books/aggregate']!['get'];
    assert.match(parameter(operation, 'aggregate[sum]')!.description, /: price$/);
    assert.equal(parameter(operation, 'aggregate[avg]'), undefined);
    assert.match(parameter(operation, 'groupBy')!.description, /: genre$/);
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
