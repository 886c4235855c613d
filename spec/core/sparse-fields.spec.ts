import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { resolveRelations } from '../../lib/core/relation-policy.js';
import { sparseShape } from '../../lib/core/row-shape.js';
import { planSearch } from '../../lib/core/search-plan.js';
import { ownFields, parseFields, pickFields } from '../../lib/core/sparse-fields.js';
import type { FieldPolicy } from '../../lib/types.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Category = sequelize.define('SfCategory', { name: DataTypes.STRING, secret: DataTypes.STRING });
const Tag = sequelize.define('SfTag', { title: DataTypes.STRING });
const Product = sequelize.define(
  'SfProduct',
  { name: DataTypes.STRING, price: DataTypes.INTEGER, createdOn: DataTypes.DATEONLY, secret: DataTypes.STRING },
  { underscored: true, timestamps: false },
);
Product.belongsTo(Category, { as: 'category' });
Product.hasMany(Tag, { as: 'tags' });
const policy: FieldPolicy = {
  ...resolvePolicy(Product, { hidden: ['secret'] }, DEFAULT_CONFIG),
  relations: resolveRelations(Product, {
    category: { hidden: ['secret'], include: true },
    tags: { include: true },
  }),
};
const VISIBLE = ['id', 'name', 'price', 'createdOn', 'categoryId'];

describe('parseFields', () => {
  it('returns undefined without fields, and the named attributes in their order', () => {
    assert.deepEqual(parseFields(Product, undefined, policy, []), E.right(undefined));
    assert.deepEqual(parseFields(Product, 'price, id', policy, []), E.right({ price: true, id: true }));
  });

  it('resolves column names and repeats, and reads a repeated parameter as one list', () => {
    assert.deepEqual(
      parseFields(Product, ['created_on,name', 'name', 'createdOn'], policy, []),
      E.right({ createdOn: true, name: true }),
    );
  });

  it('returns nested trees for included paths, and keeps an association named whole over its parts', () => {
    assert.deepEqual(
      parseFields(Product, 'id,category.name,tags.title,tags.id', policy, ['category', 'tags']),
      E.right({ id: true, category: { name: true }, tags: { title: true, id: true } }),
    );
    assert.deepEqual(parseFields(Product, 'category.name,category', policy, ['category']), E.right({ category: true }));
    assert.deepEqual(parseFields(Product, 'category,category.name', policy, ['category']), E.right({ category: true }));
  });

  it('fails on the field fields for a hidden name as for an unknown one, with the nearest visible name', () => {
    assert.deepEqual(
      parseFields(Product, 'nmae,secret', policy, []),
      E.left([
        {
          field: 'fields',
          error: 'columnNotFound',
          message: `fields names "nmae", which is not a field of this resource; did you mean 'name'?`,
        },
        {
          field: 'fields',
          error: 'columnNotFound',
          message: 'fields names "secret", which is not a field of this resource',
        },
      ]),
    );
    assert.deepEqual(
      parseFields(Product, 'category.secrte', policy, ['category']),
      E.left([
        {
          field: 'fields',
          error: 'columnNotFound',
          message: `fields names "category.secrte", which is not a field of "category"`,
        },
      ]),
    );
  });

  it('fails for a relation path whose association is not included, naming the include it needs', () => {
    assert.deepEqual(
      parseFields(Product, 'tags.title', policy, ['category']),
      E.left([
        { field: 'fields', error: 'invalidValue', message: 'fields names "tags.title", which needs include=tags' },
      ]),
    );
  });

  it('fails for an empty list or a value that is not text', () => {
    for (const raw of ['', ' , ', { a: '1' }, ['a', 1]])
      assert.equal(E.isLeft(parseFields(Product, raw, policy, [])), true, JSON.stringify(raw));
  });

  it('keeps exactly the distinct named visible attributes, in first-named order (law)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...VISIBLE), { minLength: 1, maxLength: 8 }), (names) => {
        const parsed = parseFields(Product, names.join(','), policy, []);
        assert.ok(E.isRight(parsed));
        assert.deepEqual(Object.keys(parsed.right!), [...new Set(names)]);
        assert.deepEqual(ownFields(Product, parsed.right!), [...new Set(names)]);
      }),
    );
  });

  it('never throws, and any name that is no visible field fails on the field fields (law)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...VISIBLE, 'secret', 'category.name', 'tags.title'),
            // (no identifier: never a name by any reading)
            fc.string().map((text) => `${text}!`),
          ),
          {
            maxLength: 6,
          },
        ),
        fc.subarray(['category', 'tags']),
        (names, include) => {
          const parsed = parseFields(Product, names.join(','), policy, include);
          const items = names.flatMap((name) => name.split(',')).map((name) => name.trim());
          const bad = items.filter(
            (item) =>
              item !== '' &&
              !VISIBLE.includes(item) &&
              !(item === 'category.name' && include.includes('category')) &&
              !(item === 'tags.title' && include.includes('tags')),
          );
          if (E.isRight(parsed)) assert.equal(bad.length, 0, JSON.stringify(names));
          else {
            assert.ok(parsed.left.every((failure) => failure.field === 'fields'));
            if (items.some((item) => item !== '')) assert.ok(parsed.left.length >= 1);
          }
        },
      ),
    );
  });
});

