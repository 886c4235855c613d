import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planBulkInsert, rowOrder, type InsertFacts } from '../../lib/core/insert-plan.js';
import type { RowShape } from '../../lib/core/row-shape.js';

const raw: RowShape = { path: 'raw', attributes: ['id', 'name', 'createdAt'], converted: [] };
const facts: InsertFacts = {
  dialect: 'postgres',
  shape: raw,
  primaryKey: ['id'],
  bulkHooks: false,
  defaultScope: false,
  escapes: true,
};

describe('planBulkInsert', () => {
  it('takes the statement path with the raw shape of a plain model on PostgreSQL and SQLite', () => {
    assert.deepEqual(planBulkInsert(facts), raw);
    assert.deepEqual(planBulkInsert({ ...facts, dialect: 'sqlite' }), raw);
  });

  it('keeps bulkCreate, saying why, for anything the statement path does not answer as it does', () => {
    const reasons = [
      planBulkInsert({ ...facts, dialect: 'mariadb' }),
      planBulkInsert({ ...facts, shape: { path: 'instance', reason: 'the model has getters' } }),
      planBulkInsert({ ...facts, primaryKey: ['a', 'b'] }),
      planBulkInsert({ ...facts, bulkHooks: true }),
      planBulkInsert({ ...facts, defaultScope: true }),
      planBulkInsert({ ...facts, escapes: false }),
    ].map((plan) => (plan.path === 'instances' ? plan.reason : plan.path));
    assert.deepEqual(reasons, [
      'the statement path is not checked on mariadb',
      'the model has getters',
      'the primary key is not one column',
      'the model has bulk create hooks',
      'the model has a default scope',
      "the query generator's escape is missing",
    ]);
  });

  it('takes the statement path exactly when every fact allows it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('postgres', 'sqlite', 'mariadb', 'mysql', 'mssql'),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (dialect, rawShape, keys, bulkHooks, defaultScope, escapes) => {
          const plan = planBulkInsert({
            dialect,
            shape: rawShape ? raw : { path: 'instance', reason: 'x' },
            primaryKey: ['a', 'b', 'c'].slice(0, keys),
            bulkHooks,
            defaultScope,
            escapes,
          });
          const allowed =
            (dialect === 'postgres' || dialect === 'sqlite') &&
            rawShape &&
            keys === 1 &&
            !bulkHooks &&
            !defaultScope &&
            escapes;
          assert.equal(plan.path === 'raw', allowed);
        },
      ),
    );
  });
});

describe('rowOrder', () => {
  it('orders by the keys the items carry, else by the generated key', () => {
    assert.equal(rowOrder(['b', 'a'], false), 'given');
    assert.equal(rowOrder([null, undefined], true), 'ascending');
    assert.equal(rowOrder([null, null], false), undefined);
    assert.equal(rowOrder([1, 1], true), undefined);
    assert.equal(rowOrder([1, null], true), undefined);
  });

  it('is given exactly for distinct keys on every item', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 5 }))), fc.boolean(), (keys, auto) => {
        const distinct = keys.every((k) => k !== null) && new Set(keys).size === keys.length;
        assert.equal(rowOrder(keys, auto) === 'given', distinct);
      }),
    );
  });
});
