import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { attributeSchema } from '../../lib/openapi/attribute-schema.js';
import { crud, openApiDocument, openApiResource, resource, type FastCrudConfigInput } from '../../lib/index.js';
import { serve, type TestServer } from '../support/http.js';

// The document's {id} and the route's lookup come from one resolver: per action, by attribute or column name.
const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Thing = sequelize.define(
  'IdThing',
  {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
    externalId: { type: DataTypes.UUID, allowNull: false, field: 'external_id' },
    name: DataTypes.STRING(20),
  },
  { tableName: 'id_things', timestamps: false },
);
const things = resource(Thing, { policy: { fillable: ['name'] } });
const config: FastCrudConfigInput = {
  global: { find_field: 'external_id', find_field_is_uuid: false },
  read: { find_field: 'id' },
};

type Operation = { parameters?: { name: string; schema: object }[] };
const idSchema = (operation: Operation | undefined) => operation?.parameters?.find((p) => p.name === 'id')?.schema;

describe('the {id} of a find field named by its column, with a per-action find field', () => {
  const doc = openApiDocument({
    info: { title: 'Ids', version: '1' },
    resources: [openApiResource('things', things, { config })],
  }) as {
    paths: Record<string, Record<string, Operation>>;
  };
  let server: TestServer;
  let row: { id: number; externalId: string };

  before(async () => {
    await Thing.sync({ force: true });
    const created = await Thing.create({ externalId: randomUUID(), name: 'kite' });
    row = { id: created.get('id') as number, externalId: created.get('externalId') as string };
    const router = new Router();
    crud(router, 'things', things, { config });
    server = await serve(new Koa().use(router.routes()));
  });
  after(() => server?.close());

  it('documents read by the integer key and update by the external uuid', () => {
    assert.deepEqual(idSchema(doc.paths['/things/{id}']?.['get']), { type: 'integer' });
    assert.deepEqual(idSchema(doc.paths['/things/{id}']?.['patch']), { type: 'string', format: 'uuid' });
  });

  it('looks records up as documented: read by integer, update by uuid', async () => {
    assert.equal((await server.get(`/things/${row.id}`)).body.data.name, 'kite');
    assert.equal((await server.get(`/things/${row.externalId}`)).status, 404);
    const patch = (id: string | number) =>
      server.request('PATCH', `/things/${id}`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'kite 2' }),
      });
    assert.equal((await patch(row.id)).status, 404);
    const updated = await patch(row.externalId);
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.data.name, 'kite 2');
  });
});

describe('attributeSchema for replies', () => {
  it('returns null in the enum list of a nullable enum, and not of a not-null one', () => {
    assert.deepEqual(attributeSchema({ type: DataTypes.ENUM('s', 'm'), allowNull: true }), {
      type: ['string', 'null'],
      enum: ['s', 'm', null],
    });
    assert.deepEqual(attributeSchema({ type: DataTypes.ENUM('s', 'm'), allowNull: false }), {
      type: 'string',
      enum: ['s', 'm'],
    });
    assert.deepEqual(
      attributeSchema({ type: DataTypes.STRING(5), allowNull: true, validate: { isIn: [['a', 'b']] } }),
      { type: ['string', 'null'], maxLength: 5, enum: ['a', 'b', null] },
    );
  });

  it('returns BIGINT and DECIMAL as the dialect returns them: text on PostgreSQL, a number or beyond 2^53 text on MariaDB, numbers on SQLite', () => {
    const big = { type: DataTypes.BIGINT, allowNull: false };
    const decimal = { type: DataTypes.DECIMAL(10, 2), allowNull: true };
    const wide = { type: DataTypes.DECIMAL(30, 10), allowNull: false };
    assert.deepEqual(attributeSchema(big, 'postgres'), { type: 'string', pattern: '^-?[0-9]+$', format: 'int64' });
    assert.deepEqual(attributeSchema(big, 'mariadb'), {
      type: ['integer', 'string'],
      pattern: '^-?[0-9]+$',
      format: 'int64',
    });
    assert.deepEqual(attributeSchema(big, 'sqlite'), { type: 'integer' });
    assert.deepEqual(attributeSchema(big), { type: 'integer' });
    assert.deepEqual(attributeSchema(decimal, 'postgres'), {
      type: ['string', 'null'],
      pattern: '^-?[0-9]+(\\.[0-9]+)?$',
    });
    assert.deepEqual(attributeSchema(decimal, 'mariadb'), { type: ['number', 'null'] });
    assert.deepEqual(attributeSchema(decimal, 'sqlite'), { type: ['number', 'null'] });
    assert.deepEqual(attributeSchema(wide, 'mariadb'), {
      type: ['number', 'string'],
      pattern: '^-?[0-9]+(\\.[0-9]+)?$',
    });
    assert.deepEqual(attributeSchema(wide, 'sqlite'), { type: 'number' });
  });
});
