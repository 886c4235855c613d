import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { unreadableJsonFilters } from '../../lib/core/json-filter-failure.js';
import type { Condition } from '../../lib/types.js';

const json = (attribute: string, relation?: string[]): Condition => ({
  attribute,
  column: attribute,
  op: 'json',
  values: [{ a: 1 }],
  relation,
});
const eq = (attribute: string): Condition => ({ attribute, column: attribute, op: 'eq', values: [1] });

describe('unreadableJsonFilters', () => {
  it("returns one tooDeep item naming each json filter's field, a relation's by its path", () => {
    const items = unreadableJsonFilters([eq('name'), json('meta'), json('meta'), json('meta', ['category'])]);
    assert.deepEqual(
      items.map((i) => [i.field, i.error]),
      [
        ['meta', 'tooDeep'],
        ['category.meta', 'tooDeep'],
      ],
    );
    assert.match(items[0]!.message, /^filter\[meta\]\[json\] cannot run: .*1,000 levels/);
  });

  it('returns no item for a plan without json filters', () => {
    assert.deepEqual(unreadableJsonFilters([]), []);
    assert.deepEqual(unreadableJsonFilters([eq('name')]), []);
  });

  it('law: names exactly the distinct fields of the json conditions', () => {
    const conditionArb = fc.record({
      attribute: fc.constantFrom('meta', 'tags', 'name'),
      op: fc.constantFrom('json', 'eq', 'like') as fc.Arbitrary<Condition['op']>,
    });
    fc.assert(
      fc.property(fc.array(conditionArb, { maxLength: 6 }), (specs) => {
        const conditions = specs.map(({ attribute, op }): Condition => ({
          attribute,
          column: attribute,
          op,
          values: ['x'],
        }));
        const expected = new Set(specs.filter((c) => c.op === 'json').map((c) => c.attribute));
        assert.deepEqual(new Set(unreadableJsonFilters(conditions).map((i) => i.field)), expected);
        assert.equal(unreadableJsonFilters(conditions).length, expected.size);
      }),
    );
  });
});
