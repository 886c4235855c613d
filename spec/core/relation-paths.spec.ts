import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { parseFilters } from '../../lib/core/filter-parser.js';
import { parseSortItems } from '../../lib/core/sort-parser.js';
import {
  MAX_RELATION_DEPTH,
  relationSort,
  resolveRelationPath,
  type RelationModel,
} from '../../lib/core/relation-paths.js';
import { resolveRelations } from '../../lib/core/relation-policy.js';
import { planSearch } from '../../lib/core/search-plan.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const id = { type: DataTypes.INTEGER, primaryKey: true };
const Country = sequelize.define('Country', { id, code: DataTypes.STRING });
const Customer = sequelize.define('Customer', {
  id,
  email: DataTypes.STRING,
  secret: DataTypes.STRING,
  externalId: { type: DataTypes.UUID, field: 'external_id' },
});
const Order = sequelize.define('Order', { id, createdAt: { type: DataTypes.DATE, field: 'created_at' } });
const Category = sequelize.define('Category', { id, name: DataTypes.STRING, meta: DataTypes.JSON });
const Tag = sequelize.define('Tag', { id, title: DataTypes.STRING });
const Product = sequelize.define('Product', { id, name: DataTypes.STRING, price: DataTypes.INTEGER });
Product.belongsTo(Category, { as: 'category' });
Product.belongsTo(Order, { as: 'order' });
Order.belongsTo(Customer, { as: 'customer' });
Customer.belongsTo(Country, { as: 'country' });
Product.hasMany(Tag, { as: 'tags' });

const model = Product as unknown as RelationModel;
const relations = resolveRelations(model, {
  category: {},
  order: { filterable: ['createdAt'] },
  'order.customer': { hidden: ['secret'] },
  'order.customer.country': {},
  tags: { include: true },
});
const policy = { ...resolvePolicy(Product, {}, DEFAULT_CONFIG), relations };
const settings = { policy, termKey: 'term', termFields: [] };

describe('resolveRelationPath', () => {
  it('returns the associations walked and the attribute reached for a belongs-to path', () => {
    const resolved = resolveRelationPath(model, 'category.name', relations, 'filterable', 'id');
    assert.ok(E.isRight(resolved));
    assert.deepEqual(resolved.right.relation, ['category']);
    assert.deepEqual(resolved.right.column, { attribute: 'name', column: 'name' });
    assert.equal(resolved.right.singular, true);
    assert.equal(resolved.right.model, Category);
  });

  it('returns three levels, by attribute or column name, and singular false through a has-many', () => {
    const deep = resolveRelationPath(model, 'order.customer.country.code', relations, 'filterable', 'id');
    assert.ok(E.isRight(deep) && deep.right.relation.length === 3);
    const column = resolveRelationPath(model, 'order.created_at', relations, 'filterable', 'id');
    assert.ok(E.isRight(column) && column.right.column.attribute === 'createdAt');
    const many = resolveRelationPath(model, 'tags.title', relations, 'filterable', 'id');
    assert.ok(E.isRight(many) && many.right.singular === false);
  });

  it("returns the related model's find field for <relation>.id", () => {
    const found = resolveRelationPath(model, 'order.customer.id', relations, 'filterable', 'external_id');
    assert.ok(E.isRight(found));
    assert.deepEqual(found.right.column, { attribute: 'externalId', column: 'external_id' });
    const fallback = resolveRelationPath(model, 'category.id', relations, 'filterable', 'external_id');
    assert.ok(E.isRight(fallback) && fallback.right.column.attribute === 'id');
  });

  it('returns a columnNotFound item naming the whole path for unknown, closed, hidden or too deep paths', () => {
    for (const path of [
      'categry.name',
      'category.nope',
      'order.customer.secret',
      'order.id',
      'order.customer.country.code.x',
      'name.x',
    ]) {
      const resolved = resolveRelationPath(model, path, relations, 'filterable', 'id');
      assert.ok(E.isLeft(resolved), path);
      assert.equal(resolved.left.field, path);
      assert.equal(resolved.left.error, 'columnNotFound');
    }
    assert.ok(E.isLeft(resolveRelationPath(model, 'category.name', undefined, 'filterable', 'id')));
  });

  it('never throws and names the path it was given (law)', () => {
    const segment = fc.constantFrom(
      'category',
      'order',
      'customer',
      'country',
      'tags',
      'name',
      'id',
      'secret',
      '__proto__',
      'constructor',
      '',
      'x',
    );
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 2, maxLength: MAX_RELATION_DEPTH + 2 }),
        fc.constantFrom('filterable', 'sortable') as fc.Arbitrary<'filterable' | 'sortable'>,
        (steps, use) => {
          const path = steps.join('.');
          const resolved = resolveRelationPath(model, path, relations, use, 'id');
          if (E.isLeft(resolved)) return resolved.left.field === path;
          return (
            resolved.right.relation.length === steps.length - 1 && resolved.right.relation.length <= MAX_RELATION_DEPTH
          );
        },
      ),
    );
  });
});

