/** buildOptionsQuery's plan and compileOptions' autocomplete as SQL on every dialect, compiled offline: snapshots. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { compileOptions } from '../../lib/compile/options.js';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { buildOptionsQuery, planOptions, type OptionsRequest } from '../../lib/core/options-query.js';
import { clientTextArb, MARKER } from '../arbitraries/search-plan-arb.js';
import { defineCatalog } from '../support/catalog.js';
import { outsideLiterals } from '../support/sql-literals.js';
import { snapshotFile } from '../support/snapshots.js';
import { DIALECTS, offlineSequelize, selectSql } from '../support/sql.js';

const CASES: Record<string, [label: string, value: string | undefined]> = {
  'label with the default value': ['name', undefined],
  'label and value by attribute name': ['releasedOn', 'sku'],
  'label and value by column name': ['released_on', 'category_id'],
  'an undeclared value column': ['name', 'legacy_code'],
};

/** Autocomplete requests (label `name` unless given): q with LIKE wildcards, a limit, filters, a relation filter. */
const AUTOCOMPLETE: Record<string, OptionsRequest> = {
  'q with wildcards and a backslash': { q: '50%_off\\' },
  'q on a label that is not text': { label: 'stock', q: '12' },
  'limit without q': { limit: '20' },
  'q, limit and filters': { q: 'gar', limit: '5', filter: { price: { gte: '10' }, active: '1' } },
  'a filter through a relation': { q: 'kit', filter: { 'category.name': 'Books' } },
};

for (const dialect of DIALECTS) {
  describe(`buildOptionsQuery on ${dialect} (offline)`, () => {
    const { Product, Category } = defineCatalog(offlineSequelize(dialect), 'sql');
    const snapshots = snapshotFile(new URL(`__snapshots__/options-sql.${dialect}.json`, import.meta.url).pathname);
    after(() => snapshots.finish());

    for (const [name, [label, value]] of Object.entries(CASES)) {
      it(`compiles ${name} to its snapshot`, async () => {
        const planned = buildOptionsQuery(Product, label, value, DEFAULT_CONFIG);
        assert.ok(E.isRight(planned), JSON.stringify(planned));
        snapshots.match(name, await selectSql(Product, planned.right));
      });
    }

    const relations = { deletedAtField: 'deletedAt', policies: {} };
    const settings = {
      policy: {
        ...resolvePolicy(Product, {}, DEFAULT_CONFIG),
        relations: {
          category: {
            visible: new Set(['name']),
            sortable: new Set<string>(),
            filterable: new Set(['name']),
            include: false,
          },
        },
      },
      termKey: 'term',
      termFields: [],
      config: DEFAULT_CONFIG,
    };
    for (const [name, request] of Object.entries(AUTOCOMPLETE)) {
      it(`compiles the autocomplete's ${name} to its snapshot`, async () => {
        const planned = planOptions(Product, { label: 'name', ...request }, settings);
        assert.ok(E.isRight(planned), JSON.stringify(planned));
        snapshots.match(
          `autocomplete: ${name}`,
          await selectSql(Product, compileOptions(Product, planned.right, relations)),
        );
      });
    }

    it('compiles a request without q, filter or limit to the spec query itself', () => {
      const planned = planOptions(Product, { label: 'name' }, settings);
      assert.ok(E.isRight(planned));
      assert.equal(compileOptions(Product, planned.right, relations), planned.right.query);
    });

    it('never throws, and leaves no q or filter text outside a string literal (law)', async () => {
      await fc.assert(
        fc.asyncProperty(clientTextArb, clientTextArb, fc.integer({ min: 1, max: 500 }), async (q, like, limit) => {
          const request = { label: 'name', q, limit: String(limit), filter: { sku: { like } } };
          const planned = planOptions(Product, request, settings);
          assert.ok(E.isRight(planned), JSON.stringify(planned));
          const sql = await selectSql(Product, compileOptions(Product, planned.right, relations));
          assert.ok(!outsideLiterals(sql, dialect).includes(MARKER), sql);
        }),
        { numRuns: Number(process.env['FAST_CRUD_SQL_RUNS'] ?? 200) },
      );
    });

    it('compiles a model without timestamps to its snapshot', async () => {
      const planned = buildOptionsQuery(Category, 'name', undefined, DEFAULT_CONFIG);
      assert.ok(E.isRight(planned));
      snapshots.match('a model without timestamps', await selectSql(Category, planned.right));
    });
  });
}
