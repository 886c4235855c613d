/**
 * The providers' query building, against the server's own parser, with no server: every query
 * string a provider writes is parsed by the server's qs limits and planned by planSearch without a
 * failure, into the conditions the provider meant; operators the server lacks throw in the client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from 'koa-fast-crud';
import {
  KNOWN_PARAMS,
  OPERATORS,
  planOptions,
  planSearch,
  resolvePolicy,
  unknownParams,
  type Operator,
} from 'koa-fast-crud/core';
import { filterConditions, listQuery } from 'koa-fast-crud/react-admin';
import { REFINE_OPERATORS, refineConditions, refineQuery } from 'koa-fast-crud/refine';
import type { FilterOperator } from '../../lib/clients/protocol.js';
import {
  autocompleteLabel,
  BATCH_SIZE,
  batchesFor,
  inGroups,
  optionRecords,
  optionsParams,
  searchParams,
} from '../../lib/clients/protocol.js';
import { parseBrackets, QUERY_QS_OPTIONS } from '../../lib/core/qs-limits.js';
import type { FilterNode } from '../../lib/types.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Item = sequelize.define(
  'Item',
  { name: DataTypes.STRING(200), price: DataTypes.DECIMAL(10, 2), seenAt: DataTypes.DATE },
  { underscored: true },
);
const settings = {
  policy: resolvePolicy(Item, {}, DEFAULT_CONFIG),
  termKey: 'term',
  termFields: ['name'],
  config: DEFAULT_CONFIG,
  paginate: true,
};

/** What the server plans of a query string: the Right of planSearch, or a test failure naming its Left. */
function serverPlan(query: string) {
  const parsed = parseBrackets(query, 'the query', QUERY_QS_OPTIONS);
  assert.ok(E.isRight(parsed), `${query}: ${JSON.stringify(parsed)}`);
  assert.deepEqual(
    unknownParams(Object.keys(parsed.right), KNOWN_PARAMS.search),
    [],
    `${query} sends a parameter search does not read`,
  );
  const plan = planSearch(Item, parsed.right, settings);
  assert.ok(E.isRight(plan), `${query}: ${JSON.stringify(plan)}`);
  return plan.right;
}

/** Text the server keeps as sent: no surrounding blanks, no NUL, not empty. */
const textArb = fc
  .string({ minLength: 1, maxLength: 20 })
  .map((s) => s.replace(/\0/g, '').trim())
  .filter((s) => s !== '');
const numberArb = fc.integer({ min: -99999, max: 99999 }).map((n) => n / 100);

/** A value of the right shape for a Refine operator on `name` (text) or `price` (number). */
function refineFilterArb(operator: keyof typeof REFINE_OPERATORS) {
  const op = REFINE_OPERATORS[operator];
  const arity = OPERATORS[op];
  const textOnly = op === 'like';
  return fc.constantFrom(...(textOnly ? (['name'] as const) : (['name', 'price'] as const))).chain((field) => {
    const one: fc.Arbitrary<unknown> = field === 'name' ? textArb : numberArb;
    const value: fc.Arbitrary<unknown> =
      arity === 'none'
        ? fc.constantFrom(true, 1, 'x')
        : arity === 'one'
          ? one
          : arity === 'two'
            ? fc.tuple(one, one)
            : fc.array(one, { minLength: 1, maxLength: 8 });
    return value.map((v) => ({ field, operator, value: v }));
  });
}

