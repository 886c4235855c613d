import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { OPERATORS, parseFilters } from '../../lib/core/filter-parser.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Product = sequelize.define('Product', {
  id: { type: DataTypes.INTEGER, primaryKey: true },
  name: DataTypes.STRING(20),
  price: DataTypes.DECIMAL(10, 2),
  active: DataTypes.BOOLEAN,
  tags: DataTypes.JSON,
  secret: DataTypes.STRING,
});
const settings = { policy: resolvePolicy(Product, { hidden: ['secret'] }, DEFAULT_CONFIG), termKey: 'term', termFields: ['name'] };

describe('parseFilters', () => {
  it('returns typed conditions, a bare value meaning eq', () => {
    const parsed = parseFilters(Product, { price: { gte: '10', btw: '1,2' }, active: 'true', name: { in: 'a,b' } }, settings);
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.conditions, [
      { attribute: 'price', column: 'price', op: 'gte', values: [10] },
      { attribute: 'price', column: 'price', op: 'btw', values: [1, 2] },
      { attribute: 'active', column: 'active', op: 'eq', values: [true] },
      { attribute: 'name', column: 'name', op: 'in', values: ['a', 'b'] },
    ]);
  });

  it('returns the term search over the term fields, marking those that do not hold text', () => {
    assert.deepEqual(parseFilters(Product, { term: 'pho' }, settings).term, { columns: [{ column: 'name', isText: true }], text: 'pho' });
    const numeric = { ...settings, termFields: ['name', 'price'] };
    assert.deepEqual(parseFilters(Product, { term: '12' }, numeric).term?.columns, [
      { column: 'name', isText: true },
      { column: 'price', isText: false },
    ]);
  });

  it('returns the JSON value for json, raw text when it is not JSON', () => {
    const { conditions } = parseFilters(Product, { tags: { json: '["a"]' } }, settings);
    assert.deepEqual(conditions[0]?.values, [['a']]);
    assert.deepEqual(parseFilters(Product, { tags: { json: 'red' } }, settings).conditions[0]?.values, ['red']);
  });

  it('returns one failure per problem, naming the column as written', () => {
    const { failures } = parseFilters(Product, { colour: 'x', secret: 'x', name: { regex: 'x' }, price: { like: '1', gt: 'x' }, tags: 'x', active: 'maybe' }, settings);
    assert.deepEqual(failures.map((f) => [f.field, f.error]), [
      ['colour', 'columnNotFound'],
      ['secret', 'columnNotFound'],
      ['name', 'invalidOperator'],
      ['price', 'invalidOperator'],
      ['price', 'invalidValue'],
      ['tags', 'invalidOperator'],
      ['active', 'invalidValue'],
    ]);
  });

  it('returns a failure for a filter that is not an object, and for NUL characters', () => {
    assert.equal(parseFilters(Product, 'oops', settings).failures[0]?.field, 'filter');
    assert.equal(parseFilters(Product, { name: 'a\u0000b' }, settings).failures[0]?.error, 'invalidValue');
  });

  it('never throws, and every condition uses a known operator on a filterable attribute', () => {
    const spec = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.array(fc.string()))));
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.constantFrom('name', 'price', 'active', 'tags', 'secret', 'term'), fc.string()), spec), (filter) => {
        const parsed = parseFilters(Product, filter, settings);
        for (const c of parsed.conditions) {
          assert.ok(Object.hasOwn(OPERATORS, c.op));
          assert.ok(settings.policy.filterable.has(c.attribute));
        }
      }),
    );
  });
});
