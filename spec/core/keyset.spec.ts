import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { keysetAlternatives, keysetSql, orderDirection, type KeyAtom, type KeyColumn } from '../../lib/core/keyset.js';

type Value = number | null;

/** Compares two values of one column in its order: NULL first or last, then the direction. */
function compareColumn(column: KeyColumn, a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return column.nullsFirst ? -1 : 1;
  if (b === null) return column.nullsFirst ? 1 : -1;
  return column.descending ? b - a : a - b;
}

/** What an atom means, evaluated on a row against the last row. */
function holds(columns: readonly KeyColumn[], atom: KeyAtom, row: readonly Value[], last: readonly Value[]): boolean {
  const value = row[atom.index]!;
  const beyond =
    value !== null &&
    last[atom.index] !== null &&
    (columns[atom.index]!.descending ? value < last[atom.index]! : value > last[atom.index]!);
  switch (atom.test) {
    case 'null':
      return value === null;
    case 'notNull':
      return value !== null;
    case 'equal':
      return value === last[atom.index];
    case 'beyond':
      return beyond;
    case 'beyondOrNull':
      return beyond || value === null;
  }
}

const columnArb = fc.record({ expression: fc.constant('c'), descending: fc.boolean(), nullsFirst: fc.boolean() });

describe('keysetAlternatives', () => {
  it('returns exactly the rows after each row of the order, NULLs and mixed directions included (law)', () => {
    fc.assert(
      fc.property(
        fc.array(columnArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.array(fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }), { minLength: 3, maxLength: 3 }), {
          maxLength: 25,
        }),
        (sorts, values) => {
          // The last column is the unique, never-NULL tiebreak, as the primary key is.
          const columns: KeyColumn[] = [...sorts, { expression: 'id', descending: false, nullsFirst: true }];
          const rows = values.map((row, id) => [...row.slice(0, sorts.length), id] as Value[]);
          const sorted = [...rows].sort((a, b) => {
            for (const [i, column] of columns.entries()) {
              const order = compareColumn(column, a[i]!, b[i]!);
              if (order !== 0) return order;
            }
            return 0;
          });
          for (const [k, last] of sorted.entries()) {
            const alternatives = keysetAlternatives(
              columns,
              last.map((value) => value === null),
            );
            const after = sorted.filter((row) =>
              alternatives.some((all) => all.every((atom) => holds(columns, atom, row, last))),
            );
            assert.deepEqual(after, sorted.slice(k + 1));
          }
        },
      ),
    );
  });
});

describe('keysetSql', () => {
  it('returns an OR of ANDs with NULL tests for a NULL last value in a NULLs-first descending column', () => {
    const columns: KeyColumn[] = [
      { expression: 'p', descending: true, nullsFirst: true },
      { expression: 'id', descending: false, nullsFirst: true },
    ];
    assert.equal(keysetSql(columns, [null, '4']), '((p IS NOT NULL) OR (p IS NULL AND id > 4))');
    assert.equal(keysetSql(columns, ["'x'", '4']), "(p <= 'x' AND ((p < 'x') OR (p = 'x' AND id > 4)))");
  });

  it('returns a condition matching nothing for no columns', () => {
    assert.equal(keysetSql([], []), '1 = 0');
  });
});

describe('orderDirection', () => {
  it('returns NULL as the smallest value on SQLite and MariaDB, the largest on PostgreSQL, unless NULLS is written', () => {
    assert.deepEqual(orderDirection('ASC', 'sqlite'), { descending: false, nullsFirst: true });
    assert.deepEqual(orderDirection('DESC', 'mariadb'), { descending: true, nullsFirst: false });
    assert.deepEqual(orderDirection('ASC', 'postgres'), { descending: false, nullsFirst: false });
    assert.deepEqual(orderDirection('DESC', 'postgres'), { descending: true, nullsFirst: true });
    assert.deepEqual(orderDirection('ASC NULLS FIRST', 'postgres'), { descending: false, nullsFirst: true });
    assert.deepEqual(orderDirection('desc nulls last', 'postgres'), { descending: true, nullsFirst: false });
  });

  it('returns undefined for text that is not a direction', () => {
    assert.equal(orderDirection('RANDOM()', 'sqlite'), undefined);
  });
});
