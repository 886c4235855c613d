import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { csvField, csvLine } from '../../lib/core/csv-line.js';

const cellArb = fc.oneof(
  fc.string(),
  fc.constantFrom('', '"', ',', '\n', '\r\n', 'a"b', ' x ', "'=1", '"quoted"'),
  fc.string({ unit: fc.constantFrom('a', '"', ',', '\n', '\r', ' ', 'é', '😀') }),
);

describe('csvLine', () => {
  it('returns the bytes csv-stringify writes with its defaults, line by line (law)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 5 })
          .chain((width) =>
            fc.tuple(
              fc.array(cellArb, { minLength: width, maxLength: width }),
              fc.array(fc.array(cellArb, { minLength: width, maxLength: width }), { maxLength: 5 }),
            ),
          ),
        ([header, rows]) => {
          assert.equal(
            csvLine(header) + rows.map(csvLine).join(''),
            stringify(rows, { header: true, columns: header }),
          );
        },
      ),
    );
  });

  it('returns a quoted cell with doubled quotes for a comma, quote or line break', () => {
    assert.equal(csvField('a "b", c'), '"a ""b"", c"');
    assert.equal(csvLine(['1', 'x\ny', '']), '1,"x\ny",\n');
  });
});
