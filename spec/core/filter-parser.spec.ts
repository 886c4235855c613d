import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { everyCondition, FILTER_GROUP_DEPTH, OPERATORS, parseFilters } from '../../lib/core/filter-parser.js';
import type { Condition, FilterNode, Operator } from '../../lib/types.js';
import { blankArb, paddingArb } from '../arbitraries/filter-value-arb.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Product = sequelize.define('Product', {
  id: { type: DataTypes.INTEGER, primaryKey: true },
  name: DataTypes.STRING(20),
  price: DataTypes.DECIMAL(10, 2),
  active: DataTypes.BOOLEAN,
  tags: DataTypes.JSON,
  secret: DataTypes.STRING,
  category_id: DataTypes.INTEGER,
  seenAt: DataTypes.DATE,
  day: DataTypes.DATEONLY,
});
const settings = {
  policy: resolvePolicy(Product, { hidden: ['secret'] }, DEFAULT_CONFIG),
  termKey: 'term',
  termFields: ['name'],
};

describe('parseFilters', () => {
  it('returns typed conditions, a bare value meaning eq', () => {
    const parsed = parseFilters(
      Product,
      { price: { gte: '10', btw: '1,2' }, active: 'true', name: { in: 'a,b' } },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.conditions, [
      { attribute: 'price', column: 'price', op: 'gte', values: [10] },
      { attribute: 'price', column: 'price', op: 'btw', values: [1, 2] },
      { attribute: 'active', column: 'active', op: 'eq', values: [true] },
      { attribute: 'name', column: 'name', op: 'in', values: ['a', 'b'] },
    ]);
  });

  it('returns the term search over the term fields, marking those that do not hold text', () => {
    assert.deepEqual(parseFilters(Product, { term: 'pho' }, settings).term, {
      columns: [{ column: 'name', isText: true }],
      text: 'pho',
    });
    const numeric = { ...settings, termFields: ['name', 'price'] };
    assert.deepEqual(parseFilters(Product, { term: '12' }, numeric).term?.columns, [
      { column: 'name', isText: true },
      { column: 'price', isText: false },
    ]);
  });

  it('returns null (IS NULL) on a column of any kind, json included, reading no value', () => {
    const { conditions, failures } = parseFilters(
      Product,
      { tags: { null: '1' }, price: { null: '' }, seenAt: { null: 'x' } },
      settings,
    );
    assert.deepEqual(failures, []);
    assert.deepEqual(
      conditions.map((c) => [c.attribute, c.op, c.values]),
      [
        ['tags', 'null', []],
        ['price', 'null', []],
        ['seenAt', 'null', []],
      ],
    );
  });

  it('returns the JSON value for json, raw text when it is not JSON', () => {
    const { conditions } = parseFilters(Product, { tags: { json: '["a"]' } }, settings);
    assert.deepEqual(conditions[0]?.values, [['a']]);
    assert.deepEqual(parseFilters(Product, { tags: { json: 'red' } }, settings).conditions[0]?.values, ['red']);
  });

  it('returns one failure per problem, naming the column as written', () => {
    const { failures } = parseFilters(
      Product,
      { colour: 'x', secret: 'x', name: { regex: 'x' }, price: { like: '1', gt: 'x' }, tags: 'x', active: 'maybe' },
      settings,
    );
    assert.deepEqual(
      failures.map((f) => [f.field, f.error]),
      [
        ['colour', 'columnNotFound'],
        ['secret', 'columnNotFound'],
        ['name', 'invalidOperator'],
        ['price', 'invalidOperator'],
        ['price', 'invalidValue'],
        ['tags', 'invalidOperator'],
        ['active', 'invalidValue'],
      ],
    );
  });

  it('returns a failure for a filter that is not an object, and for NUL characters', () => {
    assert.equal(parseFilters(Product, 'oops', settings).failures[0]?.field, 'filter');
    assert.equal(parseFilters(Product, { name: 'a\u0000b' }, settings).failures[0]?.error, 'invalidValue');
  });

  it('returns the attribute for a camelCase name of an underscored attribute, as sort resolves it', () => {
    assert.deepEqual(parseFilters(Product, { categoryId: '5' }, settings).conditions, [
      { attribute: 'category_id', column: 'category_id', op: 'eq', values: [5] },
    ]);
  });

  it('returns trimmed values, and no condition for an empty or blank one (nn and null aside)', () => {
    const parsed = parseFilters(
      Product,
      {
        name: { like: '  test  ', eq: ' ', in: ' a ,, b,' },
        price: { gt: '' },
        day: { nn: '', null: ' ' },
        tags: { json: ' ' },
      },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.conditions, [
      { attribute: 'name', column: 'name', op: 'like', values: ['test'] },
      { attribute: 'name', column: 'name', op: 'in', values: ['a', 'b'] },
      { attribute: 'day', column: 'day', op: 'nn', values: [] },
      { attribute: 'day', column: 'day', op: 'null', values: [] },
    ]);
    assert.deepEqual(parseFilters(Product, { term: '  pho ' }, settings).term?.text, 'pho');
    assert.equal(parseFilters(Product, { term: '   ' }, { ...settings, termFields: [] }).term, null);
  });

  it('returns gte or lte for a btw with one side empty, and nothing when both are', () => {
    assert.deepEqual(parseFilters(Product, { price: { btw: '5, ' } }, settings).conditions, [
      { attribute: 'price', column: 'price', op: 'gte', values: [5] },
    ]);
    assert.deepEqual(parseFilters(Product, { price: { btw: ',9' } }, settings).conditions, [
      { attribute: 'price', column: 'price', op: 'lte', values: [9] },
    ]);
    assert.deepEqual(parseFilters(Product, { price: { btw: ' , ' } }, settings), {
      conditions: [],
      term: null,
      failures: [],
    });
    assert.equal(parseFilters(Product, { price: { btw: '5' } }, settings).failures[0]?.error, 'invalidValue');
  });

  it('returns date bounds: a date-only or month value covers all of it, in the given time zone', () => {
    const iso = (values: readonly unknown[]) => values.map((v) => (v instanceof Date ? v.toISOString() : v));
    const { conditions } = parseFilters(
      Product,
      { seenAt: { btw: '2024-01,2024-03', lte: '2024-12-31' }, day: { btw: '2024-01,2024-03' } },
      { ...settings, timezone: '+02:00' },
    );
    assert.deepEqual(
      conditions.map((c) => [c.op, iso(c.values)]),
      [
        ['btw', ['2023-12-31T22:00:00.000Z', '2024-03-31T21:59:59.999Z']],
        ['lte', ['2024-12-31T21:59:59.999Z']],
        ['btw', ['2024-01-01', '2024-03-31']],
      ],
    );
  });

  it('returns invalidValue naming the field for a date that does not exist', () => {
    assert.deepEqual(parseFilters(Product, { seenAt: { gte: '2024-02-30' } }, settings).failures, [
      { field: 'seenAt', error: 'invalidValue', message: 'seenAt must be a date that exists: 2024-02 has 29 days' },
    ]);
  });

  it('an empty or blank value never adds a condition', () => {
    const ops = (Object.keys(OPERATORS) as Operator[]).filter((op) => OPERATORS[op] !== 'none');
    fc.assert(
      fc.property(
        fc.constantFrom('name', 'price', 'active', 'tags', 'category_id', 'seenAt', 'day'),
        fc.constantFrom(...ops),
        blankArb,
        blankArb,
        (column, op, blank, other) => {
          const value = OPERATORS[op] === 'one' ? blank : `${blank},${other}`;
          const parsed = parseFilters(Product, { [column]: { [op]: value }, term: blank }, settings);
          assert.deepEqual(parsed.conditions, []);
          assert.equal(parsed.term, null);
          assert.ok(parsed.failures.every((f) => f.error === 'invalidOperator'));
        },
      ),
    );
  });

  it('trimming is idempotent: a padded value parses as the trimmed one, and trimming twice changes nothing', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('5', '2024-12-31', '2024-03', 'true', '1,2', 'a, b', '["a"]'),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('name', 'price', 'active', 'tags', 'seenAt', 'day'),
        fc.constantFrom(...(Object.keys(OPERATORS) as Operator[])),
        value,
        paddingArb,
        (column, op, text, [left, right]) => {
          const once = parseFilters(Product, { [column]: { [op]: text.trim() } }, settings);
          const padded = parseFilters(Product, { [column]: { [op]: `${left}${text}${right}` } }, settings);
          const twice = parseFilters(Product, { [column]: { [op]: text.trim().trim() } }, settings);
          assert.deepEqual(padded.conditions, once.conditions);
          assert.deepEqual(twice, once);
          assert.deepEqual(
            padded.failures.map((f) => f.error),
            once.failures.map((f) => f.error),
          );
        },
      ),
    );
  });

  it('never throws, and every condition uses a known operator on a filterable attribute', () => {
    const spec = fc.oneof(
      fc.string(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.array(fc.string()))),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(fc.constantFrom('name', 'price', 'active', 'tags', 'secret', 'term'), fc.string()),
          spec,
        ),
        (filter) => {
          const parsed = parseFilters(Product, filter, settings);
          for (const c of parsed.conditions) {
            assert.ok(Object.hasOwn(OPERATORS, c.op));
            assert.ok(settings.policy.filterable.has(c.attribute));
          }
        },
      ),
    );
  });
});

