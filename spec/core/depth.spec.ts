import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes } from 'sequelize';
import { bodyProblem, problemField, stringifyJson, tooDeepAt } from '../../lib/core/depth.js';
import { uuidForms } from '../../lib/core/record-plan.js';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { k: value };
  return value;
};

/** A simple recursive model of the depth (only run on shallow values). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('tooDeepAt', () => {
  it('returns the path to the first container past the limit, and undefined within it', () => {
    assert.deepEqual(tooDeepAt([[1]], 1), [0]);
    assert.deepEqual(tooDeepAt({ a: { b: {} } }, 2), ['a', 'b']);
    assert.equal(tooDeepAt({ a: { b: 1 } }, 2), undefined);
    assert.equal(tooDeepAt('text', 0), undefined);
  });

  it('never overflows the stack, whatever the depth', () => {
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000));
    assert.equal(tooDeepAt(deep, 64)?.length, 64);
  });

  it('law: finds something exactly when the value is deeper than the limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ depthSize: 'medium' }), fc.nat(8), (value, max) => {
        assert.equal(tooDeepAt(value, max) !== undefined, depthOf(value) > max);
      }),
    );
  });

  it('law: the path it gives leads to a container at depth max + 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.nat(20), (depth, max) => {
        const path = tooDeepAt(nested(depth), max);
        assert.equal(path === undefined ? depth <= max : path.length === max, true);
      }),
    );
  });
});

describe('bodyProblem', () => {
  it('returns a NUL character in a value or a key at any depth, naming the top-level field', () => {
    assert.deepEqual(bodyProblem({ tags: ['a\u0000'] }, 64), { problem: 'nul', path: ['tags', 0] });
    assert.deepEqual(bodyProblem({ meta: { 'k\u0000': 1 } }, 64), { problem: 'nul', path: ['meta', 'k\u0000'] });
    assert.equal(bodyProblem({ name: 'Kite', n: 1 }, 64), undefined);
    assert.equal(problemField([0, 0]), 'body');
    assert.equal(problemField(['meta', 0]), 'meta');
  });

  it('law: a body without NUL characters has a problem exactly when tooDeepAt finds one', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v).replaceAll('\\u0000', ''))),
        fc.nat(6),
        (value, max) => {
          assert.equal(bodyProblem(value, max) !== undefined, tooDeepAt(value, max) !== undefined);
        },
      ),
    );
  });
});

describe('stringifyJson', () => {
  it("returns JSON.stringify's text for a value deeper than JSON.stringify can write", () => {
    const text = '{"a":'.repeat(100_000) + '[1,"x",null]' + '}'.repeat(100_000);
    assert.equal(stringifyJson(JSON.parse(text)), text);
  });

  it('law: equals JSON.stringify on every JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(stringifyJson(value), JSON.stringify(value));
      }),
    );
  });
});

describe('uuidForms', () => {
  it('returns both cases of a UUID in a text column, and any other value as it is', () => {
    const upper = 'AB6F1C2D-1111-4222-8333-944455556666';
    assert.deepEqual(uuidForms({ type: DataTypes.STRING(36) }, upper), [upper.toLowerCase(), upper]);
    assert.equal(uuidForms({ type: DataTypes.UUID }, upper.toLowerCase()), upper.toLowerCase());
    assert.equal(uuidForms({ type: DataTypes.STRING(36) }, 'not-a-uuid'), 'not-a-uuid');
    assert.equal(uuidForms({ type: DataTypes.INTEGER }, 7), 7);
  });

  it('law: every case-variant of a UUID in a text column gives the same forms', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }), (uuid, flips) => {
        const variant = [...uuid].map((c, i) => (flips[i] ? c.toUpperCase() : c)).join('');
        assert.deepEqual(
          uuidForms({ type: DataTypes.STRING(36) }, variant),
          uuidForms({ type: DataTypes.STRING(36) }, uuid),
        );
      }),
    );
  });
});
