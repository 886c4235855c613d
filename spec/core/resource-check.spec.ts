import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG, unsafeResolveConfig } from '../../lib/core/config.js';
import { checkResource, type Declarations, type ModelShape } from '../../lib/core/resource-check.js';
import { CRUD_METHODS } from '../../lib/core/route-table.js';
import type { CrudMethod } from '../../lib/types.js';
import { identifierArb, modelArb } from '../arbitraries/model-arb.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Category = sequelize.define('Category', { id: { type: DataTypes.UUID, primaryKey: true }, name: DataTypes.STRING });
const User = sequelize.define(
  'User',
  {
    id: { type: DataTypes.UUID, primaryKey: true },
    email: DataTypes.STRING,
    password: DataTypes.STRING,
    categoryId: DataTypes.UUID,
  },
  { underscored: true },
);
User.belongsTo(Category, { as: 'category', foreignKey: 'categoryId' });
const Counter = sequelize.define('Counter', {
  id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
  externalId: { type: DataTypes.UUID, field: 'external_id' },
  label: DataTypes.STRING,
});

const shape = (model: unknown) => model as ModelShape;
const LENIENT = unsafeResolveConfig({ global: { find_field_is_uuid: false } }, DEFAULT_CONFIG);
const RECORD_METHODS: CrudMethod[] = ['read', 'update', 'delete', 'softDelete', 'restore'];

describe('checkResource', () => {
  it('returns [] for declarations that name attributes and columns of the model', () => {
    const declared: Declarations = {
      hidden: ['password'],
      fillable: ['email', 'category_id'],
      sortable: ['created_at', 'email'],
      filterable: ['categoryId'],
      termFields: ['email'],
      csvColumns: { email: 'Email', 'category.name': 'Category' },
    };
    assert.deepEqual(checkResource(shape(User), declared, DEFAULT_CONFIG, CRUD_METHODS), []);
  });

  it("returns [] for fillable: 'all' and for no declarations", () => {
    assert.deepEqual(checkResource(shape(User), { fillable: 'all' }, DEFAULT_CONFIG, CRUD_METHODS), []);
    assert.deepEqual(checkResource(shape(User), {}, DEFAULT_CONFIG, CRUD_METHODS), []);
  });

  it('returns a sentence naming the controller for an undeclared fillable with create or update, under require_fillable only', () => {
    const strict = unsafeResolveConfig({ global: { require_fillable: true } }, DEFAULT_CONFIG);
    const undeclared: Declarations = { fillableDeclared: false, owner: 'UserController' };
    assert.deepEqual(checkResource(shape(User), undeclared, strict, ['search', 'create', 'update']), [
      "UserController registers create and update without declaring fillable, and global.require_fillable is on: list the attributes a client may write (override fillable = ['…']), or leave create and update out with except",
    ]);
    assert.deepEqual(checkResource(shape(User), undeclared, strict, ['search', 'read', 'delete']), []);
    assert.deepEqual(checkResource(shape(User), undeclared, DEFAULT_CONFIG, CRUD_METHODS), []);
    assert.deepEqual(checkResource(shape(User), { fillable: 'all', fillableDeclared: true }, strict, CRUD_METHODS), []);
    assert.deepEqual(checkResource(shape(User), { fillable: 'all' }, strict, CRUD_METHODS), []);
  });

  it('returns a sentence naming the key, the bad value, the model and the nearest valid name', () => {
    assert.deepEqual(checkResource(shape(User), { hidden: ['pasword'] }, DEFAULT_CONFIG, ['read']), [
      "hidden names 'pasword', which is not an attribute or column of User; did you mean 'password'?",
    ]);
  });

  it('returns one sentence per unknown name, for every list', () => {
    const declared: Declarations = { hidden: ['pasword'], fillable: ['emal'], sortable: ['created'], filterable: ['categoryID'], termFields: ['colour'] };
    assert.deepEqual(checkResource(shape(User), declared, DEFAULT_CONFIG, []), [
      "hidden names 'pasword', which is not an attribute or column of User; did you mean 'password'?",
      "fillable names 'emal', which is not an attribute or column of User; did you mean 'email'?",
      "sortable names 'created', which is not an attribute or column of User; did you mean 'createdAt'?",
      "filterable names 'categoryID', which is not an attribute or column of User; did you mean 'categoryId'?",
      "termFields names 'colour', which is not an attribute or column of User",
    ]);
  });

  it('returns a sentence for a csv path through an unknown association, or to an unknown attribute', () => {
    assert.deepEqual(checkResource(shape(User), { csvColumns: { 'categry.name': 'Category' } }, DEFAULT_CONFIG, []), [
      "csvColumns names 'categry.name': 'categry' is not an association of User; did you mean 'category'?",
    ]);
    assert.deepEqual(checkResource(shape(User), { csvColumns: { 'category.nme': 'Category', emal: 'Email' } }, DEFAULT_CONFIG, []), [
      "csvColumns names 'category.nme': 'nme' is not an attribute or column of Category; did you mean 'name'?",
      "csvColumns names 'emal': 'emal' is not an attribute or column of User; did you mean 'email'?",
    ]);
  });

  it('returns a sentence, not a TypeError, for a csv path through a name every object has', () => {
    for (const step of ['constructor', 'toString', '__proto__']) {
      assert.deepEqual(checkResource(shape(User), { csvColumns: { [`${step}.name`]: 'X' } }, DEFAULT_CONFIG, []), [
        `csvColumns names '${step}.name': '${step}' is not an association of User`,
      ]);
    }
  });

  it('returns a sentence for an integer find field behind {id:uuid} routes, naming find_field_is_uuid: false', () => {
    assert.deepEqual(checkResource(shape(Counter), {}, DEFAULT_CONFIG, ['search', 'read']), [
      'read finds {id} in Counter.id (INTEGER), but the routes take {id:uuid}: ' +
        'set config { global: { find_field_is_uuid: false } } to match such ids, or find_field to a UUID attribute',
    ]);
    const [problem] = checkResource(shape(Counter), {}, DEFAULT_CONFIG, RECORD_METHODS);
    assert.match(problem ?? '', /^read, update, delete, softDelete and restore find \{id\} in Counter\.id \(INTEGER\)/);
  });

  it('returns [] for an integer key with find_field_is_uuid false, or with no record action', () => {
    assert.deepEqual(checkResource(shape(Counter), {}, LENIENT, CRUD_METHODS), []);
    assert.deepEqual(checkResource(shape(Counter), {}, DEFAULT_CONFIG, ['search', 'options', 'create', 'exportCsv']), []);
  });

  it('returns [] for a UUID find field (by column name) on an integer-keyed model', () => {
    const config = unsafeResolveConfig({ global: { find_field: 'external_id' } }, DEFAULT_CONFIG);
    assert.deepEqual(checkResource(shape(Counter), {}, config, CRUD_METHODS), []);
  });

  it('returns a sentence for a model with neither the find field nor a primary key', () => {
    const Log: ModelShape = { name: 'Log', getAttributes: () => ({ message: { type: DataTypes.STRING } }) };
    assert.deepEqual(checkResource(Log, {}, DEFAULT_CONFIG, ['read', 'delete']), ["read and delete have no find field: Log has no attribute 'id' and no primary key"]);
  });

  it('returns [] for declarations built only from the model’s own names', () => {
    fc.assert(
      fc.property(modelShapeArb.chain(declarationsArb), fc.subarray([...CRUD_METHODS]), ({ model, declared }, methods) => {
        assert.deepEqual(checkResource(model, declared, DEFAULT_CONFIG, methods), []);
      }),
    );
  });
});

