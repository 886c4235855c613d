import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHeapSpaceStatistics } from 'node:v8';
import fc from 'fast-check';
import { DataTypes } from 'sequelize';
import { csvCell, csvColumns, csvRow, includeTree, valueAt, type AssociatedSource } from '../../lib/core/csv-cells.js';
import { cellTextArb, decimalTextArb } from '../arbitraries/csv-arb.js';

/** What a spreadsheet runs: a trigger first, possibly after whitespace (full-width ones too), or a tab or CR first. */
const RUNNABLE = /^(?:[\t\r]|\s*[=+\-@＝＋－＠])/u;

const Category: AssociatedSource = {
  getAttributes: () => ({ name: { type: DataTypes.STRING(60) } }),
  associations: {},
};
const Product: AssociatedSource = {
  getAttributes: () => ({
    name: { type: DataTypes.STRING(60) },
    price: { type: DataTypes.DECIMAL(10, 2) },
    stock: { type: DataTypes.INTEGER },
    releasedAt: { type: DataTypes.DATE },
  }),
  associations: { category: { target: Category } },
};

describe('csvCell', () => {
  it('returns formula-looking text prefixed with a quote', () => {
    assert.deepEqual(
      ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'].map((text) => csvCell(text)),
      ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx"],
    );
  });

  it('returns text with whitespace before a trigger prefixed with a quote', () => {
    assert.deepEqual(
      [' =1+1', '  +1', '\n-1', '\u00a0@SUM(A1)', '\u3000=1', ' \t =1'].map((text) => csvCell(text)),
      ["' =1+1", "'  +1", "'\n-1", "'\u00a0@SUM(A1)", "'\u3000=1", "' \t =1"],
    );
  });

  it('returns text starting with a full-width ＝ ＋ － ＠ prefixed with a quote', () => {
    assert.deepEqual(
      ['＝1+1', '＋1', '－1', '＠SUM(A1)'].map((text) => csvCell(text)),
      ["'＝1+1", "'＋1", "'－1", "'＠SUM(A1)"],
    );
  });

  it('returns text with a trigger after other text, or whitespace alone, as it is', () => {
    assert.deepEqual(
      ['a=1', '1-2', ' x=1', '   ', 'e-mail'].map((text) => csvCell(text)),
      ['a=1', '1-2', ' x=1', '   ', 'e-mail'],
    );
  });

  it('returns empty for null, ISO for dates, JSON for objects, text for the rest', () => {
    assert.deepEqual(
      [null, undefined, new Date(0), { a: 1 }, -5, true, 'plain'].map((value) => csvCell(value)),
      ['', '', '1970-01-01T00:00:00.000Z', '{"a":1}', '-5', 'true', 'plain'],
    );
  });

  it('returns numbers, negative ones included, as they are', () => {
    assert.deepEqual(
      [-5, -0.5, -1e21, 1e-7, -12n].map((value) => csvCell(value)),
      ['-5', '-0.5', '-1e+21', '1e-7', '-12'],
    );
  });

  it('returns every number as String writes it, NaN, infinities and -0 included', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double(),
          fc.integer(),
          fc.constantFrom(NaN, Infinity, -Infinity, -0, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE),
        ),
        (value) => assert.equal(csvCell(value), String(value)),
      ),
    );
  });

  it("leaves no converted number in the old generation (V8's number-to-string cache would keep them through scavenges)", () => {
    const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
    const before = oldSpace();
    // 2,000,000 cells, as an export of a million rows with two numeric columns writes.
    let length = 0;
    for (let i = 0; i < 1_000_000; i++) length += csvCell(i).length + csvCell((i % 10_000) / 100).length;
    assert.ok(length > 0);
    // String(value) left about 25 MB here; this leaves about 2 MB.
    assert.ok(oldSpace() - before < 8e6, `the old space grew by ${((oldSpace() - before) / 1e6).toFixed(1)} MB`);
  });

  it("returns a numeric attribute's numeric text as it is, for a DECIMAL as PostgreSQL returns it", () => {
    assert.deepEqual(
      [csvCell('-5.00', 'number'), csvCell('-5', 'integer'), csvCell('-1e+21', 'number'), csvCell('100.50', 'number')],
      ['-5.00', '-5', '-1e+21', '100.50'],
    );
  });

  it('returns the same text guarded when the attribute is text or unknown', () => {
    assert.deepEqual([csvCell('-5.00', 'string'), csvCell('-5.00')], ["'-5.00", "'-5.00"]);
  });

  it("returns a numeric attribute's text that is not a number guarded", () => {
    assert.deepEqual(
      [csvCell('-5+1', 'number'), csvCell('=1', 'integer'), csvCell(' -5', 'number'), csvCell('-Infinity', 'number')],
      ["'-5+1", "'=1", "' -5", "'-Infinity"],
    );
  });

  it("returns a date attribute's ISO text as it is, years before 0 included, and other text guarded", () => {
    assert.deepEqual(
      [csvCell('-000001-01-01T00:00:00.000Z', 'date'), csvCell('2024-01-01', 'dateonly'), csvCell('-1-1', 'date')],
      ['-000001-01-01T00:00:00.000Z', '2024-01-01', "'-1-1"],
    );
    assert.equal(csvCell(new Date(Date.UTC(-1, 0, 1))), csvCell(new Date(Date.UTC(-1, 0, 1)).toISOString(), 'date'));
  });

  it('never returns text or JSON a spreadsheet would run, for text or unknown attributes', () => {
    fc.assert(
      fc.property(
        fc.oneof(cellTextArb, fc.string(), fc.object(), fc.array(fc.jsonValue())),
        fc.constantFrom(undefined, 'string', 'enum', 'json', 'other', 'uuid', 'boolean') as fc.Arbitrary<undefined>,
        (value, kind) => assert.doesNotMatch(csvCell(value, kind), RUNNABLE),
      ),
    );
  });

  it('returns, for a numeric or date attribute, text as it is only when it is safe or a number or date, else guarded', () => {
    // A plain number or an ISO date: `-1+1` is neither (it is a formula), so it must be guarded.
    const valueSyntax = /^-?\d+(\.\d+)?(e[+-]?\d+)?$|^[+-]?\d{4,6}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?Z)?$/i;
    fc.assert(
      fc.property(
        fc.oneof(cellTextArb, decimalTextArb),
        fc.constantFrom('number', 'integer', 'date', 'dateonly') as fc.Arbitrary<'number'>,
        (text, kind) => {
          const cell = csvCell(text, kind);
          assert.ok(
            cell === text ? !RUNNABLE.test(text) || valueSyntax.test(text) : cell === `'${text}`,
            JSON.stringify({ text, kind, cell }),
          );
        },
      ),
    );
  });

  it('guards arithmetic that looks numeric, for numeric attributes too', () => {
    assert.equal(csvCell('-1+1', 'number'), "'-1+1");
    assert.equal(csvCell('+1-1', 'integer'), "'+1-1");
  });

  it('returns every DECIMAL text as it is for a numeric attribute (never a formula quote before a minus)', () => {
    fc.assert(fc.property(decimalTextArb, (text) => assert.equal(csvCell(text, 'number'), text)));
  });
});