describe('the refine provider query', () => {
  it('law: every supported operator, with any value of its shape, writes a query the server plans without a failure, as the operator meant', () => {
    const operatorArb = fc.constantFrom(...(Object.keys(REFINE_OPERATORS) as (keyof typeof REFINE_OPERATORS)[]));
    fc.assert(
      fc.property(
        operatorArb.chain(refineFilterArb),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 500 }),
        (filter, page, pageSize) => {
          const query = searchParams(
            refineQuery({
              filters: [filter],
              sorters: [{ field: 'price', order: 'desc' }],
              pagination: { currentPage: page, pageSize },
            }),
          );
          const plan = serverPlan(query);
          const [condition] = plan.conditions;
          assert.equal(plan.conditions.length, 1, query);
          assert.equal(condition!.op, REFINE_OPERATORS[filter.operator], query);
          assert.equal(condition!.attribute, filter.field);
          const expected =
            OPERATORS[condition!.op] === 'none'
              ? []
              : (Array.isArray(filter.value) ? filter.value : [filter.value]).map((v) =>
                  filter.field === 'price' ? Number(v) : v,
                );
          assert.deepEqual(
            condition!.values.map((v) => (typeof v === 'string' && filter.field === 'price' ? Number(v) : v)),
            expected,
            query,
          );
          assert.deepEqual(plan.order, [
            ['price', 'DESC'],
            ['id', 'ASC'],
          ]);
          assert.deepEqual(plan.page, { page, perPage: pageSize });
        },
      ),
    );
  });

  /** A Refine conditional filter (`or`/`and`) `depth` deep (1 to 3), of one to three filters each. */
  type Conditional = {
    operator: 'or' | 'and';
    value: (Conditional | { field: string; operator: string; value: unknown })[];
  };
  const operatorArb = fc.constantFrom(...(Object.keys(REFINE_OPERATORS) as (keyof typeof REFINE_OPERATORS)[]));
  const conditionalArb = (depth: number): fc.Arbitrary<Conditional> =>
    fc.record({
      operator: fc.constantFrom('or' as const, 'and' as const),
      value: fc.array(
        depth >= 3
          ? operatorArb.chain(refineFilterArb)
          : fc.oneof(
              { weight: 3, arbitrary: operatorArb.chain(refineFilterArb) },
              fc.constant(null).chain(() => conditionalArb(depth + 1)),
            ),
        { minLength: 1, maxLength: 3 },
      ),
    });
  type Shape = { group: string; items: (Shape | string)[][] };
  const expectedShape = (c: Conditional): Shape => ({
    group: c.operator,
    items: c.value.map((f) =>
      'field' in f
        ? [`${f.field} ${REFINE_OPERATORS[f.operator as keyof typeof REFINE_OPERATORS]}`]
        : [expectedShape(f)],
    ),
  });
  const planShape = (node: FilterNode): Shape | string =>
    'group' in node
      ? { group: node.group, items: node.items.map((item) => item.map(planShape)) }
      : `${node.attribute} ${node.op}`;

  it('law: Refine conditional filters (or, and, nested three deep) write $or/$and groups the server plans as the same tree', () => {
    fc.assert(
      fc.property(
        conditionalArb(1),
        fc.option(operatorArb.chain(refineFilterArb), { nil: undefined }),
        (conditional, beside) => {
          const filters = [...(beside === undefined ? [] : [beside]), conditional];
          const query = searchParams(refineQuery({ filters }));
          const plan = serverPlan(query);
          assert.equal(plan.conditions.length, beside === undefined ? 0 : 1, query);
          assert.deepEqual(plan.groups?.map(planShape), [expectedShape(conditional)], query);
        },
      ),
    );
  });

  it('writes a second or of one level as an item of its and, drops empty filters and groups, and keeps q out of groups', () => {
    const name = (value: string) => ({ field: 'name', operator: 'eq', value });
    const query = searchParams(
      refineQuery({
        filters: [
          { operator: 'or', value: [name('a'), name('b')] },
          {
            operator: 'or',
            value: [name('c'), { operator: 'and', value: [name(''), { field: 'price', operator: 'in', value: [] }] }],
          },
          { operator: 'and', value: [name('d')] },
        ],
        pagination: { mode: 'off' },
      }),
    );
    assert.equal(
      decodeURIComponent(query),
      'filter[$or][0][name][eq]=a&filter[$or][1][name][eq]=b&filter[$and][0][name][eq]=d&' +
        'filter[$and][1][$or][0][name][eq]=c&skipPagination=true',
    );
    assert.deepEqual(serverPlan(query).groups?.map(planShape), [
      { group: 'or', items: [['name eq'], ['name eq']] },
      { group: 'and', items: [['name eq'], [{ group: 'or', items: [['name eq']] }]] },
    ]);
    assert.deepEqual(refineConditions([{ operator: 'or', value: [name('')] }]), { conditions: [], term: undefined });
    assert.throws(
      () => refineConditions([{ operator: 'or', value: [{ field: 'q', operator: 'contains', value: 'x' }] }]),
      /the search field "q" cannot be inside an "or" filter/,
    );
  });

  it('law: any other operator throws an Error naming it', () => {
    const other = fc.oneof(
      fc.constantFrom(
        'eqs',
        'nes',
        'ina',
        'nina',
        'ncontains',
        'containss',
        'ncontainss',
        'nbetween',
        'startswith',
        'nstartswith',
        'startswiths',
        'nstartswiths',
        'endswith',
        'nendswith',
        'endswiths',
        'nendswiths',
        'or',
        'and',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(
        other.filter((op) => !Object.hasOwn(REFINE_OPERATORS, op)),
        (operator) => {
          assert.throws(
            () => refineConditions([{ field: 'name', operator, value: 'x' }]),
            (error: Error) => error.message.includes(`the filter operator ${JSON.stringify(operator)}`),
          );
        },
      ),
    );
  });

  it('returns the term search for q, nothing for an empty value, and throws for a field and operator given twice', () => {
    assert.deepEqual(refineConditions([{ field: 'q', operator: 'contains', value: 'pan' }]), {
      conditions: [],
      term: 'pan',
    });
    assert.deepEqual(
      refineConditions([
        { field: 'name', operator: 'eq', value: '' },
        { field: 'price', operator: 'in', value: [] },
      ]).conditions,
      [],
    );
    assert.throws(
      () =>
        refineConditions([
          { field: 'price', operator: 'gte', value: 1 },
          { field: 'price', operator: 'gte', value: 2 },
        ]),
      /given twice/,
    );
    assert.equal(searchParams(refineQuery({ pagination: { mode: 'off' } })), 'skipPagination=true');
  });
});

