/** compileSearch's SQL on every dialect, compiled offline: snapshots of representative plans, and a never-leaks law. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Op, type FindOptions } from 'sequelize';
import { compileSearch } from '../../lib/compile/search.js';
import { sparseShape } from '../../lib/core/row-shape.js';
import { fastExecutor } from '../../lib/execute/fast-executor.js';
import { fullTextTerm, termWords } from '../../lib/core/full-text.js';
import type { Condition, SearchPlan } from '../../lib/types.js';
import { searchPlanArb } from '../arbitraries/search-plan-arb.js';
import { termTextArb } from '../arbitraries/term-arb.js';
import { defineCatalog } from '../support/catalog.js';
import { snapshotFile } from '../support/snapshots.js';
import { DIALECTS, offlineSequelize, selectSql, sentSql } from '../support/sql.js';
import { outsideLiterals } from '../support/sql-literals.js';

const UUIDS = ['0b6f9a52-3c1d-4e2f-8a9b-1c2d3e4f5a6b', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'] as const;
const base: SearchPlan = {
  conditions: [],
  term: null,
  order: [['id', 'ASC']],
  page: { page: 1, perPage: 40 },
  trashed: false,
};
const where = (...conditions: Condition[]): SearchPlan => ({ ...base, conditions });
const on = (attribute: string, op: Condition['op'], values: unknown[], column = attribute): Condition => ({
  attribute,
  column,
  op,
  values,
});

/** Each plan shows one thing; together: every operator, term search, trash, order and pages. */
const PLANS: Record<string, SearchPlan> = {
  'empty request': base,
  'eq on a string, with a quote': where(on('name', 'eq', ["O'Brien"])),
  'eq on a boolean': where(on('active', 'eq', [true])),
  'neq on an integer': where(on('stock', 'neq', [3])),
  'like, hostile text': where(on('name', 'like', ["50%_off 'x' \\ y"])),
  'like on a mapped column': where(on('deletedBy', 'like', ['ad'], 'deleted_by')),
  'in on uuids': where(on('id', 'in', [...UUIDS])),
  'nin on strings, with a quote': where(on('sku', 'nin', ["a'b", 'c'])),
  'gt on a decimal': where(on('price', 'gt', [9.99])),
  'gte on a dateonly': where(on('releasedOn', 'gte', ['2024-01-31'], 'released_on')),
  'lt on a date': where(on('updatedAt', 'lt', [new Date('2024-05-06T07:08:09.123Z')], 'updated_at')),
  'eq on a date-only day of a date (a span)': where(
    on(
      'updatedAt',
      'eq',
      [{ from: new Date('2024-12-31T00:00:00.000Z'), to: new Date('2024-12-31T23:59:59.999Z') }],
      'updated_at',
    ),
  ),
  'neq on a month of a dateonly (a span)': where(
    on('releasedOn', 'neq', [{ from: '2024-03-01', to: '2024-03-31' }], 'released_on'),
  ),
  'in on a month and a day of a dateonly': where(
    on('releasedOn', 'in', [{ from: '2024-03-01', to: '2024-03-31' }, '2024-05-01'], 'released_on'),
  ),
  'nin on a month and a day of a dateonly': where(
    on('releasedOn', 'nin', [{ from: '2024-03-01', to: '2024-03-31' }, '2024-05-01'], 'released_on'),
  ),
  'lte on an integer': where(on('stock', 'lte', [-2])),
  'btw on a decimal': where(on('price', 'btw', [1, 2.5])),
  'gtn on an integer': where(on('stock', 'gtn', [5])),
  'ltn on a dateonly': where(on('releasedOn', 'ltn', ['2025-12-31'], 'released_on')),
  'nn on a string': where(on('secret', 'nn', [])),
  'null on an integer': where(on('stock', 'null', [])),
  'json scalar, with a quote': where(on('tags', 'json', ["it's"])),
  'json array': where(on('tags', 'json', [['a', 2, null]])),
  'json object, hostile key': where(on('tags', 'json', [{ "k'ey": { n: [1] }, 'a.b': true }])),
  'several conditions': where(
    on('price', 'gte', [10]),
    on('name', 'like', ['kit']),
    on('categoryId', 'eq', [UUIDS[0]], 'category_id'),
  ),
  'term over text and non-text columns, hostile text': {
    ...base,
    term: {
      columns: [
        { column: 'name', isText: true },
        { column: 'stock', isText: false },
        { column: 'id', isText: false },
        { column: 'released_on', isText: false },
      ],
      text: "12'%_\\",
    },
  },
  'term with a condition': {
    ...where(on('active', 'eq', [false])),
    term: { columns: [{ column: 'sku', isText: true }], text: 'ab' },
  },
  'trashed: a condition on deletedAt': { ...where(on('deletedAt', 'nn', [], 'deleted_at')), trashed: true },
  'order with nulls, several directions': {
    ...base,
    order: [
      ['stock', 'DESC'],
      ['releasedOn', 'ASC'],
      ['id', 'ASC'],
    ],
  },
  'order on not-null columns': {
    ...base,
    order: [
      ['name', 'DESC'],
      ['id', 'ASC'],
    ],
  },
  'page 3 of 25': { ...base, page: { page: 3, perPage: 25 } },
  '$or of two filters, one of two conditions': {
    ...where(on('active', 'eq', [true])),
    groups: [
      {
        group: 'or',
        items: [[on('name', 'like', ["it's"])], [on('price', 'lt', [5]), on('stock', 'nn', [])]],
      },
    ],
  },
  '$or › $and › $or, three groups deep': {
    ...base,
    groups: [
      {
        group: 'or',
        items: [
          [on('sku', 'in', ['a', 'b'])],
          [
            {
              group: 'and',
              items: [
                [on('price', 'btw', [1, 2])],
                [
                  {
                    group: 'or',
                    items: [[on('stock', 'gtn', [3])], [on('releasedOn', 'lte', ['2024-01-31'], 'released_on')]],
                  },
                ],
              ],
            },
          ],
        ],
      },
    ],
  },
  '$and beside a term search': {
    ...base,
    groups: [{ group: 'and', items: [[on('name', 'neq', ['x'])], [on('tags', 'json', [['a']])]] }],
    term: { columns: [{ column: 'sku', isText: true }], text: 'ab' },
  },
  'no page (skipPagination)': { ...base, page: null },
  'full-text term over two columns': {
    ...base,
    term: {
      columns: [
        { column: 'name', isText: true },
        { column: 'sku', isText: true },
      ],
      text: "Cast pan* -x 'y",
      fullText: { words: termWords("Cast pan* -x 'y"), language: 'simple' },
    },
  },
  'full-text term in english, with a condition': {
    ...where(on('active', 'eq', [true])),
    term: {
      columns: [{ column: 'name', isText: true }],
      text: 'the OR',
      fullText: fullTextTerm('the OR', { language: 'english' }),
    },
  },
  'full-text term without a word': {
    ...base,
    term: { columns: [{ column: 'name', isText: true }], text: '"*"', fullText: fullTextTerm('"*"', true) },
  },
};

