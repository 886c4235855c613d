import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import type { RelationModel } from '../../lib/core/relation-paths.js';
import { checkRelations, resolveRelations } from '../../lib/core/relation-policy.js';
import {
  planRelationWrites,
  plannedIds,
  relationWriteProblems,
  splitRelational,
  writableRelations,
} from '../../lib/core/relation-writes.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const id = { type: DataTypes.INTEGER, primaryKey: true };
const Book = sequelize.define('Book', { id, title: DataTypes.STRING });
const Tag = sequelize.define('Tag', { id, label: DataTypes.STRING });
const Line = sequelize.define('Line', { id, sku: DataTypes.STRING(8), quantity: DataTypes.INTEGER });
const Author = sequelize.define('Author', { id, name: DataTypes.STRING });
Book.belongsToMany(Tag, { as: 'tags', through: 'BookTags' });
Book.hasMany(Line, { as: 'lines', foreignKey: 'bookId' });
Book.belongsTo(Author, { as: 'author' });
const model = Book as unknown as RelationModel;
const relations = resolveRelations(model, {
  tags: { write: true },
  lines: { write: true, fillable: ['sku', 'quantity'] },
  author: { include: true },
});

describe('relationWriteProblems', () => {
  it('returns nothing for a belongs-to-many, and for a has-many with its fillable list', () => {
    assert.deepEqual(checkRelations(model, { tags: { write: true }, lines: { write: true, fillable: ['sku'] } }), []);
  });
  it('returns a sentence for a has-many without fillable, a belongs-to, fillable without write and a bad name', () => {
    assert.match(relationWriteProblems(model, 'lines', { write: true })[0]!, /without fillable/);
    assert.match(relationWriteProblems(model, 'author', { write: true })[0]!, /author is a BelongsTo/);
    assert.match(relationWriteProblems(model, 'lines', { fillable: ['sku'] })[0]!, /only with write: true/);
    assert.match(relationWriteProblems(model, 'tags', { write: true, fillable: ['label'] })[0]!, /belongs-to-many/);
    assert.match(relationWriteProblems(model, 'lines', { write: true, fillable: ['bookId'] })[0]!, /foreign key/);
    assert.deepEqual(checkRelations(model, { lines: { write: true, fillable: ['skuu'] } }), [
      "relations.lines.fillable names 'skuu', which is not an attribute or column of Line; did you mean 'sku'?",
    ]);
  });
});

describe('resolveRelations with write', () => {
  it('returns links for a belongs-to-many and nested rows with their fillable set for a has-many', () => {
    assert.equal(relations['tags']!.write!.kind, 'links');
    assert.deepEqual([...relations['lines']!.write!.fillable], ['sku', 'quantity']);
    assert.equal(relations['author']!.write, undefined);
    assert.deepEqual(writableRelations(relations), ['tags', 'lines']);
  });
});

describe('splitRelational', () => {
  it('returns the opened associations apart from the rest, a closed one staying with the rest', () => {
    assert.deepEqual(splitRelational({ title: 'Dune', tags: [1], author: 2 }, relations), {
      own: { title: 'Dune', author: 2 },
      relational: { tags: [1] },
    });
  });
});

describe('planRelationWrites', () => {
  it('returns a set of coerced ids, add and remove, and nested rows limited to fillable', () => {
    const plans = planRelationWrites(
      model,
      { tags: [1, '3'], lines: [{ sku: 'A1', quantity: 2, price: 5 }] },
      relations,
      'create',
      'id',
    );
    assert.deepEqual(
      plans,
      E.right([
        { kind: 'set', name: 'tags', ids: [1, 3] },
        { kind: 'nested', name: 'lines', rows: [{ sku: 'A1', quantity: 2 }] },
      ]),
    );
    assert.deepEqual(
      planRelationWrites(model, { tags: { remove: [2] } }, relations, 'update', 'id'),
      E.right([{ kind: 'change', name: 'tags', add: [], remove: [2] }]),
    );
  });
  it('returns one item per problem, each naming where', () => {
    const plans = planRelationWrites(
      model,
      { tags: { add: [1, 'x'], remove: 2 }, lines: [{ quantity: 'many' }, null] },
      relations,
      'create',
      'id',
    );
    assert.ok(E.isLeft(plans));
    assert.deepEqual(
      plans.left.map((item) => `${item.field}:${item.error}`),
      ['tags.add.1:type', 'tags.remove:invalidValue', 'lines.0.quantity:type', 'lines.1:invalidValue'],
    );
  });
  it('returns invalidValue naming a has-many on update', () => {
    const plans = planRelationWrites(model, { lines: [] }, relations, 'update', 'id');
    assert.deepEqual(E.isLeft(plans) && plans.left.map((item) => item.field), ['lines']);
  });
  it('never throws, whatever the body holds', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('tags', 'lines'), fc.jsonValue()), fc.boolean(), (body, create) => {
        planRelationWrites(model, body, relations, create ? 'create' : 'update', 'id');
      }),
    );
  });
  it('round-trips a list of ids: the set plan holds each id in order, and plannedIds names each by its index', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1_000_000 }), { maxLength: 20 }), (ids) => {
        const plans = planRelationWrites(model, { tags: ids }, relations, 'update', 'id');
        const named = plannedIds(E.isRight(plans) ? plans.right : []);
        assert.deepEqual(plans, E.right([{ kind: 'set', name: 'tags', ids }]));
        assert.deepEqual(
          named.map((planned) => [planned.field, planned.value]),
          ids.map((value, index) => [`tags.${index}`, value]),
        );
      }),
    );
  });
});
