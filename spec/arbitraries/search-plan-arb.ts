/** Arbitrary checked search plans over the catalog's Product, valid by construction, every client string marked. */
import fc from 'fast-check';
import type {
  Condition,
  ConditionGroup,
  FilterNode,
  Operator,
  Order,
  SearchPlan,
  TermSearch,
} from '../../lib/types.js';

/** Starts every client string: no identifier the compiler writes contains it, so outside a literal it is a leak. */
export const MARKER = '§';

/** A client string: the marker, then anything a client could send (quotes, backslashes, wildcards) but NUL. */
export const clientTextArb = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom("'", "''", '\\', '"', '`', '%', '_', '$', '?', ':x', '\n', ';', '--', '/*'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 12,
  })
  .map((s) => MARKER + s.replaceAll('\u0000', ''));

/** A JSON value whose strings and keys are client strings. */
const clientJsonArb: fc.Arbitrary<unknown> = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    clientTextArb,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(clientTextArb, tie('json'), { maxKeys: 3 }),
  ),
})).json;

type Kind = 'text' | 'integer' | 'decimal' | 'boolean' | 'dateonly' | 'date' | 'uuid' | 'json';

/** The catalog Product's attributes: column and kind. */
const ATTRIBUTES: Readonly<Record<string, { column: string; kind: Kind }>> = {
  id: { column: 'id', kind: 'uuid' },
  sku: { column: 'sku', kind: 'text' },
  name: { column: 'name', kind: 'text' },
  price: { column: 'price', kind: 'decimal' },
  stock: { column: 'stock', kind: 'integer' },
  active: { column: 'active', kind: 'boolean' },
  releasedOn: { column: 'released_on', kind: 'dateonly' },
  tags: { column: 'tags', kind: 'json' },
  secret: { column: 'secret', kind: 'text' },
  categoryId: { column: 'category_id', kind: 'uuid' },
  deletedAt: { column: 'deleted_at', kind: 'date' },
  deletedBy: { column: 'deleted_by', kind: 'text' },
  createdAt: { column: 'created_at', kind: 'date' },
};

const VALUES: Readonly<Record<Kind, fc.Arbitrary<unknown>>> = {
  text: clientTextArb,
  integer: fc.integer({ min: -2147483648, max: 2147483647 }),
  decimal: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e8, max: 1e8 }),
  boolean: fc.boolean(),
  dateonly: fc
    .date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  date: fc.date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
  uuid: fc.uuid().map((u) => u.toLowerCase()),
  json: clientJsonArb,
};

const SCALAR_OPS: readonly Operator[] = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'gtn', 'ltn'];

function conditionArb(attribute: string): fc.Arbitrary<Condition> {
  const { column, kind } = ATTRIBUTES[attribute]!;
  const value = VALUES[kind];
  const of = (op: Operator, values: fc.Arbitrary<unknown[]>) =>
    values.map((vs): Condition => ({ attribute, column, op, values: vs }));
  if (kind === 'json')
    return fc.oneof(
      of(
        'json',
        value.map((v) => [v]),
      ),
      of('nn', fc.constant([])),
      of('null', fc.constant([])),
    );
  // Date-only, month and year values of eq, neq, in and nin are spans (parseDateSpan).
  const spanned =
    kind === 'date' || kind === 'dateonly'
      ? [
          fc.constantFrom<Operator>('eq', 'neq', 'in', 'nin').chain((op) =>
            of(
              op,
              fc.array(
                fc.tuple(value, value).map(([from, to]) => ({ from, to })),
                { minLength: 1, maxLength: 3 },
              ),
            ),
          ),
        ]
      : [];
  return fc.oneof(
    ...spanned,
    fc.constantFrom(...SCALAR_OPS).chain((op) =>
      of(
        op,
        value.map((v) => [v]),
      ),
    ),
    fc.constantFrom<Operator>('in', 'nin').chain((op) => of(op, fc.array(value, { minLength: 1, maxLength: 4 }))),
    of('btw', fc.tuple(value, value)),
    of('nn', fc.constant([])),
    of('null', fc.constant([])),
    ...(kind === 'text'
      ? [
          of(
            'like',
            clientTextArb.map((v) => [v]),
          ),
        ]
      : []),
  );
}

const termArb: fc.Arbitrary<TermSearch> = fc.record({
  columns: fc
    .subarray(
      Object.values(ATTRIBUTES).filter((a) => a.kind !== 'json' && a.kind !== 'boolean'),
      { minLength: 1 },
    )
    .map((as) => as.map(({ column, kind }) => ({ column, isText: kind === 'text' }))),
  text: clientTextArb,
});

const orderArb: fc.Arbitrary<Order[]> = fc
  .uniqueArray(
    fc.tuple(
      fc.constantFrom(...Object.keys(ATTRIBUTES).filter((a) => a !== 'id' && a !== 'tags')),
      fc.constantFrom<Order[1]>('ASC', 'DESC'),
    ),
    { maxLength: 3, selector: ([a]) => a },
  )
  .map((order) => [...order, ['id', 'ASC'] as Order]);

const anyConditionArb = fc.constantFrom(...Object.keys(ATTRIBUTES)).chain(conditionArb);

/** A `$or`/`$and` group `depth` groups down (1 to 3), each item one to three nodes, never empty. */
function groupArb(depth: number): fc.Arbitrary<ConditionGroup> {
  const node: fc.Arbitrary<FilterNode> =
    depth >= 3
      ? anyConditionArb
      : fc.oneof(
          { weight: 3, arbitrary: anyConditionArb },
          { weight: 1, arbitrary: fc.constant(null).chain(() => groupArb(depth + 1)) },
        );
  return fc.record({
    group: fc.constantFrom<ConditionGroup['group']>('or', 'and'),
    items: fc.array(fc.array(node, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  });
}

/** Every condition of a node list, inside groups too. */
const flat = (nodes: readonly FilterNode[]): Condition[] =>
  nodes.flatMap((node) => ('group' in node ? node.items.flatMap(flat) : [node]));

/** A plan as planSearch would return for the catalog's Product, and the marker its client strings carry. */
export const searchPlanArb = fc
  .record({
    conditions: fc.uniqueArray(anyConditionArb, {
      maxLength: 4,
      selector: (c) => c.attribute,
    }),
    groups: fc.option(fc.array(groupArb(1), { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 3 }),
    term: fc.option(termArb, { nil: null }),
    order: orderArb,
    page: fc.option(fc.record({ page: fc.integer({ min: 1, max: 1000 }), perPage: fc.integer({ min: 1, max: 500 }) }), {
      nil: null,
    }),
  })
  .map(({ groups, ...parts }): { plan: SearchPlan; marker: string } => ({
    plan: {
      ...parts,
      ...(groups !== undefined && { groups }),
      trashed: flat([...parts.conditions, ...(groups ?? [])]).some((c) => c.attribute === 'deletedAt'),
    },
    marker: MARKER,
  }));
