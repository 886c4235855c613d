import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG, resolveConfig } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { parseFilters } from '../../lib/core/filter-parser.js';
import {
  buildOptionsQuery,
  formatOptions,
  inReplyOrder,
  optionItems,
  planOptions,
  undeclaredValueColumn,
  type OptionsSettings,
} from '../../lib/core/options-query.js';
import { clientColumnArb, modelArb } from '../arbitraries/model-arb.js';

// Models are defined offline: nothing here connects to a database.
const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Category = sequelize.define(
  'Category',
  { name: DataTypes.STRING, externalId: DataTypes.UUID, deletedAt: DataTypes.DATE },
  { tableName: 'categories', underscored: true },
);
const Tag = sequelize.define('Tag', { title: DataTypes.STRING }, { tableName: 'tags', timestamps: false });

describe('buildOptionsQuery', () => {
  it('returns value and label aliases, label order, the active-row filter and raw rows', () => {
    assert.deepEqual(
      buildOptionsQuery(Category, 'name', undefined),
      E.right({
        attributes: [
          ['id', 'value'],
          ['name', 'label'],
        ],
        where: { deletedAt: null },
        order: [['name', 'ASC']],
        raw: true,
      }),
    );
  });

  it('returns columns for attribute names and attributes for column names', () => {
    const plan = buildOptionsQuery(Category, 'created_at', 'externalId');
    assert.deepEqual(E.isRight(plan) && plan.right.attributes, [
      ['external_id', 'value'],
      ['created_at', 'label'],
    ]);
  });

  it('returns no where clause for a model without the deleted-at attribute', () => {
    const plan = buildOptionsQuery(Tag, 'title', 'id');
    assert.ok(E.isRight(plan));
    assert.equal(plan.right.where, undefined);
  });

  it('returns the configured default value column and deleted-at attribute', () => {
    const config = E.getOrElseW(() => assert.fail())(
      resolveConfig({ options: { default_value: 'external_id' }, soft_delete: { deleted_at_field: 'updated_at' } }),
    );
    const plan = buildOptionsQuery(Category, 'name', '', config);
    assert.ok(E.isRight(plan));
    assert.deepEqual(plan.right.attributes, [
      ['external_id', 'value'],
      ['name', 'label'],
    ]);
    assert.deepEqual(plan.right.where, { updatedAt: null });
  });

  it('returns a value column the model does not declare unchanged (rule 3)', () => {
    const plan = buildOptionsQuery(Tag, 'title', 'legacy_code');
    assert.deepEqual(E.isRight(plan) && plan.right.attributes, [
      ['legacy_code', 'value'],
      ['title', 'label'],
    ]);
  });

  it('returns required for an absent or empty label', () => {
    assert.deepEqual(buildOptionsQuery(Category, undefined, 'id'), E.left({ _tag: 'required', field: 'label' }));
    assert.deepEqual(buildOptionsQuery(Category, '', 'id'), E.left({ _tag: 'required', field: 'label' }));
  });

  it('returns columnNotFound naming a label that is not an attribute', () => {
    assert.deepEqual(
      buildOptionsQuery(Category, 'colour', undefined),
      E.left({ _tag: 'columnNotFound', field: 'colour' }),
    );
  });

  it('returns columnNotFound for hostile label or value strings', () => {
    for (const hostile of ['name; DROP TABLE categories', "name'--", 'name,id', '*', '"name"', 'na me']) {
      assert.deepEqual(buildOptionsQuery(Category, hostile, 'id'), E.left({ _tag: 'columnNotFound', field: hostile }));
      assert.deepEqual(
        buildOptionsQuery(Category, 'name', hostile),
        E.left({ _tag: 'columnNotFound', field: hostile }),
      );
    }
  });

  it('returns columnNotFound for a value outside options.value_columns, by attribute or column name', () => {
    const config = E.getOrElseW(() => assert.fail())(
      resolveConfig({ options: { value_columns: ['id', 'external_id'] } }),
    );
    assert.ok(E.isRight(buildOptionsQuery(Category, 'name', undefined, config)));
    assert.ok(E.isRight(buildOptionsQuery(Category, 'name', 'externalId', config)));
    assert.ok(E.isRight(buildOptionsQuery(Category, 'name', 'external_id', config)));
    for (const value of ['name', 'api_token', 'deleted_at']) {
      assert.deepEqual(
        buildOptionsQuery(Category, 'name', value, config),
        E.left({ _tag: 'columnNotFound', field: value }),
      );
    }
    const noId = E.getOrElseW(() => assert.fail())(resolveConfig({ options: { value_columns: ['name'] } }));
    assert.deepEqual(
      buildOptionsQuery(Category, 'name', undefined, noId),
      E.left({ _tag: 'columnNotFound', field: 'id' }),
    );
  });

  it('returns columnNotFound for an attribute outside the visible set, as label or value', () => {
    const visible = new Set(['id', 'name']);
    assert.deepEqual(
      buildOptionsQuery(Category, 'external_id', 'id', undefined, visible),
      E.left({ _tag: 'columnNotFound', field: 'external_id' }),
    );
    assert.deepEqual(
      buildOptionsQuery(Category, 'name', 'externalId', undefined, visible),
      E.left({ _tag: 'columnNotFound', field: 'externalId' }),
    );
    assert.ok(E.isRight(buildOptionsQuery(Category, 'name', 'legacy_code', undefined, visible)));
  });

  it('returns columnNotFound for names inherited from Object.prototype', () => {
    assert.deepEqual(
      buildOptionsQuery(Tag, 'constructor', 'id'),
      E.left({ _tag: 'columnNotFound', field: 'constructor' }),
    );
  });

  describe('laws', () => {
    it('is Left exactly when the label is absent or not an attribute by name or column', () => {
      fc.assert(
        fc.property(modelArb, fc.option(clientColumnArb, { nil: undefined }), ({ model, attributes }, label) => {
          const known =
            label !== undefined && Object.entries(attributes).some(([n, a]) => n === label || a.field === label);
          const plan = buildOptionsQuery(model, label, 'id');
          assert.equal(E.isRight(plan), known);
          if (E.isLeft(plan)) assert.equal(plan.left.field, label ? label : 'label');
        }),
      );
    });

    it('never selects a value that is not a plain identifier', () => {
      fc.assert(
        fc.property(modelArb, clientColumnArb, ({ model, attributes }, value) => {
          const plan = buildOptionsQuery(model, Object.keys(attributes)[0], value);
          if (E.isRight(plan)) {
            const [[column]] = plan.right.attributes as [[string, string]];
            assert.match(column, /^[A-Za-z_][A-Za-z0-9_]*$/);
          }
        }),
      );
    });
  });
});

