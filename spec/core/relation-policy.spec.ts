import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import type { RelationModel } from '../../lib/core/relation-paths.js';
import {
  checkRelations,
  parseInclude,
  resolveRelations,
  targetOf,
  visibleRecord,
} from '../../lib/core/relation-policy.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const id = { type: DataTypes.INTEGER, primaryKey: true };
const Customer = sequelize.define('Customer', { id, email: DataTypes.STRING, secret: DataTypes.STRING });
const Order = sequelize.define('Order', { id, total: DataTypes.INTEGER, notes: DataTypes.JSON });
const Product = sequelize.define('Product', { id, name: DataTypes.STRING, secret: DataTypes.STRING });
Product.belongsTo(Order, { as: 'order' });
Order.belongsTo(Customer, { as: 'customer' });
const model = Product as unknown as RelationModel;

describe('resolveRelations', () => {
  it('returns visible, filterable and sortable sets without hidden names, JSON never sortable', () => {
    const policies = resolveRelations(model, {
      order: { include: true },
      'order.customer': { hidden: ['secret'], filterable: ['email', 'secret'] },
    });
    assert.deepEqual([...policies['order']!.sortable], ['id', 'total', 'createdAt', 'updatedAt', 'customerId']);
    assert.equal(policies['order']!.include, true);
    assert.deepEqual([...policies['order.customer']!.filterable], ['email']);
    assert.equal(policies['order.customer']!.visible.has('secret'), false);
    assert.equal(policies['order.customer']!.include, false);
  });
  it('returns nothing for paths that are not associations', () => {
    assert.deepEqual(resolveRelations(model, { nope: {} }), {});
    assert.equal(targetOf(model, 'order.customer'), Customer);
  });
});

describe('checkRelations', () => {
  it('returns sentences with the nearest name for unknown associations and attributes', () => {
    assert.deepEqual(checkRelations(model, { ordr: {} }), [
      "relations names 'ordr': 'ordr' is not an association of Product; did you mean 'order'?",
    ]);
    assert.deepEqual(checkRelations(model, { order: { hidden: ['totl'] } }), [
      "relations.order.hidden names 'totl', which is not an attribute or column of Order; did you mean 'total'?",
    ]);
    assert.deepEqual(checkRelations(model, { 'order.customer': {} }), [
      "relations names 'order.customer' but not 'order', which it goes through",
    ]);
    assert.deepEqual(checkRelations(model, { 'a.b.c.d': {} }), [
      "relations names 'a.b.c.d', which walks more than 3 associations",
    ]);
    assert.deepEqual(checkRelations(model, { order: {}, 'order.customer': { sortable: ['email'] } }), []);
  });
});

describe('parseInclude', () => {
  const policies = resolveRelations(model, { order: { include: true }, 'order.customer': { include: true } });
  it('returns the paths asked for with the shorter paths they go through, without repeats', () => {
    assert.deepEqual(parseInclude('order.customer, order', policies), E.right(['order', 'order.customer']));
    assert.deepEqual(parseInclude(undefined, policies), E.right([]));
  });
  it('returns an invalidValue item for paths that may not be included', () => {
    const closed = resolveRelations(model, { order: {}, 'order.customer': { include: true } });
    assert.ok(E.isLeft(parseInclude('order.customer', closed)));
    assert.ok(E.isLeft(parseInclude('nope', policies)));
    assert.ok(E.isLeft(parseInclude({ a: 1 }, policies)));
  });
  it('never throws, and every path it returns is includable (law)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string()), fc.anything()), (raw) => {
        const parsed = parseInclude(raw, policies);
        return E.isLeft(parsed) || parsed.right.every((path) => policies[path]?.include === true);
      }),
    );
  });
});

describe('visibleRecord', () => {
  it('returns the record without hidden fields at every declared level, undeclared associations as they are', () => {
    const policy = {
      ...resolvePolicy(Product, { hidden: ['secret'] }, DEFAULT_CONFIG),
      relations: resolveRelations(model, { order: {}, 'order.customer': { hidden: ['secret'] } }),
    };
    const record = {
      id: 1,
      name: 'A',
      secret: 'x',
      order: { id: 2, total: 3, customer: { id: 4, email: 'e', secret: 'y' } },
      extra: { secret: 'kept' },
    };
    assert.deepEqual(visibleRecord(model, record, policy), {
      id: 1,
      name: 'A',
      order: { id: 2, total: 3, customer: { id: 4, email: 'e' } },
      extra: { secret: 'kept' },
    });
  });
});
