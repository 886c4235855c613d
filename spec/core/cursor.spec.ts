import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import {
  cursorPage,
  cursorScope,
  decodeCursor,
  encodeCursor,
  reversedColumns,
  reversedDirection,
  type Cursor,
  type CursorValue,
} from '../../lib/core/cursor.js';
import { keysetAlternatives, type KeyAtom, type KeyColumn } from '../../lib/core/keyset.js';
import { planSearch } from '../../lib/core/search-plan.js';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { DataTypes, Sequelize } from 'sequelize';

const SECRET = 's'.repeat(40);

const cursorValueArb: fc.Arbitrary<CursorValue> = fc.oneof(
  fc.constant(null),
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
  fc.boolean(),
);
const cursorArb: fc.Arbitrary<Cursor> = fc.record({
  direction: fc.constantFrom('after' as const, 'before' as const),
  values: fc.array(cursorValueArb, { minLength: 1, maxLength: 4 }),
});
const scopeArb = fc.tuple(fc.option(fc.string(), { nil: undefined }), fc.dictionary(fc.string(), fc.string()));

describe('encodeCursor and decodeCursor', () => {
  it('returns the cursor encoded, for any values and scope (round trip)', () => {
    fc.assert(
      fc.property(cursorArb, scopeArb, (cursor, [sort, filter]) => {
        const scope = cursorScope(sort, filter);
        assert.deepEqual(
          decodeCursor(encodeCursor(cursor, scope, SECRET), scope, SECRET),
          E.right({ direction: cursor.direction, values: [...cursor.values] }),
        );
      }),
    );
  });

  it('returns invalidCursor for a token with any character changed, another scope or another secret', () => {
    fc.assert(
      fc.property(cursorArb, scopeArb, fc.nat(), fc.constantFrom(...'AQgw-_.x9'), (cursor, [sort, filter], at, by) => {
        const scope = cursorScope(sort, filter);
        const token = encodeCursor(cursor, scope, SECRET);
        const i = at % token.length;
        fc.pre(token[i] !== by);
        const changed = `${token.slice(0, i)}${by}${token.slice(i + 1)}`;
        for (const [text, bound, secret] of [
          [changed, scope, SECRET],
          [token, cursorScope(sort, { ...filter, extra: '1' }), SECRET],
          [token, cursorScope(`${sort ?? ''}x`, filter), SECRET],
          [token, scope, 't'.repeat(40)],
        ] as const) {
          const decoded = decodeCursor(text, bound, secret);
          assert.ok(E.isLeft(decoded), text);
          assert.equal(decoded.left.error, 'invalidCursor');
          assert.equal(decoded.left.field, 'cursor');
        }
      }),
    );
  });

  it('returns invalidCursor for text that is not a token', () => {
    for (const text of ['', 'abc', 'a.b', '.', `${'a'.repeat(5000)}.${'b'.repeat(43)}`])
      assert.ok(E.isLeft(decodeCursor(text, '[]', SECRET)), text);
  });
});

describe('cursorScope', () => {
  it('returns one scope whatever the order of the filter keys, and another for another sort or filter', () => {
    assert.equal(cursorScope('name', { a: '1', b: { gte: '2' } }), cursorScope('name', { b: { gte: '2' }, a: '1' }));
    assert.notEqual(cursorScope('name', { a: '1' }), cursorScope('-name', { a: '1' }));
    assert.notEqual(cursorScope('name', { a: '1' }), cursorScope('name', { a: '2' }));
    assert.notEqual(cursorScope(undefined, ['x']), cursorScope('x', undefined));
  });
});

describe('reversedDirection', () => {
  it('returns the opposite direction and NULL placement', () => {
    assert.deepEqual(['ASC', 'DESC', 'ASC NULLS FIRST', 'DESC NULLS LAST', 'asc nulls last'].map(reversedDirection), [
      'DESC',
      'ASC',
      'DESC NULLS LAST',
      'ASC NULLS FIRST',
      'DESC NULLS FIRST',
    ]);
  });
});

type Value = number | null;

function compareColumn(column: KeyColumn, a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return column.nullsFirst ? -1 : 1;
  if (b === null) return column.nullsFirst ? 1 : -1;
  return column.descending ? b - a : a - b;
}

