/** compileSearch's SQL for relation filters, sorts and includes on every dialect, compiled offline: snapshots, and a never-leaks law. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { compileSearch, type RelationSettings } from '../../lib/compile/search.js';
import { includesFor } from '../../lib/compile/include.js';
import type { RelationModel } from '../../lib/core/relation-paths.js';
import { resolveRelations } from '../../lib/core/relation-policy.js';
import type { Condition, SearchPlan } from '../../lib/types.js';
import { clientTextArb, MARKER } from '../arbitraries/search-plan-arb.js';
import { defineRelationCatalog } from '../support/relations-catalog.js';
import { snapshotFile } from '../support/snapshots.js';
import { DIALECTS, offlineSequelize, selectSql } from '../support/sql.js';
import { outsideLiterals } from '../support/sql-literals.js';

const base: SearchPlan = {
  conditions: [],
  term: null,
  order: [['id', 'ASC']],
  page: { page: 1, perPage: 10 },
  trashed: false,
};
const through = (
  relation: string[],
  attribute: string,
  op: Condition['op'],
  values: unknown[],
  column = attribute,
): Condition => ({ attribute, column, op, values, relation });

/** Each plan shows one thing: a condition at each depth and kind of association, a relation sort, includes. */
const PLANS: Record<string, SearchPlan> = {
  'belongs-to like, hostile text': { ...base, conditions: [through(['category'], 'name', 'like', ["it's 50%_"])] },
  'belongs-to json': { ...base, conditions: [through(['category'], 'meta', 'json', [{ "k'": 1 }])] },
  'belongs-to gtn': { ...base, conditions: [through(['category'], 'rank', 'gtn', [1])] },
  'two levels to a paranoid model': {
    ...base,
    conditions: [through(['order', 'customer'], 'email', 'eq', ["a'@b.c"])],
  },
  'three levels': { ...base, conditions: [through(['order', 'customer', 'country'], 'code', 'in', ['NL', "D'E"])] },
  'date between through belongs-to': {
    ...base,
    conditions: [through(['order'], 'placedOn', 'btw', ['2024-01-01', '2024-01-31'], 'placed_on')],
  },
  'has-many, with a plain deleted-at column': { ...base, conditions: [through(['tags'], 'title', 'eq', ['sale'])] },
  'has-many to a paranoid model': { ...base, conditions: [through(['reviews'], 'body', 'nn', [])] },
  'sort through belongs-to, descending': {
    ...base,
    order: [
      ['category.name', 'DESC'],
      ['id', 'ASC'],
    ],
  },
  'sort through three levels': {
    ...base,
    order: [
      ['order.customer.country.code', 'ASC'],
      ['id', 'ASC'],
    ],
  },
  'include belongs-to and has-many': { ...base, include: ['category', 'tags', 'reviews'] },
  '$or of a relation path and an own column': {
    ...base,
    groups: [
      {
        group: 'or',
        items: [
          [through(['category'], 'name', 'like', ['kit'])],
          [through(['order', 'customer'], 'email', 'eq', ['a@b.c'])],
        ],
      },
    ],
  },
};

for (const dialect of DIALECTS) {
  describe(`compileSearch with relations on ${dialect} (offline)`, () => {
    const catalog = defineRelationCatalog(offlineSequelize(dialect), 'rsql');
    const { Product } = catalog;
    const policies = resolveRelations(Product as unknown as RelationModel, {
      category: { hidden: ['secret'], include: true },
      tags: { include: true },
      reviews: { include: true },
    });
    const settings: RelationSettings = { deletedAtField: 'deleted_at', policies };
    const snapshots = snapshotFile(new URL(`__snapshots__/relations-sql.${dialect}.json`, import.meta.url).pathname);
    after(() => snapshots.finish());

    for (const [name, plan] of Object.entries(PLANS)) {
      it(`compiles ${name} to its snapshot`, async () => {
        snapshots.match(name, await selectSql(Product, compileSearch(Product, plan, undefined, settings)));
      });
    }

    it('compiles an export include without soft-deleted categories', async () => {
      snapshots.match(
        'export include',
        await selectSql(Product, { include: includesFor(Product, ['name', 'category.name']) }),
      );
    });

    it('never throws, and leaves no client value outside a string literal, through any path (law)', async () => {
      const pathArb = fc.constantFrom<[string[], string, string]>(
        [['category'], 'name', 'name'],
        [['order', 'customer'], 'email', 'email'],
        [['order', 'customer', 'country'], 'code', 'code'],
        [['tags'], 'title', 'title'],
      );
      const opArb = fc.constantFrom<Condition['op']>('eq', 'neq', 'like', 'in', 'nin', 'gt', 'lte', 'btw', 'gtn');
      await fc.assert(
        fc.asyncProperty(
          pathArb,
          opArb,
          clientTextArb,
          clientTextArb,
          async ([relation, attribute, column], op, first, second) => {
            const values = op === 'btw' ? [first, second] : op === 'in' || op === 'nin' ? [first, second] : [first];
            const plan = { ...base, conditions: [through(relation, attribute, op, values, column)] };
            const sql = await selectSql(Product, compileSearch(Product, plan, undefined, settings));
            assert.ok(!outsideLiterals(sql, dialect).includes(MARKER), sql);
          },
        ),
        { numRuns: Number(process.env['FAST_CRUD_SQL_RUNS'] ?? 200) },
      );
    });
  });
}