describe('the react-admin provider query', () => {
  it('law: a suffix names the operator, a plain key is eq, an array in, and the server plans them without a failure', () => {
    const ops = (Object.keys(OPERATORS) as Operator[]).filter((op) => op !== 'json');
    fc.assert(
      fc.property(
        fc.constantFrom(...ops),
        fc.constantFrom('name', 'price'),
        textArb,
        numberArb,
        fc.option(textArb, { nil: undefined }),
        (op, field, text, number, q) => {
          fc.pre(op !== 'like' || field === 'name');
          const one = field === 'name' ? text : number;
          const value =
            OPERATORS[op] === 'none'
              ? true
              : OPERATORS[op] === 'one'
                ? one
                : OPERATORS[op] === 'two'
                  ? [one, one]
                  : [one];
          const query = searchParams(
            listQuery({
              filter: { [`${field}_${op}`]: value, ...(q !== undefined && { q }) },
              sort: { field: 'name', order: 'ASC' },
              pagination: { page: 2, perPage: 7 },
            }),
          );
          const plan = serverPlan(query);
          assert.deepEqual(
            plan.conditions.map((c) => [c.attribute, c.op]),
            [[field, op]],
            query,
          );
          assert.equal(plan.term?.text, q);
        },
      ),
    );
  });

  it('returns eq for a plain key, in for an array, null for null, the operators of a nested object, and nothing for empty values', () => {
    assert.deepEqual(
      filterConditions({ name: 'a', price: [1, 2], seenAt: null, deletedAt_nn: false, sku: '', tags: [] }),
      [
        { field: 'name', op: 'eq', value: 'a' },
        { field: 'price', op: 'in', value: [1, 2] },
        { field: 'seenAt', op: 'null' },
      ],
    );
    assert.deepEqual(filterConditions({ price: { gte: 1, lt: 9 }, created_at: '2024' }), [
      { field: 'price', op: 'gte', value: 1 },
      { field: 'price', op: 'lt', value: 9 },
      { field: 'created_at', op: 'eq', value: '2024' },
    ]);
    assert.throws(() => filterConditions({ price: { above: 1 } }), /unknown filter operator "above" on "price"/);
  });

  it('writes a list with a comma in the bracket form, dates in ISO 8601, and json as JSON', () => {
    assert.equal(
      searchParams({ conditions: [{ field: 'name', op: 'in', value: ['a,b', 'c'] }] }),
      'filter[name][in][]=a%2Cb&filter[name][in][]=c',
    );
    assert.equal(
      searchParams({ conditions: [{ field: 'seenAt', op: 'gte', value: new Date(0) }] }),
      'filter[seenAt][gte]=1970-01-01T00%3A00%3A00.000Z',
    );
    assert.equal(
      searchParams({ conditions: [{ field: 'tags', op: 'json', value: ['red'] }] }),
      `filter[tags][json]=${encodeURIComponent('["red"]')}`,
    );
    const plan = serverPlan(searchParams({ conditions: [{ field: 'name', op: 'in', value: ['a,b', 'c'] }] }));
    assert.deepEqual(plan.conditions[0]!.values, ['a,b', 'c']);
  });
});