function compareRows(columns: readonly KeyColumn[], a: readonly Value[], b: readonly Value[]): number {
  for (const [i, column] of columns.entries()) {
    const order = compareColumn(column, a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return 0;
}

function holds(columns: readonly KeyColumn[], atom: KeyAtom, row: readonly Value[], last: readonly Value[]): boolean {
  const value = row[atom.index]!;
  const other = last[atom.index]!;
  const beyond = value !== null && other !== null && (columns[atom.index]!.descending ? value < other : value > other);
  switch (atom.test) {
    case 'null':
      return value === null;
    case 'notNull':
      return value !== null;
    case 'equal':
      return value === other;
    case 'beyond':
      return beyond;
    case 'beyondOrNull':
      return beyond || value === null;
  }
}

/** The rows a keyset read gives: sorted by `columns`, after `last` when given, `limit` of them. */
function keysetRead(
  columns: readonly KeyColumn[],
  rows: readonly Value[][],
  last: readonly Value[] | null,
  limit: number,
) {
  const sorted = [...rows].sort((a, b) => compareRows(columns, a, b));
  if (last === null) return sorted.slice(0, limit);
  const alternatives = keysetAlternatives(
    columns,
    last.map((value) => value === null),
  );
  return sorted
    .filter((row) => alternatives.some((all) => all.every((atom) => holds(columns, atom, row, last))))
    .slice(0, limit);
}

const columnArb = fc.record({ expression: fc.constant('c'), descending: fc.boolean(), nullsFirst: fc.boolean() });

describe('cursorPage over keyset reads', () => {
  it('returns pages whose rows, concatenated forward by next or back by prev, are the offset order (law)', () => {
    fc.assert(
      fc.property(
        fc.array(columnArb, { minLength: 1, maxLength: 2 }),
        fc.array(fc.array(fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }), { minLength: 2, maxLength: 2 }), {
          maxLength: 20,
        }),
        fc.integer({ min: 1, max: 5 }),
        (sorts, values, perPage) => {
          const columns: KeyColumn[] = [...sorts, { expression: 'id', descending: false, nullsFirst: true }];
          const rows = values.map((row, id) => [...row.slice(0, sorts.length), id] as Value[]);
          const offsetOrder = [...rows].sort((a, b) => compareRows(columns, a, b));
          const scope = cursorScope('c', {});
          const read = (token: string | null) => {
            const cursor = token === null ? null : decodeCursor(token, scope, SECRET);
            if (cursor !== null && E.isLeft(cursor)) throw new Error('a cursor of the walk did not decode');
            const position = cursor === null ? null : cursor.right;
            const before = position?.direction === 'before';
            const found = keysetRead(
              before ? reversedColumns(columns) : columns,
              rows,
              (position?.values as Value[] | undefined) ?? null,
              perPage + 1,
            );
            const page = cursorPage(position?.direction ?? null, found, perPage);
            const token_ = (row: Value[] | null, direction: Cursor['direction']) =>
              row === null ? null : encodeCursor({ direction, values: row }, scope, SECRET);
            return { rows: page.rows, next: token_(page.next, 'after'), prev: token_(page.prev, 'before') };
          };
          const forward = [read(null)];
          while (forward.at(-1)!.next !== null) forward.push(read(forward.at(-1)!.next));
          assert.deepEqual(
            forward.flatMap((page) => page.rows),
            offsetOrder,
          );
          assert.equal(forward[0]!.prev, null);
          for (const page of forward.slice(0, -1)) assert.equal(page.rows.length, perPage);
          const backward = [forward.at(-1)!];
          while (backward[0]!.prev !== null) backward.unshift(read(backward[0]!.prev));
          assert.deepEqual(
            backward.flatMap((page) => page.rows),
            offsetOrder,
          );
        },
      ),
    );
  });

  it('returns the rows read in the order, and no next cursor on the last page', () => {
    assert.deepEqual(cursorPage(null, [1, 2, 3], 2), { rows: [1, 2], next: 2, prev: null });
    assert.deepEqual(cursorPage('after', [3, 4], 2), { rows: [3, 4], next: null, prev: 3 });
    assert.deepEqual(cursorPage('before', [5, 4, 3], 2), { rows: [4, 5], next: 5, prev: 4 });
    assert.deepEqual(cursorPage('before', [2, 1], 2), { rows: [1, 2], next: 2, prev: null });
    assert.deepEqual(cursorPage('after', [], 2), { rows: [], next: null, prev: null });
  });
});

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Product = sequelize.define(
  'Product',
  { id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.STRING },
  { timestamps: false },
);

const settings = {
  policy: resolvePolicy(Product, {}, DEFAULT_CONFIG),
  termKey: 'term',
  termFields: [],
  config: DEFAULT_CONFIG,
  paginate: true,
  cursorSecret: SECRET,
};

describe('planSearch with cursor', () => {
  it('returns the first page for cursor= and the decoded cursor for a token of the same sort and filter', () => {
    const first = planSearch(Product, { cursor: '', sort: 'name', perPage: '5' }, settings);
    assert.ok(E.isRight(first));
    assert.deepEqual(first.right.cursor, { position: null, scope: cursorScope('name', undefined) });
    assert.deepEqual(first.right.page, { page: 1, perPage: 5 });
    const token = encodeCursor({ direction: 'after', values: ['b', 3] }, cursorScope('name', undefined), SECRET);
    const next = planSearch(Product, { cursor: token, sort: 'name' }, settings);
    assert.ok(E.isRight(next));
    assert.deepEqual(next.right.cursor?.position, { direction: 'after', values: ['b', 3] });
  });

  it('returns invalidCursor for a token of another sort, and invalidValue for cursor with page or skipPagination', () => {
    const token = encodeCursor({ direction: 'after', values: ['b', 3] }, cursorScope('name', undefined), SECRET);
    const fails = (request: Record<string, unknown>) => {
      const planned = planSearch(Product, request, settings);
      return E.isLeft(planned) ? planned.left.map((item) => [item.field, item.error]) : [];
    };
    assert.deepEqual(fails({ cursor: token, sort: '-name' }), [['cursor', 'invalidCursor']]);
    assert.deepEqual(fails({ cursor: '', page: '2' }), [['cursor', 'invalidValue']]);
    assert.deepEqual(fails({ cursor: '', skipPagination: 'true' }), [['cursor', 'invalidValue']]);
    assert.deepEqual(fails({ cursor: ['a', 'b'] }), [['cursor', 'invalidValue']]);
    assert.deepEqual(fails({ cursor: token }), [['cursor', 'invalidCursor']]);
  });
});
