import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes } from 'sequelize';
import { checkBodyValue, checkFormValue, coerceQueryValue, kindOf } from '../../lib/core/attribute-kinds.js';

const attr = (type: unknown) => ({ type });

describe('kindOf', () => {
  it('returns the kind of each Sequelize type', () => {
    assert.deepEqual(
      [DataTypes.INTEGER(), DataTypes.DECIMAL(10, 2), DataTypes.BOOLEAN(), DataTypes.DATE(), DataTypes.DATEONLY(), DataTypes.UUID(), DataTypes.STRING(), DataTypes.ENUM('a'), DataTypes.JSON(), DataTypes.BLOB()].map((t) => kindOf(attr(t))),
      ['integer', 'number', 'boolean', 'date', 'dateonly', 'uuid', 'string', 'enum', 'json', 'other'],
    );
  });

  it('returns number for every floating type, whatever key Sequelize gives it', () => {
    // DataTypes.DOUBLE's key is 'DOUBLE PRECISION': a DOUBLE column was once left unchecked.
    assert.deepEqual([DataTypes.DOUBLE(), DataTypes.FLOAT(), DataTypes.REAL()].map((t) => kindOf(attr(t))), ['number', 'number', 'number']);
  });
});

describe('coerceQueryValue', () => {
  it('returns typed values for valid text', () => {
    assert.deepEqual(coerceQueryValue(attr(DataTypes.INTEGER()), '-42'), E.right(-42));
    assert.deepEqual(coerceQueryValue(attr(DataTypes.DECIMAL()), '12.50'), E.right(12.5));
    assert.deepEqual(coerceQueryValue(attr(DataTypes.BOOLEAN()), '0'), E.right(false));
    assert.deepEqual(coerceQueryValue(attr(DataTypes.DATE()), '2024-01-02T03:04:05Z'), E.right(new Date('2024-01-02T03:04:05Z')));
    assert.deepEqual(coerceQueryValue(attr(DataTypes.ENUM('s', 'm')), 'm'), E.right('m'));
  });

  it('returns a reason for text that does not fit the kind', () => {
    for (const [type, text] of [[DataTypes.INTEGER(), '1.5'], [DataTypes.DECIMAL(), '1e309'], [DataTypes.BOOLEAN(), 'yes'], [DataTypes.DATE(), 'soon'], [DataTypes.DATEONLY(), '2024-13'], [DataTypes.UUID(), 'x'], [DataTypes.ENUM('s'), 'xl'], [DataTypes.STRING(3), 'abcd'], [DataTypes.STRING(), 'a\u0000']] as const) {
      assert.ok(E.isLeft(coerceQueryValue(attr(type), text)), `${String(type)} ${text}`);
    }
  });

  it('never throws, and an integer result is always a safe integer', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = coerceQueryValue(attr(DataTypes.INTEGER()), text);
        if (E.isRight(result)) assert.ok(Number.isSafeInteger(result.right));
      }),
    );
  });
});

describe('checkBodyValue', () => {
  it('returns JSON values that fit, numeric strings for numbers, null always', () => {
    assert.deepEqual(checkBodyValue(attr(DataTypes.DECIMAL()), '3.5'), E.right(3.5));
    assert.deepEqual(checkBodyValue(attr(DataTypes.INTEGER()), 7), E.right(7));
    assert.deepEqual(checkBodyValue(attr(DataTypes.JSON()), { a: [1] }), E.right({ a: [1] }));
    assert.deepEqual(checkBodyValue(attr(DataTypes.STRING()), null), E.right(null));
  });

  it('returns a reason for values of another type', () => {
    for (const [type, value] of [[DataTypes.INTEGER(), 1.5], [DataTypes.INTEGER(), true], [DataTypes.BOOLEAN(), 'true'], [DataTypes.STRING(), 5], [DataTypes.STRING(), {}], [DataTypes.UUID(), 'x'], [DataTypes.DATE(), Number.NaN]] as const) {
      assert.ok(E.isLeft(checkBodyValue(attr(type), value)), `${String(type)} ${String(value)}`);
    }
  });
});

describe('checkBodyValue with a Date', () => {
  it('returns a valid Date for a date attribute (a schema transform may give one), a reason for an invalid one or another kind', () => {
    const when = new Date('2024-02-02T10:00:00Z');
    assert.deepEqual(checkBodyValue(attr(DataTypes.DATE()), when), E.right(when));
    assert.ok(E.isLeft(checkBodyValue(attr(DataTypes.DATE()), new Date('nope'))));
    assert.ok(E.isLeft(checkBodyValue(attr(DataTypes.STRING()), when)));
  });
});

describe('checkFormValue', () => {
  it('returns booleans for the texts a query string allows, for a boolean attribute only', () => {
    for (const [text, value] of [['true', true], ['1', true], ['false', false], ['0', false]] as const) {
      assert.deepEqual(checkFormValue(attr(DataTypes.BOOLEAN()), text), E.right(value));
    }
    assert.deepEqual(checkFormValue(attr(DataTypes.STRING()), 'true'), E.right('true'));
    assert.ok(E.isLeft(checkFormValue(attr(DataTypes.BOOLEAN()), 'yes')));
    assert.ok(E.isLeft(checkFormValue(attr(DataTypes.BOOLEAN()), ['true'])));
  });

  it('law: returns what checkBodyValue returns for every value that is not text for a boolean', () => {
    const types = [DataTypes.INTEGER(), DataTypes.DECIMAL(), DataTypes.STRING(), DataTypes.DATE(), DataTypes.JSON(), DataTypes.BOOLEAN()];
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string())), (type, value) => {
        fc.pre(!(type.key === 'BOOLEAN' && typeof value === 'string'));
        assert.deepEqual(checkFormValue(attr(type), value), checkBodyValue(attr(type), value));
      }),
    );
  });
});
