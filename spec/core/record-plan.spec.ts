import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import {
  NOT_NULL,
  fillableData,
  fillableFields,
  lookupFor,
  payloadOf,
  visibleFields,
} from '../../lib/core/record-plan.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Item = sequelize.define(
  'Item',
  {
    id: { type: DataTypes.UUID, primaryKey: true },
    code: DataTypes.INTEGER,
    on: DataTypes.BOOLEAN,
    name: DataTypes.STRING,
    secret: DataTypes.STRING,
    deletedAt: DataTypes.DATE,
  },
  { underscored: true },
);
const policy = resolvePolicy(Item, { hidden: ['secret'] }, DEFAULT_CONFIG);
const id = '0b6f1a36-8d3c-4c5e-9d43-6d0f3e2b1a7c';

describe('lookupFor', () => {
  it('returns the where clause for each scope', () => {
    assert.deepEqual(lookupFor(Item, 'id', id, 'active', 'deletedAt'), {
      where: { id, deletedAt: null },
      paranoid: true,
    });
    assert.deepEqual(lookupFor(Item, 'id', id, 'trashed', 'deletedAt'), {
      where: { id, deletedAt: NOT_NULL },
      paranoid: false,
    });
    assert.deepEqual(lookupFor(Item, 'id', id, 'any', 'deletedAt'), { where: { id }, paranoid: false });
  });

  it('returns the primary key when the find field is not an attribute, and the find field otherwise', () => {
    assert.deepEqual(lookupFor(Item, 'external_id', id, 'any', undefined)?.where, { id });
    assert.deepEqual(lookupFor(Item, 'code', '12', 'any', undefined)?.where, { code: 12 });
  });

  it('returns undefined for an id that cannot be a value of the find field', () => {
    assert.equal(lookupFor(Item, 'code', 'abc', 'any', undefined), undefined);
    assert.equal(lookupFor(Item, 'id', 'not-a-uuid', 'any', undefined), undefined);
  });
});

describe('fillableData', () => {
  it('returns the fillable fields by attribute name and drops the rest', () => {
    assert.deepEqual(
      fillableData(Item, { name: 'n', code: '3', id, created_at: 'x', deleted_at: 'y', other: 1 }, policy),
      E.right({ name: 'n', code: 3 }),
    );
  });

  it('returns emptyPayload for a body that is not a non-empty object', () => {
    for (const body of [undefined, null, {}, [], 'x', 3]) {
      assert.deepEqual(
        E.isLeft(fillableData(Item, body, policy)) &&
          (fillableData(Item, body, policy) as E.Left<{ error: string }[]>).left[0]?.error,
        'emptyPayload',
      );
    }
  });

  it('returns a type failure per bad value, naming the key and the value', () => {
    assert.deepEqual(
      fillableData(Item, { code: 'many', name: 5 }, policy),
      E.left([
        { field: 'code', error: 'type', value: 'many', message: 'code must be an integer' },
        { field: 'name', error: 'type', value: 5, message: 'name must be a string' },
      ]),
    );
  });
});

describe('fillableData of a form body', () => {
  it('returns booleans from the texts true, false, 1 and 0 for a form, and a type failure for them in JSON', () => {
    assert.deepEqual(fillableData(Item, { on: 'false', code: '3' }, policy, true), E.right({ on: false, code: 3 }));
    assert.deepEqual(
      fillableData(Item, { on: 'false' }, policy),
      E.left([{ field: 'on', error: 'type', value: 'false', message: 'on must be true or false' }]),
    );
  });
});

describe('payloadOf and fillableFields', () => {
  it('returns the body when it is a non-empty object, emptyPayload otherwise', () => {
    assert.deepEqual(payloadOf({ a: 1 }), E.right({ a: 1 }));
    for (const body of [undefined, null, {}, [], 'x', 3])
      assert.deepEqual(
        E.isLeft(payloadOf(body)) && (payloadOf(body) as E.Left<{ error: string }>).left.error,
        'emptyPayload',
      );
  });

  it('returns an empty object for fields none of which is fillable', () => {
    assert.deepEqual(fillableFields(Item, { id, other: 1 }, policy), E.right({}));
  });
});

describe('visibleFields', () => {
  it('returns the serialized record without hidden attributes, keeping associations', () => {
    assert.deepEqual(visibleFields(Item, { id, secret: 's', name: 'n', category: { name: 'c' } }, policy), {
      id,
      name: 'n',
      category: { name: 'c' },
    });
  });
});
