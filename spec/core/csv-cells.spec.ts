import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { csvCell, includeTree, valueAt } from '../../lib/core/csv-cells.js';

describe('csvCell', () => {
  it('returns formula-looking text prefixed with a quote', () => {
    assert.deepEqual(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'].map(csvCell), ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx"]);
  });

  it('returns empty for null, ISO for dates, JSON for objects, text for the rest', () => {
    assert.deepEqual([null, undefined, new Date(0), { a: 1 }, -5, true, 'plain'].map(csvCell), ['', '', '1970-01-01T00:00:00.000Z', '{"a":1}', '-5', 'true', 'plain']);
  });

  it('never returns text or JSON a spreadsheet would run (numbers stay numbers)', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.object(), fc.array(fc.jsonValue())), (value) => assert.doesNotMatch(csvCell(value), /^[=+\-@\t\r]/)));
  });
});

describe('valueAt and includeTree', () => {
  it('returns values at dot paths, and the association tree they need', () => {
    assert.equal(valueAt({ category: { parent: { name: 'Root' } } }, 'category.parent.name'), 'Root');
    assert.equal(valueAt({ category: null }, 'category.name'), undefined);
    assert.deepEqual(includeTree(['name', 'category.name', 'category.parent.name']), { category: { name: {}, parent: { name: {} } } });
  });
});
