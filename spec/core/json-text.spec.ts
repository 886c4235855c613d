import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { jsonText } from '../../lib/core/json-text.js';

/** Every time value a Date can hold (ECMA-262 §21.4.1.22: ±8.64e15 ms), and the invalid one. */
const anyDate = fc.oneof(
  fc.date({ noInvalidDate: false }),
  fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => new Date(ms)),
  fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }).map((ms) => new Date(ms)),
);

/** A page as a search replies it: rows of scalars and dates, with relations (an object, a list) holding dates too. */
const pageArb = fc.record({
  status: fc.constant('success'),
  data: fc.array(
    fc.record({
      id: fc.integer(),
      name: fc.string(),
      createdAt: anyDate,
      deletedAt: fc.option(anyDate),
      category: fc.option(fc.record({ id: fc.integer(), updatedAt: anyDate })),
      tags: fc.array(fc.record({ at: anyDate, label: fc.string() }), { maxLength: 3 }),
    }),
    { maxLength: 40 },
  ),
  meta: fc.record({ pagination: fc.record({ current: fc.nat(), count: fc.nat() }) }),
});

/** Anything `JSON.stringify` takes, dates among it, and shapes it treats apart (null prototypes, holes, boxes, maps). */
const anythingArb = fc.anything({
  withDate: true,
  withNullPrototype: true,
  withSparseArray: true,
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withTypedArray: true,
  withObjectString: true,
  maxDepth: 12,
});

/** `jsonText` gives `JSON.stringify`'s bytes and leaves its argument as it was. */
function sameAsStringify(value: unknown): void {
  const before = inspect(value, { depth: Infinity });
  assert.equal(jsonText(value), JSON.stringify(value));
  assert.equal(inspect(value, { depth: Infinity }), before);
}

/** Runs `check` with `Date.prototype[key]` replaced by `replacement`, then puts the engine's back. */
function withDateMethod(key: PropertyKey, replacement: unknown, check: () => void): void {
  const own = Object.getOwnPropertyDescriptor(Date.prototype, key)!;
  Object.defineProperty(Date.prototype, key, { ...own, value: replacement });
  try {
    check();
  } finally {
    Object.defineProperty(Date.prototype, key, own);
  }
}

describe('jsonText', () => {
  it('writes a date as JSON.stringify does: its ISO text, null when invalid, six-digit years past 9999', () => {
    assert.equal(jsonText({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}');
    assert.equal(jsonText([new Date(Number.NaN)]), '[null]');
    assert.equal(jsonText(new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 7))), '"2024-02-29T23:59:59.007Z"');
    assert.equal(jsonText(new Date(Date.UTC(0, 0, 1) - 1)), JSON.stringify(new Date(Date.UTC(0, 0, 1) - 1)));
    assert.equal(jsonText(new Date(8.64e15)), '"+275760-09-13T00:00:00.000Z"');
    assert.equal(jsonText(new Date(-8.64e15)), '"-271821-04-20T00:00:00.000Z"');
  });

  it('gives the bytes of JSON.stringify for every date', () => {
    fc.assert(fc.property(anyDate, sameAsStringify), { numRuns: 20_000 });
  });

  it('gives the bytes of JSON.stringify for a page of rows with dates and relations, and changes none of it', () => {
    fc.assert(fc.property(pageArb, sameAsStringify), { numRuns: 500 });
  });

  it('gives the bytes of JSON.stringify for anything JSON.stringify takes', () => {
    fc.assert(fc.property(anythingArb, sameAsStringify), { numRuns: 2_000 });
  });

  it("leaves to a date's own toJSON, a subclass's, an object's toJSON and a class instance what they write", () => {
    const own = Object.assign(new Date(0), { toJSON: () => 'own' });
    const iso = Object.assign(new Date(0), { toISOString: () => 'own iso' });
    class Day extends Date {
      override toJSON() {
        return this.toISOString().slice(0, 10);
      }
    }
    const wrapped = { at: new Date(0), toJSON: () => 'wrapped' };
    class Row {
      at = new Date(0);
      get day() {
        return this.at;
      }
    }
    const value = { own, iso, day: new Day(0), wrapped, row: new Row(), list: [wrapped, new Day(86_400_000)] };
    assert.equal(
      jsonText(value),
      '{"own":"own","iso":"own iso","day":"1970-01-01","wrapped":"wrapped","row":{"at":"1970-01-01T00:00:00.000Z"},' +
        '"list":["wrapped","1970-01-02"]}',
    );
    sameAsStringify(value);
  });

  it('follows a Date.prototype whose toJSON, toISOString, valueOf or toPrimitive an app replaced', () => {
    const valid = { data: [{ at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)) }] };
    const invalid = { data: [{ at: new Date(Number.NaN) }] };
    const replaced: [PropertyKey, unknown, string][] = [
      ['toJSON', Date.prototype.getTime, '{"data":[{"at":1704164645006}]}'],
      ['toISOString', () => 'local', '{"data":[{"at":"local"}]}'],
      ['valueOf', () => Number.NaN, '{"data":[{"at":null}]}'],
      [Symbol.toPrimitive, () => Number.NaN, '{"data":[{"at":null}]}'],
    ];
    for (const [key, replacement, expected] of replaced)
      withDateMethod(key, replacement, () => {
        assert.equal(jsonText(valid), expected);
        assert.equal(jsonText(invalid), JSON.stringify(invalid));
      });
    assert.equal(jsonText(valid), '{"data":[{"at":"2024-01-02T03:04:05.006Z"}]}');
  });

  it('throws as JSON.stringify does on a cycle and on a BigInt', () => {
    const cyclic: Record<string, unknown> = { at: new Date(0) };
    cyclic['self'] = cyclic;
    assert.throws(() => jsonText(cyclic), TypeError);
    assert.throws(() => jsonText({ at: new Date(0), n: 1n }), TypeError);
  });
});