describe("outsideLiterals (the law's lexer)", () => {
  it('returns a planted value that broke out of its literal, per dialect escaping', () => {
    assert.ok(outsideLiterals("WHERE a = 'x' §y", 'postgres').includes('§'));
    assert.ok(outsideLiterals("WHERE a = 'x\\' OR §y = ''", 'postgres').includes('§'));
    assert.ok(!outsideLiterals("WHERE a = 'x\\' OR §y = '", 'mariadb').includes('§'));
    assert.throws(() => outsideLiterals("WHERE a = 'x\\' OR §y = '", 'postgres'), /unterminated/);
    assert.ok(!outsideLiterals("WHERE a = 'it''s §y'", 'sqlite').includes('§'));
    // A client string inside a quoted identifier is a leak too.
    assert.ok(outsideLiterals('SELECT "§x" FROM t', 'postgres').includes('§'));
    assert.ok(outsideLiterals('SELECT `§x` FROM t', 'mariadb').includes('§'));
  });
});

for (const dialect of DIALECTS) {
  describe(`compileSearch on ${dialect} (offline)`, () => {
    const { Product, Note } = defineCatalog(offlineSequelize(dialect), 'sql');
    const snapshots = snapshotFile(new URL(`__snapshots__/search-sql.${dialect}.json`, import.meta.url).pathname);
    after(() => snapshots.finish());

    it('compiles with no server: connecting is refused, not attempted', async () => {
      await assert.rejects(Product.sequelize!.connectionManager.getConnection({ type: 'read' }), /offline/);
    });

    for (const [name, plan] of Object.entries(PLANS)) {
      it(`compiles ${name} to its snapshot`, async () => {
        snapshots.match(name, await selectSql(Product, compileSearch(Product, plan, 'deletedAt')));
      });
    }

    it('selects the columns of a sparse fieldset alone on the fast path (fields=name,price,id), to its snapshot', async () => {
      const attributes = Object.keys(Product.getAttributes()).filter((name) => name !== 'secret');
      const shape = sparseShape({ path: 'raw' as const, attributes, converted: [] }, ['name', 'price', 'id']);
      const select = fastExecutor.select(Product, compileSearch(Product, base, 'deletedAt'), shape, false);
      snapshots.match('fast path, sparse fieldset', await sentSql(Product, () => select.page()));
    });

    it('never throws, and leaves no client value outside a string literal, for random valid plans (law)', async () => {
      await fc.assert(
        fc.asyncProperty(searchPlanArb, async ({ plan, marker }) => {
          const sql = await selectSql(Product, compileSearch(Product, plan, 'deletedAt'));
          assert.ok(!outsideLiterals(sql, dialect).includes(marker), sql);
        }),
        { numRuns: Number(process.env['FAST_CRUD_SQL_RUNS'] ?? 200) },
      );
    });

    it('leaves no word of a full-text term outside a string literal, for any client term (law)', async () => {
      // 'ǂ' is a letter, so it stays in the first word; a word that broke out of its literal would show it.
      await fc.assert(
        fc.asyncProperty(
          termTextArb,
          fc.constantFrom<true | { language: string }>(true, { language: 'english' }),
          async (text, option) => {
            const fullText = fullTextTerm(`ǂ${text}`, option)!;
            const columns = [
              { column: 'name', isText: true },
              { column: 'sku', isText: true },
            ];
            const plan = { ...base, term: { columns, text, fullText } };
            const sql = await selectSql(Product, compileSearch(Product, plan, 'deletedAt'));
            assert.ok(sql.includes('ǂ'), sql);
            assert.ok(!outsideLiterals(sql, dialect).includes('ǂ'), sql);
          },
        ),
        { numRuns: Number(process.env['FAST_CRUD_SQL_RUNS'] ?? 200) },
      );
    });

    it('the fast path assembles the SQL findAll and count send, with its cached head and order, for random valid plans (law)', async () => {
      const attributes = Object.keys(Product.getAttributes()).filter((name) => name !== 'secret');
      const shape = { path: 'raw' as const, attributes, converted: [] };
      const noteShape = { path: 'raw' as const, attributes: Object.keys(Note.getAttributes()), converted: [] };
      await fc.assert(
        fc.asyncProperty(searchPlanArb, fc.boolean(), async ({ plan }, limited) => {
          const query = compileSearch(Product, plan, 'deletedAt');
          // Twice: the second assembly reads the head and the order from the cache.
          for (let i = 0; i < 2; i += 1) {
            // Through sequelize.query, whose text is captured offline; the driver path runs the same string (fast-executor.ts `run`).
            const page = limited ? { ...query, limit: 7 } : query;
            const select = fastExecutor.select(Product, page, shape, false);
            assert.equal(
              await sentSql(Product, () => select.page()),
              await selectSql(Product, { ...page, attributes }),
            );
            assert.equal(
              await sentSql(Product, () => select.count()),
              await sentSql(Product, () => Product.count(query)),
            );
          }
          // A paranoid model: the clause findAll adds, on the page and the count.
          const noteQuery: FindOptions = {
            where: { title: { [Op.like]: `%${plan.conditions.length}'%` } },
            order: [
              ['title', 'DESC'],
              ['id', 'ASC'],
            ],
            ...(limited && { limit: 5, offset: 10 }),
          };
          const noteSelect = fastExecutor.select(Note, noteQuery, noteShape, false);
          assert.equal(await sentSql(Note, () => noteSelect.page()), await selectSql(Note, noteQuery));
          assert.equal(await sentSql(Note, () => noteSelect.count()), await sentSql(Note, () => Note.count(noteQuery)));
        }),
        { numRuns: Number(process.env['FAST_CRUD_SQL_RUNS'] ?? 200) },
      );
    });
  });
}