describe('parseFilters through associations', () => {
  it('returns conditions with the associations walked, coerced to the related attribute', () => {
    const parsed = parseFilters(
      Product,
      {
        'order.customer.country.code': 'NL',
        'category.id': { in: '1,2' },
        'order.createdAt': { btw: '2024-01-01,2024-02-01' },
      },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.conditions[0], {
      attribute: 'code',
      column: 'code',
      op: 'eq',
      values: ['NL'],
      relation: ['order', 'customer', 'country'],
    });
    assert.deepEqual(parsed.conditions[1], {
      attribute: 'id',
      column: 'id',
      op: 'in',
      values: [1, 2],
      relation: ['category'],
    });
    assert.ok(parsed.conditions[2]!.values[0] instanceof Date);
  });

  it('returns relation paths inside $or groups, and names a refused one by its path', () => {
    const parsed = parseFilters(
      Product,
      { $or: [{ 'category.id': '1' }, { 'order.customer.country.code': 'NL' }] },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.groups, [
      {
        group: 'or',
        items: [
          [{ attribute: 'id', column: 'id', op: 'eq', values: [1], relation: ['category'] }],
          [{ attribute: 'code', column: 'code', op: 'eq', values: ['NL'], relation: ['order', 'customer', 'country'] }],
        ],
      },
    ]);
    const refused = parseFilters(
      Product,
      { $or: [{ id: '1' }, { 'category.nope': '1', 'category.meta': { like: 'x' } }] },
      settings,
    );
    assert.deepEqual(
      refused.failures.map((f) => [f.field, f.error]),
      [
        ['filter.$or.1.category.nope', 'columnNotFound'],
        ['filter.$or.1.category.meta', 'invalidOperator'],
      ],
    );
  });

  it('returns the operator checks of the related attribute (like on JSON is refused)', () => {
    const parsed = parseFilters(Product, { 'category.meta': { like: 'x' } }, settings);
    assert.equal(parsed.failures[0]?.error, 'invalidOperator');
  });
});

describe('relationSort, and sort items with dot paths', () => {
  it('returns dot paths as written and other items snake_cased', () => {
    assert.deepEqual(parseSortItems(' order.createdAt , -category.name,createdAt'), [
      ['order.createdAt', 'ASC'],
      ['category.name', 'DESC'],
      ['createdAt', 'ASC'],
    ]);
  });

  it('returns an order on the attribute path for belongs-to chains, invalidValue for has-many', () => {
    assert.deepEqual(
      relationSort(Product, 'order.customer.email', 'DESC', relations, 'id'),
      E.right(['order.customer.email', 'DESC']),
    );
    const many = relationSort(Product, 'tags.title', 'ASC', relations, 'id');
    assert.ok(E.isLeft(many) && many.left.error === 'invalidValue' && many.left.field === 'tags.title');
  });
});

describe('planSearch with relations', () => {
  const search = { ...settings, config: DEFAULT_CONFIG, paginate: true };
  it('returns the relation order before the tiebreak, the includes, and trashed false for a related deleted-at', () => {
    const plan = planSearch(
      Product,
      { sort: 'category.name,-price', include: 'tags', filter: { 'order.customer.email': 'a@b.c' } },
      search,
    );
    assert.ok(E.isRight(plan));
    assert.deepEqual(plan.right.order, [
      ['category.name', 'ASC'],
      ['price', 'DESC'],
      ['id', 'ASC'],
    ]);
    assert.deepEqual(plan.right.include, ['tags']);
    assert.equal(plan.right.trashed, false);
  });

  it('returns every failure at once: paths, has-many sort, include', () => {
    const plan = planSearch(Product, { sort: 'tags.title', include: 'category', filter: { 'nope.x': '1' } }, search);
    assert.ok(E.isLeft(plan));
    assert.deepEqual(
      plan.left.map((f) => f.field),
      ['nope.x', 'tags.title', 'include'],
    );
  });
});
