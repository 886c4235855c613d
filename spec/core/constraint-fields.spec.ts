import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { foreignKeyColumns, visibleFields } from '../../lib/core/constraint-fields.js';
import { childDetail, columnNameArb } from '../arbitraries/constraint-arb.js';

describe('foreignKeyColumns', () => {
  it("returns the child columns of PostgreSQL's detail for a key that points nowhere, bare or quoted", () => {
    assert.deepEqual(foreignKeyColumns('Key ("authorId")=(0b1c) is not present in table "authors".'), ['authorId']);
    assert.deepEqual(foreignKeyColumns('Key (author_id)=(7) is not present in table "authors".'), ['author_id']);
    assert.deepEqual(foreignKeyColumns('Key (shop_id, "Sku")=(1, a) is not present in table "stock".'), [
      'shop_id',
      'Sku',
    ]);
    assert.deepEqual(foreignKeyColumns('Key ("a""b, c)")=(1) is not present in table "t".'), ['a"b, c)']);
  });

  it('returns no column for a row still referenced, or for any other text', () => {
    assert.deepEqual(foreignKeyColumns('Key (id)=(5) is still referenced from table "books".'), []);
    for (const detail of [
      undefined,
      null,
      5,
      '',
      'Key ()=(1) is not present in table "t".',
      'Key ("open)=(1) is not present',
      'Failing row contains (1).',
    ]) {
      assert.deepEqual(foreignKeyColumns(detail), [], String(detail));
    }
  });

  it('round-trips any column names as PostgreSQL writes them, whatever the values', () => {
    fc.assert(
      fc.property(
        fc.array(columnNameArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.string(), { minLength: 1, maxLength: 4 }),
        (columns, values) => {
          assert.deepEqual(foreignKeyColumns(childDetail(columns, values)), columns);
        },
      ),
    );
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => Array.isArray(foreignKeyColumns(`Key (${text}`))));
  });
});

describe('visibleFields', () => {
  const fields = {
    columns: new Map([
      ['serial_no', 'serialNo'],
      ['serialNo', 'serialNo'],
      ['token', 'token'],
      ['isbn', 'isbn'],
    ]),
    visible: new Set(['serialNo', 'isbn']),
  };

  it('returns each column as its attribute when every one is visible', () => {
    assert.deepEqual(visibleFields(['serial_no', 'isbn'], fields), ['serialNo', 'isbn']);
  });

  it('returns undefined when one column is hidden or belongs to no attribute', () => {
    assert.equal(visibleFields(['token'], fields), undefined);
    assert.equal(visibleFields(['isbn', 'token'], fields), undefined);
    assert.equal(visibleFields(['legacy_code'], fields), undefined);
  });

  it('returns the columns as they are without a resource', () => {
    assert.deepEqual(visibleFields(['serial_no'], undefined), ['serial_no']);
  });
});