describe('pickFields', () => {
  it('keeps the tree keys in its order, inside an included record and each of a list, and null as null', () => {
    const record = { id: 1, name: 'Kite', price: 3, category: { id: 2, name: 'Toys' }, tags: [{ id: 1, title: 'a' }] };
    assert.deepEqual(pickFields(record, { price: true, category: { name: true }, tags: { title: true } }), {
      price: 3,
      category: { name: 'Toys' },
      tags: [{ title: 'a' }],
    });
    assert.deepEqual(pickFields({ id: 1, category: null }, { category: { name: true }, missing: true }), {
      category: null,
    });
  });

  it('gives a record whose keys are the tree keys it has, each value unchanged (law)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.array(fc.string(), { maxLength: 6 }),
        (record, names) => {
          const tree = Object.fromEntries(names.map((name) => [name, true as const]));
          const picked = pickFields(record, tree);
          assert.deepEqual(
            Object.keys(picked),
            Object.keys(tree).filter((key) => Object.hasOwn(record, key)),
          );
          for (const key of Object.keys(picked)) assert.deepEqual(picked[key], record[key]);
        },
      ),
    );
  });
});

describe('sparseShape', () => {
  it("narrows a raw shape to the fieldset's attributes, in its order, and its conversions with them", () => {
    const shape = {
      path: 'raw' as const,
      attributes: ['id', 'name', 'createdOn'],
      converted: [{ attribute: 'createdOn', kind: 'dateonly' as const }],
    };
    assert.deepEqual(sparseShape(shape, ['name', 'id']), { path: 'raw', attributes: ['name', 'id'], converted: [] });
    assert.equal(sparseShape(shape, undefined), shape);
  });
});

describe('planSearch with fields', () => {
  const settings = { policy, termKey: 'term', termFields: [], config: DEFAULT_CONFIG, paginate: true };
  it('plans the fieldset against the include of the same request, and collects its failures with the others', () => {
    const planned = planSearch(Product, { fields: 'name,category.name', include: 'category' }, settings);
    assert.ok(E.isRight(planned));
    assert.deepEqual(planned.right.fields, { name: true, category: { name: true } });
    const failed = planSearch(Product, { fields: 'name,category.name', sort: 'nope' }, settings);
    assert.ok(E.isLeft(failed));
    assert.deepEqual(
      failed.left.map((failure) => failure.field),
      ['nope', 'fields'],
    );
    // An export reads no include: a relation path in its fieldset needs one it cannot have.
    const exported = planSearch(Product, { fields: 'category.name' }, { ...settings, paginate: false });
    assert.ok(E.isLeft(exported));
  });
});
