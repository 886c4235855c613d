import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import {
  aggregateDeclarationProblems,
  resolveAggregatePolicy,
  type AggregateDeclaration,
} from '../../lib/core/aggregate-policy.js';
import {
  aggregateRows,
  groupValue,
  measureValue,
  planAggregate,
  type AggregateRequest,
  type AggregateSettings,
} from '../../lib/core/aggregate-plan.js';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import type { RelationModel } from '../../lib/core/relation-paths.js';
import { resolveRelations } from '../../lib/core/relation-policy.js';
import type { FieldPolicy } from '../../lib/types.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Category = sequelize.define('AgCategory', { name: DataTypes.STRING, secret: DataTypes.STRING });
const Tag = sequelize.define('AgTag', { title: DataTypes.STRING });
const Product = sequelize.define(
  'AgProduct',
  {
    name: DataTypes.STRING,
    status: DataTypes.STRING,
    price: DataTypes.DECIMAL(10, 2),
    stock: DataTypes.INTEGER,
    cost: DataTypes.INTEGER,
    data: DataTypes.JSON,
    deletedAt: DataTypes.DATE,
  },
  { underscored: true, timestamps: false },
);
Product.belongsTo(Category, { as: 'category' });
Product.hasMany(Tag, { as: 'tags' });
const model = Product as unknown as RelationModel;
const policy: FieldPolicy = {
  ...resolvePolicy(Product, { hidden: ['cost'] }, DEFAULT_CONFIG),
  relations: resolveRelations(Product, { category: { hidden: ['secret'] }, tags: {} }),
};

const settings = (aggregate: AggregateDeclaration = true): AggregateSettings => ({
  policy,
  termKey: 'term',
  termFields: [],
  config: DEFAULT_CONFIG,
  aggregate: resolveAggregatePolicy(Product, aggregate),
});

const plan = (request: AggregateRequest, declared?: AggregateDeclaration) =>
  planAggregate(model, request, settings(declared));
const failures = (request: AggregateRequest, declared?: AggregateDeclaration) => {
  const planned = plan(request, declared);
  assert.ok(E.isLeft(planned), JSON.stringify(planned));
  return planned.left.map((f) => `${f.field} ${f.error}`);
};