describe('parseFilters with $or and $and groups', () => {
  const eq = (attribute: string, value: unknown): Condition => ({
    attribute,
    column: attribute,
    op: 'eq',
    values: [value],
  });

  it('returns a group per $or or $and key, each item a filter object of ANDed conditions, beside the conditions', () => {
    const parsed = parseFilters(
      Product,
      {
        active: 'true',
        $or: [{ name: { like: 'x' } }, { price: { lt: '5' }, name: 'b' }],
        $and: [{ price: { gt: '1' } }],
      },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.conditions, [eq('active', true)]);
    assert.deepEqual(parsed.groups, [
      {
        group: 'or',
        items: [
          [{ attribute: 'name', column: 'name', op: 'like', values: ['x'] }],
          [{ attribute: 'price', column: 'price', op: 'lt', values: [5] }, eq('name', 'b')],
        ],
      },
      { group: 'and', items: [[{ attribute: 'price', column: 'price', op: 'gt', values: [1] }]] },
    ]);
    assert.equal(parseFilters(Product, { name: 'a' }, settings).groups, undefined, 'no groups key without groups');
  });

  it('nests groups three deep ($or › $and › $or), and refuses a fourth naming its path', () => {
    const deepest = { $or: [{ $and: [{ $or: [{ name: 'a' }, { price: { in: ['1', '2'] } }] }, { active: '1' }] }] };
    const parsed = parseFilters(Product, deepest, settings);
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.groups, [
      {
        group: 'or',
        items: [
          [
            {
              group: 'and',
              items: [
                [
                  {
                    group: 'or',
                    items: [[eq('name', 'a')], [{ attribute: 'price', column: 'price', op: 'in', values: [1, 2] }]],
                  },
                ],
                [eq('active', true)],
              ],
            },
          ],
        ],
      },
    ]);
    const tooDeep = parseFilters(Product, { $or: [{ $and: [{ $or: [{ $and: [{ name: 'a' }] }] }] }] }, settings);
    assert.deepEqual(
      tooDeep.failures.map((f) => [f.field, f.error]),
      [['filter.$or.0.$and.0.$or.0.$and', 'invalidValue']],
    );
    assert.match(tooDeep.failures[0]!.message, /deeper than 3/);
  });

  it('names the path of every mistake inside a group: unknown keys, wrong nesting, empty groups, bad values', () => {
    const { failures } = parseFilters(
      Product,
      {
        $or: [{ name: { like: 'x' } }, { price: { lt: 'cheap' } }, { colour: 'red', name: { regex: 'x' } }, 'x'],
        $and: [],
        $xor: [{ name: 'a' }],
        $not: 'x',
      },
      settings,
    );
    assert.deepEqual(
      failures.map((f) => [f.field, f.error]),
      [
        ['filter.$or.1.price', 'invalidValue'],
        ['filter.$or.2.colour', 'columnNotFound'],
        ['filter.$or.2.name', 'invalidOperator'],
        ['filter.$or.3', 'invalidValue'],
        ['filter.$and', 'invalidValue'],
        ['filter.$xor', 'invalidOperator'],
        ['filter.$not', 'invalidOperator'],
      ],
    );
    assert.equal(failures[0]!.message, 'filter.$or.1.price must be a number');
    for (const wrong of ['x', '', { 0: { name: 'a' } }, [[{ name: 'a' }]]]) {
      const parsed = parseFilters(Product, { $or: wrong }, settings);
      assert.deepEqual(
        parsed.failures.map((f) => f.error),
        ['invalidValue'],
        JSON.stringify(wrong),
      );
      assert.match(String(parsed.failures[0]!.field), /^filter\.\$or/);
    }
    const secret = parseFilters(Product, { $and: [{ secret: 'x' }] }, settings);
    assert.deepEqual(
      secret.failures.map((f) => [f.field, f.error]),
      [['filter.$and.0.secret', 'columnNotFound']],
    );
    const term = parseFilters(Product, { $or: [{ term: 'x' }] }, settings);
    assert.deepEqual(
      term.failures.map((f) => [f.field, f.error]),
      [['filter.$or.0.term', 'invalidValue']],
    );
  });

  it('drops an item whose values are all empty, and a group left without items, as it drops an empty field', () => {
    const parsed = parseFilters(
      Product,
      { $or: [{ name: '' }, { price: { lt: '5' } }], $and: [{ name: { like: ' ' } }] },
      settings,
    );
    assert.deepEqual(parsed.failures, []);
    assert.deepEqual(parsed.groups, [
      { group: 'or', items: [[{ attribute: 'price', column: 'price', op: 'lt', values: [5] }]] },
    ]);
    assert.equal(parseFilters(Product, { $or: [{ name: '' }] }, settings).groups, undefined);
  });

  it('everyCondition returns the conditions at every depth', () => {
    const parsed = parseFilters(Product, { name: 'a', $or: [{ price: '1' }, { $and: [{ active: '0' }] }] }, settings);
    assert.deepEqual(
      everyCondition(parsed).map((c) => c.attribute),
      ['name', 'price', 'active'],
    );
  });

  const specArb = fc.oneof(
    fc.constantFrom('5', ' ', 'x', '1,2', 'true', '2024-01'),
    fc.dictionary(fc.constantFrom('eq', 'lt', 'in', 'like', 'nn', 'btw', 'zz'), fc.constantFrom('5', '', 'a', '1,2')),
  );
  const objectArb = fc.dictionary(fc.constantFrom('name', 'price', 'active', 'day', 'secret', 'nope'), specArb, {
    minKeys: 1,
    maxKeys: 3,
  });
  // A message starting with the field (`price must be a number`) starts with the path; others name the column.
  const prefixed = (parsed: ReturnType<typeof parseFilters>, prefix: string) =>
    parsed.failures.map((f) => ({
      ...f,
      field: `${prefix}${f.field}`,
      message: f.message.startsWith(`${f.field} `) ? `${prefix}${f.message}` : f.message,
    }));

  it('a filter object means the same at the top and as the one item of a $and or $or, its failures under the path (property)', () => {
    fc.assert(
      fc.property(objectArb, fc.constantFrom('$or', '$and'), (object, key) => {
        const top = parseFilters(Product, object, settings);
        const grouped = parseFilters(Product, { [key]: [object] }, settings);
        assert.deepEqual(grouped.failures, prefixed(top, `filter.${key}.0.`));
        if (top.failures.length > 0) return;
        assert.deepEqual(
          grouped.groups,
          top.conditions.length === 0 ? undefined : [{ group: key.slice(1), items: [top.conditions] }],
        );
        assert.deepEqual(grouped.conditions, []);
      }),
    );
  });

  it('nests any filter object up to FILTER_GROUP_DEPTH groups and no deeper, never throwing (property)', () => {
    fc.assert(
      fc.property(
        objectArb,
        fc.array(fc.constantFrom('$or', '$and'), { minLength: 1, maxLength: 5 }),
        (object, keys) => {
          const filter = keys.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: [inner] }), object);
          const parsed = parseFilters(Product, filter, settings);
          if (keys.length > FILTER_GROUP_DEPTH) {
            assert.equal(parsed.failures.length, 1);
            assert.equal(parsed.failures[0]!.field, `filter.${keys.slice(0, FILTER_GROUP_DEPTH + 1).join('.0.')}`);
            return;
          }
          const top = parseFilters(Product, object, settings);
          assert.deepEqual(parsed.failures.length, top.failures.length);
          if (top.failures.length > 0) return;
          assert.deepEqual(everyCondition(parsed), top.conditions);
          const depth = (nodes: readonly FilterNode[]): number =>
            Math.max(0, ...nodes.map((n) => ('group' in n ? 1 + Math.max(...n.items.map(depth)) : 0)));
          assert.equal(depth(parsed.groups ?? []), top.conditions.length === 0 ? 0 : keys.length);
        },
      ),
    );
  });
});
