import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes } from 'sequelize';
import {
  checkBodyValue,
  checkFormValue,
  coerceQueryValue,
  kindOf,
  refusalCode,
} from '../../lib/core/attribute-kinds.js';

const attr = (type: unknown) => ({ type });

describe('kindOf', () => {
  it('returns the kind of each Sequelize type', () => {
    assert.deepEqual(
      [
        DataTypes.INTEGER(),
        DataTypes.DECIMAL(10, 2),
        DataTypes.BOOLEAN(),
        DataTypes.DATE(),
        DataTypes.DATEONLY(),
        DataTypes.UUID(),
        DataTypes.STRING(),
        DataTypes.ENUM('a'),
        DataTypes.JSON(),
        DataTypes.BLOB(),
      ].map((t) => kindOf(attr(t))),
      ['integer', 'number', 'boolean', 'date', 'dateonly', 'uuid', 'string', 'enum', 'json', 'other'],
    );
  });

  it('returns number for every floating type, whatever key Sequelize gives it', () => {
    // DataTypes.DOUBLE's key is 'DOUBLE PRECISION': a DOUBLE column was once left unchecked.
    assert.deepEqual(
      [DataTypes.DOUBLE(), DataTypes.FLOAT(), DataTypes.REAL()].map((t) => kindOf(attr(t))),
      ['number', 'number', 'number'],
    );
  });
});