describe('planAggregate', () => {
  it("returns the issue's example as a plan: a count, a sum and a group", () => {
    const planned = plan({ aggregate: { count: '*', sum: 'price' }, groupBy: 'status' });
    assert.deepEqual(
      planned,
      E.right({
        count: true,
        measures: [{ measure: 'sum', attribute: 'price' }],
        groupBy: [{ key: 'status', attribute: 'status', kind: 'string' }],
        filter: { conditions: [], term: null, order: [], page: null, trashed: false },
        maxGroups: 1000,
      }),
    );
  });

  it('reads comma lists and repeated parameters, resolves column names, and drops repeats', () => {
    const planned = plan({ aggregate: { avg: ['price, stock', 'price'], max: 'stock' }, groupBy: 'status,status' });
    assert.ok(E.isRight(planned));
    assert.deepEqual(planned.right.measures, [
      { measure: 'avg', attribute: 'price' },
      { measure: 'avg', attribute: 'stock' },
      { measure: 'max', attribute: 'stock' },
    ]);
    assert.equal(planned.right.groupBy.length, 1);
  });

  it('groups by a belongs-to path under its flat key', () => {
    const planned = plan({ aggregate: { count: '*' }, groupBy: 'category.name' });
    assert.ok(E.isRight(planned));
    assert.deepEqual(planned.right.groupBy, [
      { key: 'category.name', attribute: 'name', relation: ['category'], kind: 'string' },
    ]);
  });

  it('reads filters as search does, a filter on the deleted-at column included', () => {
    const planned = plan({
      aggregate: { count: '*' },
      filter: { $or: [{ price: { lt: '5' } }, { deletedAt: { nn: '1' } }] },
    });
    assert.ok(E.isRight(planned));
    assert.equal(planned.right.filter.groups?.length, 1);
    assert.equal(planned.right.filter.trashed, true);
  });

  it('fails naming the parameter: unknown, hidden and non-numeric columns, with the nearest allowed name', () => {
    const planned = plan({ aggregate: { sum: 'prise' } });
    assert.ok(E.isLeft(planned));
    assert.match(planned.left[0]!.message, /did you mean 'price'/);
    assert.deepEqual(failures({ aggregate: { max: 'cost' } }), ['aggregate.max columnNotFound']);
    const hidden = plan({ aggregate: { max: 'cos' } });
    assert.ok(E.isLeft(hidden) && !hidden.left[0]!.message.includes('cost'));
    assert.deepEqual(failures({ aggregate: { avg: 'name' } }), ['aggregate.avg invalidValue']);
    assert.deepEqual(failures({ groupBy: 'colour' }), ['groupBy columnNotFound']);
    assert.deepEqual(failures({ groupBy: 'data' }), ['groupBy invalidValue']);
    assert.deepEqual(failures({ groupBy: 'category.secret' }), ['groupBy columnNotFound']);
    assert.deepEqual(failures({ groupBy: 'tags.title' }), ['groupBy invalidValue']);
    assert.deepEqual(failures({ aggregate: { count: 'id' } }), ['aggregate.count invalidValue']);
    assert.deepEqual(failures({ aggregate: { mean: 'price' } }), ['aggregate.mean invalidValue']);
    assert.deepEqual(failures({ aggregate: 'count' }), ['aggregate invalidValue']);
    assert.deepEqual(failures({ aggregate: { sum: '' } }), ['aggregate.sum invalidValue']);
    assert.deepEqual(failures({}), ['aggregate required']);
    assert.deepEqual(failures({ aggregate: { count: '*' }, sort: 'name' } as AggregateRequest), [
      'sort unknownParameter',
    ]);
  });

  it('refuses a group whose key a measure takes in each row', () => {
    const Counted = sequelize.define('AgCounted', { count: DataTypes.INTEGER }, { timestamps: false });
    const counted = { ...settings(), policy: resolvePolicy(Counted, {}, DEFAULT_CONFIG) };
    const planned = planAggregate(
      Counted as unknown as RelationModel,
      { aggregate: { count: '*' }, groupBy: 'count' },
      { ...counted, aggregate: resolveAggregatePolicy(Counted, true) },
    );
    assert.ok(E.isLeft(planned));
    assert.equal(planned.left[0]!.field, 'groupBy');
  });

  it('keeps to an object declaration, a list left out keeping its default', () => {
    const declared = { groupBy: ['status', 'category.name'], sum: ['price'], avg: [] };
    assert.ok(E.isRight(plan({ groupBy: 'category.name', aggregate: { sum: 'price', max: 'stock' } }, declared)));
    assert.deepEqual(failures({ groupBy: 'name' }, declared), ['groupBy invalidValue']);
    assert.deepEqual(failures({ aggregate: { sum: 'stock' } }, declared), ['aggregate.sum invalidValue']);
    assert.deepEqual(failures({ aggregate: { avg: 'price' } }, declared), ['aggregate.avg invalidValue']);
  });

  describe('laws', () => {
    const names = ['name', 'status', 'price', 'stock', 'cost', 'data', 'nope', 'category.name', 'tags.title', 'prise'];
    const requestArb = fc.record(
      {
        aggregate: fc.dictionary(
          fc.constantFrom('count', 'sum', 'avg', 'min', 'max', 'mean'),
          fc.oneof(
            fc.constant('*'),
            fc.subarray(names).map((list) => list.join(',')),
          ),
        ),
        groupBy: fc.subarray(names).map((list) => list.join(',')),
      },
      { requiredKeys: [] },
    );

    it('never throws, and every failure names aggregate, a measure, groupBy or a filter', () => {
      fc.assert(
        fc.property(requestArb, (request) => {
          const planned = plan(request);
          if (E.isLeft(planned))
            for (const failure of planned.left) assert.match(failure.field ?? '', /^(aggregate(\.\w+)?|groupBy)$/);
        }),
      );
    });

    it('plans only filterable numeric measures and filterable, non-JSON, singular groups, never a hidden one', () => {
      fc.assert(
        fc.property(requestArb, (request) => {
          const planned = plan(request);
          if (E.isLeft(planned)) return;
          for (const { attribute } of planned.right.measures) assert.ok(['price', 'stock'].includes(attribute));
          for (const group of planned.right.groupBy)
            assert.ok(['name', 'status', 'price', 'stock', 'category.name'].includes(group.key), group.key);
        }),
      );
    });

    it('turns any database value of a measure into a JSON number or null, and keeps its value', () => {
      fc.assert(
        fc.property(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })), (n) => {
          assert.equal(measureValue(n), n);
          // As the reply's JSON has it: a database's text of -0 is "0".
          assert.equal(JSON.stringify(measureValue(String(n))), JSON.stringify(n));
        }),
      );
      assert.equal(measureValue(null), null);
      assert.equal(measureValue(12n), 12);
    });
  });
});

describe('aggregateRows', () => {
  it('returns records with group keys, count and measures as JSON numbers', () => {
    const planned = plan({ aggregate: { count: '*', sum: 'price', avg: 'stock' }, groupBy: 'status,category.name' });
    assert.ok(E.isRight(planned));
    assert.deepEqual(aggregateRows(planned.right, [{ g0: 'active', g1: null, n: '3', m0: '120.00', m1: '2.5000' }]), [
      { status: 'active', 'category.name': null, count: 3, sum: { price: 120 }, avg: { stock: 2.5 } },
    ]);
  });
});

describe('groupValue', () => {
  it('returns JSON values by kind on every dialect', () => {
    assert.equal(groupValue('boolean', 1), true);
    assert.equal(groupValue('boolean', 0), false);
    assert.equal(groupValue('integer', '42'), 42);
    assert.equal(groupValue('date', '2024-05-01 10:00:00.000 +00:00'), '2024-05-01T10:00:00.000Z');
    assert.equal(groupValue('date', new Date('2024-05-01T10:00:00Z')), '2024-05-01T10:00:00.000Z');
    assert.equal(groupValue('string', null), null);
  });
});

describe('aggregateDeclarationProblems', () => {
  it('returns a sentence per unknown, hidden or non-numeric name, and none for paths or true', () => {
    assert.deepEqual(aggregateDeclarationProblems(Product, true, policy), []);
    assert.deepEqual(aggregateDeclarationProblems(Product, { groupBy: ['status', 'category.name'] }, policy), []);
    assert.equal(aggregateDeclarationProblems(Product, { sum: ['name', 'cost'], groupBy: ['nope'] }, policy).length, 3);
    assert.match(aggregateDeclarationProblems(Product, { count: [] } as never, policy)[0]!, /no list "count"/);
  });
});
