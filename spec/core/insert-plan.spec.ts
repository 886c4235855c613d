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
  it('takes the statement path with the raw shape of a plain model on PostgreSQL, SQLite and MariaDB 10.5+', () => {
    assert.deepEqual(planBulkInsert(facts), raw);
    assert.deepEqual(planBulkInsert({ ...facts, dialect: 'sqlite' }), raw);
    assert.deepEqual(planBulkInsert({ ...facts, dialect: 'mariadb', databaseVersion: '10.11.19' }), raw);
    assert.deepEqual(planBulkInsert({ ...facts, dialect: 'mariadb', databaseVersion: '11.0.2' }), raw);
    assert.deepEqual(planBulkInsert({ ...facts, dialect: 'mariadb', databaseVersion: '10.5.0' }), raw);
  });

  it('keeps bulkCreate, saying why, for anything the statement path does not answer as it does', () => {
    const reasons = [
      planBulkInsert({ ...facts, dialect: 'mysql' }),
      planBulkInsert({ ...facts, dialect: 'mariadb', databaseVersion: '10.4.32' }),
      planBulkInsert({ ...facts, dialect: 'mariadb' }),
      planBulkInsert({ ...facts, shape: { path: 'instance', reason: 'the model has getters' } }),
      planBulkInsert({ ...facts, primaryKey: ['a', 'b'] }),
      planBulkInsert({ ...facts, bulkHooks: true }),
      planBulkInsert({ ...facts, defaultScope: true }),
      planBulkInsert({ ...facts, escapes: false }),
    ].map((plan) => (plan.path === 'instances' ? plan.reason : plan.path));
    assert.deepEqual(reasons, [
      'the statement path is not checked on mysql',
      'mariadb 10.4.32 has no RETURNING',
      'mariadb (unknown) has no RETURNING',
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
        fc.constantFrom(undefined, '10.4.9', '10.5.0', '10.11.2', '11.1.0', '9.6'),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (dialect, databaseVersion, rawShape, keys, bulkHooks, defaultScope, escapes) => {
          const plan = planBulkInsert({
            dialect,
            databaseVersion,
            shape: rawShape ? raw : { path: 'instance', reason: 'x' },
            primaryKey: ['a', 'b', 'c'].slice(0, keys),
            bulkHooks,
            defaultScope,
            escapes,
          });
          const allowed =
            (dialect === 'postgres' ||
              dialect === 'sqlite' ||
              (dialect === 'mariadb' && ['10.5.0', '10.11.2', '11.1.0'].includes(databaseVersion ?? ''))) &&
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
