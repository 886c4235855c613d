import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import * as E from 'fp-ts/lib/Either.js';
import { allowedColumn, resolvePolicy } from '../../lib/core/field-policy.js';
import { parseFilters } from '../../lib/core/filter-parser.js';
import { planSearch } from '../../lib/core/search-plan.js';
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
    assert.deepEqual(sorted(policy.visible), [
      'createdAt',
      'deletedAt',
      'deletedBy',
      'email',
      'id',
      'password',
      'profile',
      'updatedAt',
    ]);
    assert.ok(!policy.sortable.has('profile') && policy.filterable.has('profile'));
  });

  it('returns hidden attributes as neither visible, sortable nor filterable, still fillable', () => {
    const policy = resolvePolicy(User, { hidden: ['password'] }, DEFAULT_CONFIG);
    for (const set of [policy.visible, policy.sortable, policy.filterable]) assert.ok(!set.has('password'));
    assert.ok(policy.fillable.has('password'));
  });

  it('returns declared lists by attribute or column name, dropping unknown names and hidden ones', () => {
    const policy = resolvePolicy(
      User,
      {
        hidden: ['password'],
        fillable: ['email', 'nope'],
        sortable: ['created_at', 'password'],
        filterable: ['email'],
      },
      DEFAULT_CONFIG,
    );
    assert.deepEqual(sorted(policy.fillable), ['email']);
    assert.deepEqual(sorted(policy.sortable), ['createdAt']);
    assert.deepEqual(sorted(policy.filterable), ['email']);
  });
});

describe('allowedColumn', () => {
  const policy = resolvePolicy(User, { hidden: ['password'] }, DEFAULT_CONFIG);

  it('returns the attribute for its name, its column, or its snake_case form', () => {
    assert.deepEqual(allowedColumn(User, policy.sortable, 'createdAt'), {
      attribute: 'createdAt',
      column: 'created_at',
    });
    assert.deepEqual(allowedColumn(User, policy.sortable, 'created_at'), {
      attribute: 'createdAt',
      column: 'created_at',
    });
  });

  it('returns undefined for hidden, unknown and hostile names', () => {
    for (const name of ['password', 'colour', 'email; DROP TABLE users', '__proto__'])
      assert.equal(allowedColumn(User, policy.filterable, name), undefined);
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

describe('resolveColumn through allowedColumn', () => {
  const Order = sequelize.define('Order', {
    id: { type: DataTypes.INTEGER, primaryKey: true },
    category_id: DataTypes.INTEGER,
    placedAt: DataTypes.DATE,
    note: { type: DataTypes.STRING, field: 'order_note' },
  });
  const policy = resolvePolicy(Order, {}, DEFAULT_CONFIG);
  const settings = { policy, termKey: 'term', termFields: [], config: DEFAULT_CONFIG, paginate: true };

  it('returns the attribute by name, column, or camelCase/snake_case equivalence with either', () => {
    for (const name of ['category_id', 'categoryId', 'CategoryId'])
      assert.deepEqual(allowedColumn(Order, policy.filterable, name), {
        attribute: 'category_id',
        column: 'category_id',
      });
    for (const name of ['placedAt', 'placed_at'])
      assert.equal(allowedColumn(Order, policy.filterable, name)?.attribute, 'placedAt');
    for (const name of ['note', 'order_note', 'orderNote'])
      assert.deepEqual(allowedColumn(Order, policy.filterable, name), { attribute: 'note', column: 'order_note' });
  });

  it('returns undefined when the equivalence fits two attributes', () => {
    const Twins = sequelize.define('Twins', { fooBar: DataTypes.STRING, foo_bar: DataTypes.STRING });
    const twins = resolvePolicy(Twins, {}, DEFAULT_CONFIG);
    assert.equal(allowedColumn(Twins, twins.filterable, 'fooBar')?.attribute, 'fooBar');
    assert.equal(allowedColumn(Twins, twins.filterable, 'FooBar'), undefined);
  });

  it('sort and filter resolve the same names, and both name what the client wrote', () => {
    const variants = fc.constantFrom(
      'category_id',
      'categoryId',
      'CategoryId',
      'placedAt',
      'placed_at',
      'PlacedAt',
      'note',
      'orderNote',
      'order_note',
      'id',
      'ID',
    );
    fc.assert(
      fc.property(fc.oneof(variants, clientColumnArb), (name) => {
        const filtered = parseFilters(Order, { [name]: { nn: '1' } }, settings);
        const sorted = planSearch(Order, { sort: name }, settings);
        const sortable = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
        if (!sortable) return;
        const bySort = E.isRight(sorted) ? sorted.right.order[0]?.[0] : undefined;
        assert.equal(filtered.conditions[0]?.attribute, bySort);
        if (E.isLeft(sorted))
          assert.deepEqual(
            sorted.left.map((f) => f.field),
            filtered.failures.map((f) => f.field),
          );
      }),
    );
  });
});