describe('FilterOperator', () => {
  it("is exactly the server's operators (OPERATORS)", () => {
    const both: Record<FilterOperator, true> & Record<Operator, true> = {
      eq: true,
      neq: true,
      like: true,
      gt: true,
      gte: true,
      lt: true,
      lte: true,
      gtn: true,
      ltn: true,
      json: true,
      in: true,
      nin: true,
      btw: true,
      nn: true,
      null: true,
    };
    type Same = [FilterOperator] extends [Operator] ? ([Operator] extends [FilterOperator] ? true : false) : false;
    const same: Same = true;
    assert.ok(same);
    assert.deepEqual(Object.keys(both).sort(), Object.keys(OPERATORS).sort());
  });
});

describe('the batch option', () => {
  it('batchesFor: true names every resource, a list its names (slashes aside), absent or false none', () => {
    assert.equal(batchesFor({ batch: true }, 'products'), true);
    assert.equal(batchesFor({ batch: ['products'] }, '/products/'), true);
    assert.equal(batchesFor({ batch: ['products'] }, 'categories'), false);
    assert.equal(batchesFor({ batch: false }, 'products'), false);
    assert.equal(batchesFor({}, 'products'), false);
    assert.ok(BATCH_SIZE <= DEFAULT_CONFIG.batch.max_records, 'a default group stays within the default cap');
  });

  it('inGroups sends every item once, in order, in groups of at most the size, one after the other', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        async (items, size) => {
          let running = 0;
          const groups = await inGroups(items, size, async (group) => {
            running += 1;
            assert.equal(running, 1, 'groups overlap');
            await Promise.resolve();
            running -= 1;
            return group;
          });
          assert.deepEqual(groups.flat(), items);
          assert.ok(groups.every((group) => group.length >= 1 && group.length <= size));
          assert.equal(groups.length, Math.ceil(items.length / size));
        },
      ),
    );
  });

  it('inGroups stops at the first group that fails', async () => {
    const sent: number[][] = [];
    await assert.rejects(
      inGroups([1, 2, 3, 4, 5], 2, async (group) => {
        sent.push(group);
        if (group.includes(3)) throw new Error('refused');
      }),
      /refused/,
    );
    assert.deepEqual(sent, [
      [1, 2],
      [3, 4],
    ]);
  });
});

describe('the autocomplete option', () => {
  it('names a resource by its crud uri, with or without slashes, and no other', () => {
    assert.equal(autocompleteLabel({ autocomplete: { categories: 'name' } }, '/categories/'), 'name');
    assert.equal(autocompleteLabel({ autocomplete: { categories: 'name' } }, 'products'), undefined);
    assert.equal(autocompleteLabel({ autocomplete: { categories: 'name' } }, 'constructor'), undefined);
    assert.equal(autocompleteLabel({}, 'categories'), undefined);
  });

  it('sends what the server plans as the same q, the same conditions and page × perPage within max_limit (law)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }).map((s) => s.replace(/\0/g, '')),
        fc.uniqueArray(fc.tuple(fc.constantFrom('gte', 'lt'), numberArb), { maxLength: 2, selector: ([op]) => op }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 60 }),
        (q, bounds, page, perPage) => {
          const conditions = bounds.map(([op, value]) => ({ field: 'price', op: op as FilterOperator, value }));
          const query = { label: 'name', value: 'id', q, conditions, page, perPage };
          const parsed = parseBrackets(optionsParams(query), 'the query');
          assert.ok(E.isRight(parsed));
          const request = { ...parsed.right, label: 'name', value: 'id' };
          const plan = planOptions(Item, request, settings);
          assert.ok(E.isRight(plan), JSON.stringify(plan));
          assert.equal(plan.right.search?.text ?? '', q.trim());
          assert.equal(plan.right.limit, Math.min(page * perPage, DEFAULT_CONFIG.options.max_limit));
          assert.deepEqual(
            plan.right.conditions.map((c) => [c.op, c.values]),
            bounds.map(([op, value]) => [op, [value]]),
          );
        },
      ),
    );
  });

  it('answers the page of the items the route gave as records, and whether more may follow', () => {
    const items = ['A', 'B', 'C', 'D', 'E'].map((label, i) => ({ label, value: i + 1 }));
    const query = { label: 'name', value: 'id', q: '', conditions: [], page: 2, perPage: 2 };
    assert.deepEqual(optionRecords(items.slice(0, 4), query), {
      records: [
        { id: 3, name: 'C' },
        { id: 4, name: 'D' },
      ],
      hasMore: true,
    });
    assert.deepEqual(optionRecords(items.slice(0, 3), query), { records: [{ id: 3, name: 'C' }], hasMore: false });
    assert.deepEqual(optionRecords([{ label: 'A', value: 'x' }], { ...query, value: 'code', page: 1 }).records, [
      { id: 'x', code: 'x', name: 'A' },
    ]);
  });
});