describe('csvColumns and csvRow', () => {
  it("returns each column's kind, through associations, and undefined for what is not an attribute", () => {
    const columns = csvColumns(Product, {
      price: 'Price',
      'category.name': 'Category',
      label: 'Label',
      'category.missing': 'X',
      'brand.name': 'Brand',
    });
    assert.deepEqual(
      columns.map(({ path, header, kind }) => [path, header, kind]),
      [
        ['price', 'Price', 'number'],
        ['category.name', 'Category', 'string'],
        ['label', 'Label', undefined],
        ['category.missing', 'X', undefined],
        ['brand.name', 'Brand', undefined],
      ],
    );
  });

  it("returns a serialized record's cells: numbers as values, text guarded, missing associations empty", () => {
    const columns = csvColumns(Product, {
      name: 'Name',
      price: 'Price',
      stock: 'Stock',
      releasedAt: 'Released',
      'category.name': 'Category',
    });
    assert.deepEqual(
      csvRow(columns, { name: '-Minus', price: '-5.00', stock: -3, releasedAt: new Date(0), category: null }),
      ["'-Minus", '-5.00', '-3', '1970-01-01T00:00:00.000Z', ''],
    );
    assert.deepEqual(
      csvRow(columns, { name: 'Kite', price: '1.50', stock: null, releasedAt: null, category: { name: '=Books' } }),
      ['Kite', '1.50', '', '', "'=Books"],
    );
  });
});

describe('valueAt and includeTree', () => {
  it('returns values at dot paths, and the association tree they need', () => {
    assert.equal(valueAt({ category: { parent: { name: 'Root' } } }, 'category.parent.name'), 'Root');
    assert.equal(valueAt({ category: null }, 'category.name'), undefined);
    assert.deepEqual(includeTree(['name', 'category.name', 'category.parent.name']), {
      category: { name: {}, parent: { name: {} } },
    });
  });
});
