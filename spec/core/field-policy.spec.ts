import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { allowedColumn, resolvePolicy } from '../../lib/core/field-policy.js';
import { clientColumnArb } from '../arbitraries/model-arb.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const User = sequelize.define(
  'User',
  {
    id: { type: DataTypes.UUID, primaryKey: true },
    email: DataTypes.STRING,
    password: DataTypes.STRING,
    profile: DataTypes.JSON,
    deletedAt: DataTypes.DATE,
    deletedBy: DataTypes.STRING,
  },
  { underscored: true },
);
const sorted = (set: ReadonlySet<string>) => [...set].sort();

describe('resolvePolicy', () => {
  it('returns defaults: fillable without key, timestamps and soft-delete columns; JSON never sortable', () => {
    const policy = resolvePolicy(User, {}, DEFAULT_CONFIG);
    assert.deepEqual(sorted(policy.fillable), ['email', 'password', 'profile']);
    assert.deepEqual(sorted(policy.visible), ['createdAt', 'deletedAt', 'deletedBy', 'email', 'id', 'password', 'profile', 'updatedAt']);
    assert.ok(!policy.sortable.has('profile') && policy.filterable.has('profile'));
  });

  it('returns hidden attributes as neither visible, sortable nor filterable, still fillable', () => {
    const policy = resolvePolicy(User, { hidden: ['password'] }, DEFAULT_CONFIG);
    for (const set of [policy.visible, policy.sortable, policy.filterable]) assert.ok(!set.has('password'));
    assert.ok(policy.fillable.has('password'));
  });

  it('returns declared lists by attribute or column name, dropping unknown names and hidden ones', () => {
    const policy = resolvePolicy(User, { hidden: ['password'], fillable: ['email', 'nope'], sortable: ['created_at', 'password'], filterable: ['email'] }, DEFAULT_CONFIG);
    assert.deepEqual(sorted(policy.fillable), ['email']);
    assert.deepEqual(sorted(policy.sortable), ['createdAt']);
    assert.deepEqual(sorted(policy.filterable), ['email']);
  });
});

describe('allowedColumn', () => {
  const policy = resolvePolicy(User, { hidden: ['password'] }, DEFAULT_CONFIG);

  it('returns the attribute for its name, its column, or its snake_case form', () => {
    assert.deepEqual(allowedColumn(User, policy.sortable, 'createdAt'), { attribute: 'createdAt', column: 'created_at' });
    assert.deepEqual(allowedColumn(User, policy.sortable, 'created_at'), { attribute: 'createdAt', column: 'created_at' });
  });

  it('returns undefined for hidden, unknown and hostile names', () => {
    for (const name of ['password', 'colour', 'email; DROP TABLE users', '__proto__']) assert.equal(allowedColumn(User, policy.filterable, name), undefined);
  });

  it('never returns a column outside the allowed set', () => {
    fc.assert(
      fc.property(clientColumnArb, (name) => {
        const found = allowedColumn(User, policy.filterable, name);
        assert.ok(found === undefined || policy.filterable.has(found.attribute));
      }),
    );
  });
});
