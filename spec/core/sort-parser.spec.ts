import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { FindOptions } from 'sequelize';
import { parseSort, parseSortItems, processSort } from '../../lib/core/sort-parser.js';
import { sortStringArb } from '../arbitraries/sort-arb.js';

describe('parseSort', () => {
  it('returns no clause for an empty string (rule 1)', () => {
    assert.deepEqual(parseSort(''), []);
  });

  it('returns trimmed items and skips empty ones (rule 2)', () => {
    assert.deepEqual(parseSort(' name , ,, price '), [
      ['name', 'ASC'],
      ['price', 'ASC'],
    ]);
  });

  it('returns DESC for a leading dash and ASC otherwise (rule 3)', () => {
    assert.deepEqual(parseSort('-price,name'), [
      ['price', 'DESC'],
      ['name', 'ASC'],
    ]);
  });

  it('returns snake_case names for camelCase ones (rule 4)', () => {
    assert.deepEqual(parseSort('createdAt,-externalId,deleted_at'), [
      ['created_at', 'ASC'],
      ['external_id', 'DESC'],
      ['deleted_at', 'ASC'],
    ]);
  });

  it('returns clauses in the order of the items (rule 5)', () => {
    assert.deepEqual(
      parseSort('b,a,c').map(([column]) => column),
      ['b', 'a', 'c'],
    );
  });

  it('returns nothing for a lone dash', () => {
    assert.deepEqual(parseSort('-, -'), []);
  });

  it('returns only word characters for hostile input, which the caller then checks as columns', () => {
    assert.deepEqual(parseSort('name; DROP TABLE x--,"quoted"'), [
      ['name_drop_table_x', 'ASC'],
      ['quoted', 'ASC'],
    ]);
  });

  describe('laws', () => {
    it('never throws, and returns [column, direction] pairs', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme-composite' }), (sort) => {
          for (const [column, direction] of parseSort(sort)) {
            assert.ok(column.length > 0);
            assert.ok(direction === 'ASC' || direction === 'DESC');
          }
        }),
      );
    });

    it('agrees with the clauses each item was built to mean, in item order', () => {
      fc.assert(
        fc.property(sortStringArb, ({ sort, expected }) => {
          assert.deepEqual(parseSort(sort), expected);
        }),
      );
    });

    it('is stable under re-joining its own output', () => {
      fc.assert(
        fc.property(sortStringArb, ({ sort }) => {
          const once = parseSort(sort);
          const rejoined = once.map(([c, d]) => (d === 'DESC' ? `-${c}` : c)).join(',');
          assert.deepEqual(parseSort(rejoined), once);
        }),
      );
    });
  });
});

describe('parseSortItems', () => {
  it('returns the names as written, trimmed, with their directions', () => {
    assert.deepEqual(parseSortItems(' categoryId , - price,,-'), [
      ['categoryId', 'ASC'],
      ['price', 'DESC'],
    ]);
  });

  it('agrees with parseSort once its names are snake_cased', () => {
    fc.assert(
      fc.property(sortStringArb, ({ sort, expected }) => {
        assert.equal(parseSortItems(sort).length, expected.length);
      }),
    );
  });

  it('keeps a name that snake_case empties, which parseSort skips, so search can refuse it', () => {
    assert.deepEqual(parseSortItems('_,-__,name'), [
      ['_', 'ASC'],
      ['__', 'DESC'],
      ['name', 'ASC'],
    ]);
    assert.deepEqual(parseSort('_,-__,name'), [['name', 'ASC']]);
  });
});

describe('processSort', () => {
  it('returns options with clauses appended after the existing order', () => {
    const options: FindOptions = { where: { a: 1 }, order: [['id', 'ASC']] };
    assert.deepEqual(processSort(options, '-price'), {
      where: { a: 1 },
      order: [
        ['id', 'ASC'],
        ['price', 'DESC'],
      ],
    });
  });

  it('returns equal options for an empty sort, as a new object', () => {
    const options: FindOptions = { limit: 3 };
    const result = processSort(options, '');
    assert.deepEqual(result, options);
    assert.notEqual(result, options);
  });

  it('keeps a non-array order as the first clause', () => {
    const literal = { val: 'RANDOM()' };
    assert.deepEqual(processSort({ order: literal as never }, 'name').order, [literal, ['name', 'ASC']]);
  });

  it('never mutates its input', () => {
    fc.assert(
      fc.property(sortStringArb, ({ sort }) => {
        const order = Object.freeze([Object.freeze(['id', 'ASC'])]);
        const options = Object.freeze({ order }) as unknown as FindOptions;
        const result = processSort(options, sort);
        assert.deepEqual(options, { order: [['id', 'ASC']] });
        assert.equal((result.order as unknown[]).length, 1 + parseSort(sort).length);
      }),
    );
  });
});