describe('coerceQueryValue', () => {
  it('returns typed values for valid text', () => {
    assert.deepEqual(coerceQueryValue(attr(DataTypes.INTEGER()), '-42'), E.right(-42));
    assert.deepEqual(coerceQueryValue(attr(DataTypes.DECIMAL()), '12.50'), E.right(12.5));
    assert.deepEqual(coerceQueryValue(attr(DataTypes.BOOLEAN()), '0'), E.right(false));
    assert.deepEqual(
      coerceQueryValue(attr(DataTypes.DATE()), '2024-01-02T03:04:05Z'),
      E.right(new Date('2024-01-02T03:04:05Z')),
    );
    assert.deepEqual(coerceQueryValue(attr(DataTypes.ENUM('s', 'm')), 'm'), E.right('m'));
  });

  it('returns a reason for text that does not fit the kind', () => {
    for (const [type, text] of [
      [DataTypes.INTEGER(), '1.5'],
      [DataTypes.DECIMAL(), '1e309'],
      [DataTypes.BOOLEAN(), 'yes'],
      [DataTypes.DATE(), 'soon'],
      [DataTypes.DATEONLY(), '2024-13'],
      [DataTypes.UUID(), 'x'],
      [DataTypes.ENUM('s'), 'xl'],
      [DataTypes.STRING(3), 'abcd'],
      [DataTypes.STRING(), 'a\u0000'],
    ] as const) {
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
    for (const [type, value] of [
      [DataTypes.INTEGER(), 1.5],
      [DataTypes.INTEGER(), true],
      [DataTypes.BOOLEAN(), 'true'],
      [DataTypes.STRING(), 5],
      [DataTypes.STRING(), {}],
      [DataTypes.UUID(), 'x'],
      [DataTypes.DATE(), Number.NaN],
    ] as const) {
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

describe('checkBodyValue with impossible dates', () => {
  it('returns a reason for a date or datetime that is no real calendar value, never the next day', () => {
    assert.deepEqual(
      checkBodyValue(attr(DataTypes.DATEONLY()), '2024-02-30'),
      E.left('must be a date that exists: 2024-02 has 29 days'),
    );
    assert.deepEqual(
      checkBodyValue(attr(DataTypes.DATE()), '2024-02-30T10:00:00Z'),
      E.left('must be a date that exists: 2024-02 has 29 days'),
    );
    assert.deepEqual(
      checkBodyValue(attr(DataTypes.DATE()), '2024-04-31'),
      E.left('must be a date that exists: 2024-04 has 30 days'),
    );
    assert.deepEqual(
      checkBodyValue(attr(DataTypes.DATE()), '2024-01-01T24:00:00Z'),
      E.left('must be a time that exists: 2024-01-01T24:00:00Z'),
    );
    assert.deepEqual(checkBodyValue(attr(DataTypes.DATEONLY()), '2024-02-29'), E.right('2024-02-29'));
    assert.deepEqual(
      checkBodyValue(attr(DataTypes.DATE()), '2024-02-29T10:00:00Z'),
      E.right(new Date('2024-02-29T10:00:00Z')),
    );
  });

  it('returns a reason for years the dialects cannot all store: before 1000, after 9999, as text, epoch milliseconds or a Date', () => {
    const range = E.left('must be a date from year 1000 to 9999');
    assert.deepEqual(checkBodyValue(attr(DataTypes.DATE()), 8.64e15), range);
    assert.deepEqual(checkBodyValue(attr(DataTypes.DATE()), new Date(253402300800000)), range);
    assert.deepEqual(checkBodyValue(attr(DataTypes.DATE()), '0000-12-31T00:00:00Z'), range);
    assert.deepEqual(checkBodyValue(attr(DataTypes.DATEONLY()), '0000-01-01'), range);
    assert.deepEqual(checkBodyValue(attr(DataTypes.DATE()), '0099-01-01T00:00:00Z'), range);
    assert.deepEqual(
      checkBodyValue(attr(DataTypes.DATE()), 253402300799999),
      E.right(new Date('9999-12-31T23:59:59.999Z')),
    );
  });

  it('never returns a Date that reads as another calendar day than its text (law)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          const checked = checkBodyValue(attr(DataTypes.DATE()), `${text}T00:00:00Z`);
          if (E.isRight(checked)) assert.equal((checked.right as Date).toISOString().slice(0, 10), text);
        },
      ),
    );
  });
});

describe('refusalCode', () => {
  it('returns invalidValue for a date-shaped value and type for any other refusal', () => {
    assert.equal(refusalCode(attr(DataTypes.DATEONLY()), '2024-02-30'), 'invalidValue');
    assert.equal(refusalCode(attr(DataTypes.DATE()), '2024-02-30T10:00:00Z'), 'invalidValue');
    assert.equal(refusalCode(attr(DataTypes.DATE()), 8.64e15), 'invalidValue');
    assert.equal(refusalCode(attr(DataTypes.DATE()), 'soon'), 'type');
    assert.equal(refusalCode(attr(DataTypes.DATE()), true), 'type');
    assert.equal(refusalCode(attr(DataTypes.DATEONLY()), '2024-02'), 'type');
    assert.equal(refusalCode(attr(DataTypes.INTEGER()), '1.5'), 'type');
  });
});

describe('checkFormValue', () => {
  it('returns booleans for the texts a query string allows, for a boolean attribute only', () => {
    for (const [text, value] of [
      ['true', true],
      ['1', true],
      ['false', false],
      ['0', false],
    ] as const) {
      assert.deepEqual(checkFormValue(attr(DataTypes.BOOLEAN()), text), E.right(value));
    }
    assert.deepEqual(checkFormValue(attr(DataTypes.STRING()), 'true'), E.right('true'));
    assert.ok(E.isLeft(checkFormValue(attr(DataTypes.BOOLEAN()), 'yes')));
    assert.ok(E.isLeft(checkFormValue(attr(DataTypes.BOOLEAN()), ['true'])));
  });

  it('law: returns what checkBodyValue returns for every value that is not text for a boolean', () => {
    const types = [
      DataTypes.INTEGER(),
      DataTypes.DECIMAL(),
      DataTypes.STRING(),
      DataTypes.DATE(),
      DataTypes.JSON(),
      DataTypes.BOOLEAN(),
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...types),
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string())),
        (type, value) => {
          fc.pre(!(type.key === 'BOOLEAN' && typeof value === 'string'));
          assert.deepEqual(checkFormValue(attr(type), value), checkBodyValue(attr(type), value));
        },
      ),
    );
  });
});
