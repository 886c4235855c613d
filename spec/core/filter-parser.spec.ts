import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { OPERATORS, parseFilters } from '../../lib/core/filter-parser.js';
import type { Operator } from '../../lib/types.js';
import { blankArb, paddingArb } from '../arbitraries/filter-value-arb.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Product = sequelize.define('Product', {
  id: { type: DataTypes.INTEGER, primaryKey: true },
  name: DataTypes.STRING(20),
  price: DataTypes.DECIMAL(10, 2),
  active: DataTypes.BOOLEAN,
  tags: DataTypes.JSON,
  secret: DataTypes.STRING,
  category_id: DataTypes.INTEGER,
  seenAt: DataTypes.DATE,
  day: DataTypes.DATEONLY,
});
const settings = {
  policy: resolvePolicy(Product, { hidden: ['secret'] }, DEFAULT_CONFIG),
  termKey: 'term',
  termFields: ['name'],
};

describe('parseFilters', () => {
  it('returns typed conditions, a bare value meaning eq', () => {
    const parsed = parseFilters(
      Product,
      { price: { gte: '10', btw: '1,2' }, active: 'true', name: { in: 'a,b' } },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.conditions, [
      { attribute: 'price', column: 'price', op: 'gte', values: [10] },
      { attribute: 'price', column: 'price', op: 'btw', values: [1, 2] },
      { attribute: 'active', column: 'active', op: 'eq', values: [true] },
      { attribute: 'name', column: 'name', op: 'in', values: ['a', 'b'] },
    ]);
  });

  it('returns the term search over the term fields, marking those that do not hold text', () => {
    assert.deepEqual(parseFilters(Product, { term: 'pho' }, settings).term, {
      columns: [{ column: 'name', isText: true }],
      text: 'pho',
    });
    const numeric = { ...settings, termFields: ['name', 'price'] };
    assert.deepEqual(parseFilters(Product, { term: '12' }, numeric).term?.columns, [
      { column: 'name', isText: true },
      { column: 'price', isText: false },
    ]);
  });

  it('returns null (IS NULL) on a column of any kind, json included, reading no value', () => {
    const { conditions, failures } = parseFilters(
      Product,
      { tags: { null: '1' }, price: { null: '' }, seenAt: { null: 'x' } },
      settings,
    );
    assert.deepEqual(failures, []);
    assert.deepEqual(
      conditions.map((c) => [c.attribute, c.op, c.values]),
      [
        ['tags', 'null', []],
        ['price', 'null', []],
        ['seenAt', 'null', []],
      ],
    );
  });

  it('returns the JSON value for json, raw text when it is not JSON', () => {
    const { conditions } = parseFilters(Product, { tags: { json: '["a"]' } }, settings);
    assert.deepEqual(conditions[0]?.values, [['a']]);
    assert.deepEqual(parseFilters(Product, { tags: { json: 'red' } }, settings).conditions[0]?.values, ['red']);
  });

  it('returns one failure per problem, naming the column as written', () => {
    const { failures } = parseFilters(
      Product,
      { colour: 'x', secret: 'x', name: { regex: 'x' }, price: { like: '1', gt: 'x' }, tags: 'x', active: 'maybe' },
      settings,
    );
    assert.deepEqual(
      failures.map((f) => [f.field, f.error]),
      [
        ['colour', 'columnNotFound'],
        ['secret', 'columnNotFound'],
        ['name', 'invalidOperator'],
        ['price', 'invalidOperator'],
        ['price', 'invalidValue'],
        ['tags', 'invalidOperator'],
        ['active', 'invalidValue'],
      ],
    );
  });

  it('returns a failure for a filter that is not an object, and for NUL characters', () => {
    assert.equal(parseFilters(Product, 'oops', settings).failures[0]?.field, 'filter');
    assert.equal(parseFilters(Product, { name: 'a\u0000b' }, settings).failures[0]?.error, 'invalidValue');
  });

  it('returns the attribute for a camelCase name of an underscored attribute, as sort resolves it', () => {
    assert.deepEqual(parseFilters(Product, { categoryId: '5' }, settings).conditions, [
      { attribute: 'category_id', column: 'category_id', op: 'eq', values: [5] },
    ]);
  });

  it('returns trimmed values, and no condition for an empty or blank one (nn and null aside)', () => {
    const parsed = parseFilters(
      Product,
      {
        name: { like: '  test  ', eq: ' ', in: ' a ,, b,' },
        price: { gt: '' },
        day: { nn: '', null: ' ' },
        tags: { json: ' ' },
      },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.conditions, [
      { attribute: 'name', column: 'name', op: 'like', values: ['test'] },
      { attribute: 'name', column: 'name', op: 'in', values: ['a', 'b'] },
      { attribute: 'day', column: 'day', op: 'nn', values: [] },
      { attribute: 'day', column: 'day', op: 'null', values: [] },
    ]);
    assert.deepEqual(parseFilters(Product, { term: '  pho ' }, settings).term?.text, 'pho');
    assert.equal(parseFilters(Product, { term: '   ' }, { ...settings, termFields: [] }).term, null);
  });

  it('returns gte or lte for a btw with one side empty, and nothing when both are', () => {
    assert.deepEqual(parseFilters(Product, { price: { btw: '5, ' } }, settings).conditions, [
      { attribute: 'price', column: 'price', op: 'gte', values: [5] },
    ]);
    assert.deepEqual(parseFilters(Product, { price: { btw: ',9' } }, settings).conditions, [
      { attribute: 'price', column: 'price', op: 'lte', values: [9] },
    ]);
    assert.deepEqual(parseFilters(Product, { price: { btw: ' , ' } }, settings), {
      conditions: [],
      term: null,
      failures: [],
    });
    assert.equal(parseFilters(Product, { price: { btw: '5' } }, settings).failures[0]?.error, 'invalidValue');
  });

  it('returns date bounds: a date-only or month value covers all of it, in the given time zone', () => {
    const iso = (values: readonly unknown[]) => values.map((v) => (v instanceof Date ? v.toISOString() : v));
    const { conditions } = parseFilters(
      Product,
      { seenAt: { btw: '2024-01,2024-03', lte: '2024-12-31' }, day: { btw: '2024-01,2024-03' } },
      { ...settings, timezone: '+02:00' },
    );
    assert.deepEqual(
      conditions.map((c) => [c.op, iso(c.values)]),
      [
        ['btw', ['2023-12-31T22:00:00.000Z', '2024-03-31T21:59:59.999Z']],
        ['lte', ['2024-12-31T21:59:59.999Z']],
        ['btw', ['2024-01-01', '2024-03-31']],
      ],
    );
  });

  it('returns invalidValue naming the field for a date that does not exist', () => {
    assert.deepEqual(parseFilters(Product, { seenAt: { gte: '2024-02-30' } }, settings).failures, [
      { field: 'seenAt', error: 'invalidValue', message: 'seenAt must be a date that exists: 2024-02 has 29 days' },
    ]);
  });

  it('an empty or blank value never adds a condition', () => {
    const ops = (Object.keys(OPERATORS) as Operator[]).filter((op) => OPERATORS[op] !== 'none');
    fc.assert(
      fc.property(
        fc.constantFrom('name', 'price', 'active', 'tags', 'category_id', 'seenAt', 'day'),
        fc.constantFrom(...ops),
        blankArb,
        blankArb,
        (column, op, blank, other) => {
          const value = OPERATORS[op] === 'one' ? blank : `${blank},${other}`;
          const parsed = parseFilters(Product, { [column]: { [op]: value }, term: blank }, settings);
          assert.deepEqual(parsed.conditions, []);
          assert.equal(parsed.term, null);
          assert.ok(parsed.failures.every((f) => f.error === 'invalidOperator'));
        },
      ),
    );
  });

  it('trimming is idempotent: a padded value parses as the trimmed one, and trimming twice changes nothing', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('5', '2024-12-31', '2024-03', 'true', '1,2', 'a, b', '["a"]'),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('name', 'price', 'active', 'tags', 'seenAt', 'day'),
        fc.constantFrom(...(Object.keys(OPERATORS) as Operator[])),
        value,
        paddingArb,
        (column, op, text, [left, right]) => {
          const once = parseFilters(Product, { [column]: { [op]: text.trim() } }, settings);
          const padded = parseFilters(Product, { [column]: { [op]: `${left}${text}${right}` } }, settings);
          const twice = parseFilters(Product, { [column]: { [op]: text.trim().trim() } }, settings);
          assert.deepEqual(padded.conditions, once.conditions);
          assert.deepEqual(twice, once);
          assert.deepEqual(
            padded.failures.map((f) => f.error),
            once.failures.map((f) => f.error),
          );
        },
      ),
    );
  });

  it('never throws, and every condition uses a known operator on a filterable attribute', () => {
    const spec = fc.oneof(
      fc.string(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.array(fc.string()))),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(fc.constantFrom('name', 'price', 'active', 'tags', 'secret', 'term'), fc.string()),
          spec,
        ),
        (filter) => {
          const parsed = parseFilters(Product, filter, settings);
          for (const c of parsed.conditions) {
            assert.ok(Object.hasOwn(OPERATORS, c.op));
            assert.ok(settings.policy.filterable.has(c.attribute));
          }
        },
      ),
    );
  });
});