const Product = sequelize.define(
  'Product',
  { name: DataTypes.STRING, price: DataTypes.INTEGER, secret: DataTypes.STRING, deletedAt: DataTypes.DATE },
  { tableName: 'products', underscored: true },
);
const optionSettings = (overrides: Partial<OptionsSettings> = {}): OptionsSettings => ({
  policy: resolvePolicy(Product, { hidden: ['secret'] }, DEFAULT_CONFIG),
  termKey: 'term',
  termFields: [],
  config: DEFAULT_CONFIG,
  ...overrides,
});
const right = <T>(either: E.Either<unknown, T>): T => (E.isRight(either) ? either.right : assert.fail(String(either)));

describe('planOptions', () => {
  it('returns the spec query unchanged, with no search, filter or limit, for label and value alone', () => {
    const plan = right(planOptions(Product, { label: 'name' }, optionSettings()));
    assert.deepEqual(plan, {
      query: right(buildOptionsQuery(Product, 'name', undefined)),
      search: null,
      conditions: [],
      term: null,
      limit: null,
    });
  });

  it('returns the label column and the trimmed q, and options.max_limit as the limit, for q alone', () => {
    const plan = right(planOptions(Product, { label: 'name', q: '  gar ' }, optionSettings()));
    assert.deepEqual(plan.search, { columns: [{ column: 'name', isText: true }], text: 'gar' });
    assert.equal(plan.limit, 100);
    assert.equal(plan.query.limit, 100);
  });

  it("returns q as it was sent: wildcards are the compiler's to escape", () => {
    const plan = right(planOptions(Product, { label: 'name', q: '50%_off\\' }, optionSettings()));
    assert.equal(plan.search?.text, '50%_off\\');
  });

  it('returns the limit asked for, lowered to options.max_limit, and a limit without q', () => {
    const config = right(resolveConfig({ options: { max_limit: 30 } }));
    assert.equal(right(planOptions(Product, { label: 'name', limit: '20' }, optionSettings({ config }))).limit, 20);
    assert.equal(right(planOptions(Product, { label: 'name', limit: '500' }, optionSettings({ config }))).limit, 30);
    const limited = right(planOptions(Product, { label: 'name', limit: '5' }, optionSettings()));
    assert.deepEqual([limited.search, limited.limit], [null, 5]);
  });

  it('returns no search but the default limit for an empty or blank q', () => {
    for (const q of ['', '   ']) {
      const plan = right(planOptions(Product, { label: 'name', q }, optionSettings()));
      assert.deepEqual([plan.search, plan.limit], [null, 100]);
    }
  });

  it('returns a non-text label as one to compare as text', () => {
    const plan = right(planOptions(Product, { label: 'price', q: '12' }, optionSettings()));
    assert.deepEqual(plan.search?.columns, [{ column: 'price', isText: false }]);
  });

  it('returns the filters as search parses them, under the same policy', () => {
    const settings = optionSettings();
    const filter = { price: { gte: '10' }, name: { like: 'a' } };
    const plan = right(planOptions(Product, { label: 'name', filter }, settings));
    assert.deepEqual(plan.conditions, parseFilters(Product, filter, settings).conditions);
    assert.equal(plan.limit, null);
  });

  it('returns invalidValue for a bad limit or q, and the filter failures, all at once', () => {
    const planned = planOptions(
      Product,
      { label: 'name', q: ['a', 'b'], limit: '0', filter: { secret: 'x', price: { near: '1' } } },
      optionSettings(),
    );
    assert.ok(E.isLeft(planned) && Array.isArray(planned.left));
    assert.deepEqual(
      (planned.left as readonly { field: string; error: string }[]).map(({ field, error }) => [field, error]),
      [
        ['q', 'invalidValue'],
        ['limit', 'invalidValue'],
        ['secret', 'columnNotFound'],
        ['price', 'invalidOperator'],
      ],
    );
    for (const limit of ['-1', '1.5', 'ten', '', '1e3', ['2', '3']]) {
      const left = planOptions(Product, { label: 'name', limit }, optionSettings());
      assert.ok(E.isLeft(left) && Array.isArray(left.left) && left.left[0]?.field === 'limit', String(limit));
    }
    const nul = planOptions(Product, { label: 'name', q: 'a\u0000' }, optionSettings());
    assert.ok(E.isLeft(nul) && Array.isArray(nul.left) && nul.left[0]?.field === 'q');
  });

  it('returns a term filter on a resource without term fields as columnNotFound, never ignored', () => {
    const planned = planOptions(Product, { label: 'name', filter: { term: 'gar' } }, optionSettings());
    assert.ok(E.isLeft(planned) && Array.isArray(planned.left) && planned.left[0]?.field === 'term');
  });

  it("returns buildOptionsQuery's Left first, as it is", () => {
    assert.deepEqual(
      planOptions(Product, { q: ['x'], limit: '0' }, optionSettings()),
      E.left({ _tag: 'required', field: 'label' }),
    );
    assert.deepEqual(
      planOptions(Product, { label: 'secret', q: 'x' }, optionSettings({ visible: new Set(['name']) })),
      E.left({ _tag: 'columnNotFound', field: 'secret' }),
    );
  });

  describe('laws', () => {
    const qArb = fc.option(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 2 })), { nil: undefined });
    const limitArb = fc.option(
      fc.oneof(fc.integer({ min: -5, max: 100_000 }).map(String), fc.string(), fc.array(fc.string(), { maxLength: 2 })),
      { nil: undefined },
    );
    const filterArb = fc.option(
      fc.oneof(
        fc.string(),
        fc.dictionary(
          fc.constantFrom('name', 'price', 'secret', 'nope', 'term'),
          fc.oneof(fc.string(), fc.dictionary(fc.string(), fc.string())),
        ),
      ),
      { nil: undefined },
    );
    const maxArb = fc.integer({ min: 1, max: 1000 });

    it('never throws, and a limit is within options.max_limit, null exactly when neither q nor limit was sent', () => {
      fc.assert(
        fc.property(qArb, limitArb, filterArb, maxArb, (q, limit, filter, max) => {
          const config = right(resolveConfig({ options: { max_limit: max } }));
          const planned = planOptions(Product, { label: 'name', q, limit, filter }, optionSettings({ config }));
          if (E.isLeft(planned)) return;
          const plan = planned.right;
          assert.equal(plan.limit === null, q === undefined && limit === undefined);
          if (plan.limit !== null) assert.ok(plan.limit >= 1 && plan.limit <= max && plan.query.limit === plan.limit);
          if (typeof limit === 'string' && Number(limit) >= 1) assert.equal(plan.limit, Math.min(Number(limit), max));
        }),
      );
    });

    it('is Right exactly when q, limit and filter are each valid on their own, and then searches q trimmed', () => {
      fc.assert(
        fc.property(qArb, limitArb, filterArb, (q, limit, filter) => {
          const settings = optionSettings();
          const planned = planOptions(Product, { label: 'name', q, limit, filter }, settings);
          const qValid = q === undefined || (typeof q === 'string' && !q.includes('\u0000'));
          const limitValid = limit === undefined || (typeof limit === 'string' && /^[1-9]\d{0,8}$/.test(limit));
          const filterValid = parseFilters(Product, filter, settings).failures.length === 0;
          assert.equal(E.isRight(planned), qValid && limitValid && filterValid);
          if (E.isRight(planned)) {
            const text = typeof q === 'string' ? q.trim() : '';
            assert.equal(planned.right.search?.text ?? '', text);
          }
        }),
      );
    });
  });
});