/** A model: random attributes (some with their own column), a UUID key, maybe one association. */
const modelShapeArb = fc
  .record({ own: modelArb, target: fc.option(fc.record({ as: identifierArb, model: modelArb }), { nil: undefined }) })
  .map(({ own, target }): ModelShape => {
    const attributes = { ...own.attributes, id: { type: DataTypes.UUID, primaryKey: true } };
    const associations = target && { [target.as]: { target: { name: 'Target', getAttributes: () => target.model.attributes } } };
    return { name: 'Model', getAttributes: () => attributes, ...(associations && { associations }) };
  });

/** Every name a model answers to: its attributes' names and their columns. */
const namesOf = (model: ModelShape) => Object.entries(model.getAttributes()).flatMap(([name, definition]) => [name, definition.field ?? name]);

/** Declarations whose every name is one of the model's own, and csv paths through its own associations. */
function declarationsArb(model: ModelShape) {
  const names = namesOf(model);
  const paths = [...names, ...Object.entries(model.associations ?? {}).flatMap(([as, { target }]) => namesOf(target).map((name) => `${as}.${name}`))];
  const list = fc.subarray(names);
  return fc
    .record({
      hidden: list,
      fillable: fc.oneof(list, fc.constant('all' as const)),
      sortable: list,
      filterable: list,
      termFields: list,
      csvColumns: fc.subarray(paths).map((keys) => Object.fromEntries(keys.map((key) => [key, key.toUpperCase()]))),
    })
    .map((declared) => ({ model, declared: declared as Declarations }));
}
