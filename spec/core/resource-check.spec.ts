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
const Category = sequelize.define('Category', {
  id: { type: DataTypes.UUID, primaryKey: true },
  name: DataTypes.STRING,
});
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

  it("returns [] for fillable: 'all', and for no declarations without create or update", () => {
    assert.deepEqual(checkResource(shape(User), { fillable: 'all' }, DEFAULT_CONFIG, CRUD_METHODS), []);
    assert.deepEqual(
      checkResource(shape(User), {}, DEFAULT_CONFIG, [
        'search',
        'options',
        'read',
        'exportCsv',
        'delete',
        'softDelete',
        'restore',
      ]),
      [],
    );
  });

  it('returns a sentence naming the fix for an undeclared fillable with create or update', () => {
    assert.deepEqual(checkResource(shape(User), {}, DEFAULT_CONFIG, ['search', 'create', 'update']), [
      "create and update are registered without fillable, so a body could write any attribute: declare fillable: [...] (the attributes a body may write) or fillable: 'all', or leave create and update out with except",
    ]);
    assert.deepEqual(checkResource(shape(User), { fillable: undefined }, DEFAULT_CONFIG, ['update']), [
      "update is registered without fillable, so a body could write any attribute: declare fillable: [...] (the attributes a body may write) or fillable: 'all', or leave update out with except",
    ]);
    assert.deepEqual(checkResource(shape(User), { fillable: [] }, DEFAULT_CONFIG, CRUD_METHODS), []);
  });

  it('returns a sentence for a composite primary key behind the {id} routes, and [] for a unique find field beside it', () => {
    const BookTag: ModelShape = {
      name: 'BookTag',
      getAttributes: () => ({
        bookId: { type: DataTypes.UUID, primaryKey: true },
        tagId: { type: DataTypes.UUID, primaryKey: true },
        externalId: { type: DataTypes.UUID, field: 'external_id', unique: true },
      }),
    };
    assert.deepEqual(checkResource(BookTag, { fillable: 'all' }, DEFAULT_CONFIG, ['search', 'read', 'delete']), [
      'read and delete find {id} in BookTag.bookId, one column of the composite primary key (bookId, tagId), so one {id} names no single row: ' +
        'set find_field to a unique column, or leave read and delete out with only or except',
    ]);
    const byTag = unsafeResolveConfig({ global: { find_field: 'tagId' } }, DEFAULT_CONFIG);
    assert.match(
      checkResource(BookTag, {}, byTag, ['read'])[0] ?? '',
      /^read finds \{id\} in BookTag\.tagId, one column/,
    );
    const byExternal = unsafeResolveConfig({ global: { find_field: 'external_id' } }, DEFAULT_CONFIG);
    assert.deepEqual(
      checkResource(
        BookTag,
        {},
        byExternal,
        RECORD_METHODS.filter((method) => method !== 'update'),
      ),
      [],
    );
    assert.deepEqual(
      checkResource(BookTag, { fillable: 'all' }, DEFAULT_CONFIG, ['search', 'options', 'create', 'exportCsv']),
      [],
    );
  });

  it('returns a sentence naming the key, the bad value, the model and the nearest valid name', () => {
    assert.deepEqual(checkResource(shape(User), { hidden: ['pasword'] }, DEFAULT_CONFIG, ['read']), [
      "hidden names 'pasword', which is not an attribute or column of User; did you mean 'password'?",
    ]);
  });

  it('returns one sentence per unknown name, for every list', () => {
    const declared: Declarations = {
      hidden: ['pasword'],
      fillable: ['emal'],
      sortable: ['created'],
      filterable: ['categoryID'],
      termFields: ['colour'],
    };
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
    assert.deepEqual(
      checkResource(shape(User), { csvColumns: { 'category.nme': 'Category', emal: 'Email' } }, DEFAULT_CONFIG, []),
      [
        "csvColumns names 'category.nme': 'nme' is not an attribute or column of Category; did you mean 'name'?",
        "csvColumns names 'emal': 'emal' is not an attribute or column of User; did you mean 'email'?",
      ],
    );
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
    assert.deepEqual(checkResource(shape(Counter), { fillable: 'all' }, LENIENT, CRUD_METHODS), []);
    assert.deepEqual(
      checkResource(shape(Counter), { fillable: 'all' }, DEFAULT_CONFIG, ['search', 'options', 'create', 'exportCsv']),
      [],
    );
  });

  it('returns [] for a UUID find field (by column name) on an integer-keyed model', () => {
    const config = unsafeResolveConfig({ global: { find_field: 'external_id' } }, DEFAULT_CONFIG);
    assert.deepEqual(checkResource(shape(Counter), { fillable: ['label'] }, config, CRUD_METHODS), []);
  });

  it('returns a sentence for a model with neither the find field nor a primary key', () => {
    const Log: ModelShape = { name: 'Log', getAttributes: () => ({ message: { type: DataTypes.STRING } }) };
    assert.deepEqual(checkResource(Log, {}, DEFAULT_CONFIG, ['read', 'delete']), [
      "read and delete have no find field: Log has no attribute 'id' and no primary key",
    ]);
  });

  it('returns [] for declarations built only from the model’s own names', () => {
    fc.assert(
      fc.property(
        modelShapeArb.chain(declarationsArb),
        fc.subarray([...CRUD_METHODS]),
        ({ model, declared }, methods) => {
          assert.deepEqual(checkResource(model, declared, DEFAULT_CONFIG, methods), []);
        },
      ),
    );
  });
});

/** A model: random attributes (some with their own column), a UUID key, maybe one association. */
const modelShapeArb = fc
  .record({ own: modelArb, target: fc.option(fc.record({ as: identifierArb, model: modelArb }), { nil: undefined }) })
  .map(({ own, target }): ModelShape => {
    const attributes = { ...own.attributes, id: { type: DataTypes.UUID, primaryKey: true } };
    const associations = target && {
      [target.as]: { target: { name: 'Target', getAttributes: () => target.model.attributes } },
    };
    return { name: 'Model', getAttributes: () => attributes, ...(associations && { associations }) };
  });

/** Every name a model answers to: its attributes' names and their columns. */
const namesOf = (model: ModelShape) =>
  Object.entries(model.getAttributes()).flatMap(([name, definition]) => [name, definition.field ?? name]);

/**
 * Declarations whose every name is one of the model's own, and csv paths through its own associations.
 * The key stays visible: it is options' default value column, which may not be hidden.
 */
function declarationsArb(model: ModelShape) {
  const names = namesOf(model);
  const paths = [
    ...names,
    ...Object.entries(model.associations ?? {}).flatMap(([as, { target }]) =>
      namesOf(target).map((name) => `${as}.${name}`),
    ),
  ];
  const list = fc.subarray(names);
  return fc
    .record({
      hidden: fc.subarray(names.filter((name) => name !== DEFAULT_CONFIG.options.default_value)),
      fillable: fc.oneof(list, fc.constant('all' as const)),
      sortable: list,
      filterable: list,
      termFields: list,
      csvColumns: fc.subarray(paths).map((keys) => Object.fromEntries(keys.map((key) => [key, key.toUpperCase()]))),
    })
    .map((declared) => ({ model, declared: declared as Declarations }));
}
