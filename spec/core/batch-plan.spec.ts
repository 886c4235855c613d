import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import {
  batchItems,
  dataKey,
  filterProblem,
  planFilterProblem,
  groupByData,
  itemFailures,
  matchProblem,
} from '../../lib/core/batch-plan.js';

describe('batchItems', () => {
  it('returns the items of a non-empty array within the cap', () => {
    assert.deepEqual(batchItems([{ a: 1 }, { a: 2 }], 2), E.right([{ a: 1 }, { a: 2 }]));
  });

  it('returns emptyPayload for an empty array and tooManyRows past the cap', () => {
    const empty = batchItems([], 5);
    assert.ok(E.isLeft(empty));
    assert.deepEqual(empty.left, {
      field: 'body',
      error: 'emptyPayload',
      message: 'The array must hold at least one record',
    });
    const tooMany = batchItems([1, 2, 3], 2);
    assert.ok(E.isLeft(tooMany));
    assert.equal(tooMany.left.error, 'tooManyRows');
    assert.match(tooMany.left.message, /at most 2 records \(batch\.max_records\)/);
  });

  it('is Right exactly when 1 ≤ length ≤ max', () => {
    fc.assert(
      fc.property(fc.array(fc.anything(), { maxLength: 30 }), fc.integer({ min: 1, max: 30 }), (items, max) => {
        assert.equal(E.isRight(batchItems(items, max)), items.length >= 1 && items.length <= max);
      }),
    );
  });
});

describe('filterProblem', () => {
  it('returns undefined for a query with a filter', () => {
    assert.equal(filterProblem({ filter: { id: { in: '4,5' } } }), undefined);
    assert.equal(filterProblem({ filter: { term: 'x' }, sort: 'id' }), undefined);
  });

  it('returns filterRequired for a query without one, or with an empty or scalar one', () => {
    for (const query of [{}, { sort: '-id' }, { filter: {} }, { filter: 'id' }, { filter: null }]) {
      assert.equal(filterProblem(query)?.error, 'filterRequired', JSON.stringify(query));
      assert.equal(filterProblem(query)?.field, 'filter');
    }
  });
});

describe('planFilterProblem', () => {
  it('returns filterRequired for a plan that kept no condition, at any depth, and no term', () => {
    const condition = { field: 'name', operator: 'eq', value: 'x' } as never;
    assert.equal(planFilterProblem({ conditions: [], groups: undefined, term: null })?.error, 'filterRequired');
    assert.equal(planFilterProblem({ conditions: [condition], term: null }), undefined);
    assert.equal(
      planFilterProblem({ conditions: [], groups: [{ group: 'or', items: [[condition]] }], term: null }),
      undefined,
    );
    assert.equal(planFilterProblem({ conditions: [], term: { value: 'x' } as never }), undefined);
  });
});

describe('matchProblem', () => {
  it('returns tooManyRows naming the filter past the cap only', () => {
    assert.equal(matchProblem(5, 5), undefined);
    assert.deepEqual([matchProblem(6, 5)?.field, matchProblem(6, 5)?.error], ['filter', 'tooManyRows']);
  });
});

describe('itemFailures', () => {
  it('prefixes each field with the index, and names the item for a failure without a field', () => {
    assert.deepEqual(
      itemFailures(1, [
        { field: 'price', error: 'type', message: 'm' },
        { field: null, error: 'unique', message: 'n' },
      ]),
      [
        { field: '1.price', error: 'type', message: 'm' },
        { field: '1', error: 'unique', message: 'n' },
      ],
    );
  });
});

describe('dataKey', () => {
  it('returns the same key whatever the order of the keys', () => {
    assert.equal(dataKey({ b: 1, a: 'x' }), dataKey({ a: 'x', b: 1 }));
  });

  it('tells a date from its ISO text, a number from its text, and null from absence', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    assert.notEqual(dataKey({ at }), dataKey({ at: at.toISOString() }));
    assert.notEqual(dataKey({ n: 1 }), dataKey({ n: '1' }));
    assert.notEqual(dataKey({ n: null }), dataKey({}));
    assert.notEqual(dataKey({ j: { $date: at.toISOString() } }), dataKey({ j: at }));
  });

  it('returns undefined for a value that is not plain data (a class instance, a function)', () => {
    class Literal {
      val = 'NOW()';
    }
    assert.equal(dataKey({ at: new Literal() }), undefined);
    assert.equal(dataKey({ f: () => 1 }), undefined);
    assert.equal(dataKey({ list: [1, new Literal()] }), undefined);
  });

  it('is equal for data exactly when the JSON values are deeply equal (law)', () => {
    const value = fc.jsonValue({ maxDepth: 2 });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value), fc.dictionary(fc.string(), value), (a, b) => {
        const same = dataKey(a) === dataKey(b);
        assert.equal(same, isDeepStrictEqual(a, b));
      }),
    );
  });
});

describe('groupByData', () => {
  it('groups ids by equal data in first-seen order, and keeps keyless data alone', () => {
    const groups = groupByData(
      [
        [1, { a: 1 }],
        [2, { a: 2 }],
        [3, { a: 1 }],
        [4, { f: Symbol('x') }],
        [5, { f: Symbol('x') }],
      ],
      dataKey,
    );
    assert.deepEqual(
      groups.map((g) => g.ids),
      [[1, 3], [2], [4], [5]],
    );
  });

  it('loses no id and puts each in a group whose data is its own (law)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.dictionary(fc.constantFrom('a', 'b'), fc.integer({ min: 0, max: 2 })))),
        (writes) => {
          const groups = groupByData(writes, dataKey);
          assert.equal(
            groups.reduce((n, g) => n + g.ids.length, 0),
            writes.length,
          );
          for (const group of groups)
            for (const id of group.ids) {
              assert.ok(writes.some(([i, data]) => i === id && dataKey(data) === dataKey(group.data)));
            }
        },
      ),
    );
  });
});

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(normalize(a), normalize(b));
    return true;
  } catch {
    return false;
  }
}

/** JSON values as dataKey sees them: -0 is 0 (JSON.stringify writes both as 0). */
function normalize(value: unknown): unknown {
  if (typeof value === 'number') return value === 0 ? 0 : value;
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}