describe('undeclaredValueColumn', () => {
  it('returns undefined for a declared attribute or column, and the name otherwise', () => {
    assert.equal(undeclaredValueColumn(Category, 'externalId'), undefined);
    assert.equal(undeclaredValueColumn(Category, 'external_id'), undefined);
    assert.equal(undeclaredValueColumn(Category, undefined), undefined);
    assert.equal(undeclaredValueColumn(Tag, 'legacy_code'), 'legacy_code');
  });
});

describe('formatOptions', () => {
  it('returns objects with exactly label and value (rule 7)', () => {
    assert.deepEqual(formatOptions([{ value: 1, label: 'Books', extra: true }, { value: 'x' }]), [
      { label: 'Books', value: 1 },
      { label: undefined, value: 'x' },
    ]);
  });
});

describe('inReplyOrder', () => {
  it('puts the label pair before the value pair, and leaves any other select list alone', () => {
    const planned = E.getOrElseW(() => assert.fail('planned'))(buildOptionsQuery(Category, 'name', undefined));
    assert.deepEqual(inReplyOrder(planned), {
      ...planned,
      attributes: [
        ['name', 'label'],
        ['id', 'value'],
      ],
    });
    for (const attributes of [
      [
        ['name', 'label'],
        ['id', 'value'],
      ],
      [
        ['id', 'value'],
        ['name', 'label'],
        ['id', 'extra'],
      ],
      [['id', 'value']],
      ['id', 'name'],
      [
        ['id', 'value'],
        ['name', 'title'],
      ],
    ]) {
      const query = { attributes, raw: true } as never;
      assert.equal(inReplyOrder(query), query, JSON.stringify(attributes));
    }
    assert.equal(inReplyOrder({ raw: true }).attributes, undefined);
  });

  it('keeps the same pairs and every other option, and is idempotent', () => {
    const pair = (alias: string) => fc.tuple(fc.constantFrom('id', 'name', 'code'), fc.constant(alias));
    const attributes = fc.oneof(
      fc.tuple(pair('value'), pair('label')),
      fc.tuple(pair('label'), pair('value')),
      fc.array(fc.oneof(pair('value'), pair('label'), pair('extra')), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(attributes, fc.boolean(), (list, raw) => {
        const query = { attributes: list as never, raw, order: [['name', 'ASC']] as never };
        const ordered = inReplyOrder(query);
        assert.deepEqual({ ...ordered, attributes: undefined }, { ...query, attributes: undefined });
        assert.deepEqual([...(ordered.attributes as unknown[])].sort(), [...list].sort());
        assert.deepEqual(inReplyOrder(ordered), ordered);
      }),
    );
  });
});

describe('optionItems', () => {
  it('answers rows already in reply order as they are, and copies any other', () => {
    const inOrder = [
      { label: 'Books', value: 1 },
      { label: null, value: 'x' },
    ];
    assert.equal(optionItems(inOrder), inOrder);
    for (const rows of [
      [{ value: 1, label: 'Books' }],
      [
        { label: 'Books', value: 1 },
        { label: 'Toys', value: 2, extra: 0 },
      ],
      [{ label: 'Books' }],
      [Object.assign(Object.create({ extra: 1 }), { label: 'a', value: 1 })],
    ]) {
      const items = optionItems(rows as Record<string, unknown>[]);
      assert.notEqual(items, rows);
      assert.deepEqual(items, formatOptions(rows as Record<string, unknown>[]));
    }
  });

  it('gives the JSON of formatOptions, for any rows', () => {
    const key = fc.constantFrom('label', 'value', 'extra', 'id');
    const row = fc.array(fc.tuple(key, fc.jsonValue()), { maxLength: 4 }).map((entries) => Object.fromEntries(entries));
    const item = fc.record({ label: fc.jsonValue(), value: fc.jsonValue() });
    fc.assert(
      fc.property(fc.array(fc.oneof(item, item, row), { maxLength: 6 }), (rows) => {
        assert.equal(JSON.stringify(optionItems(rows)), JSON.stringify(formatOptions(rows)));
      }),
    );
  });
});
