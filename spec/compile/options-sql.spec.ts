/** buildOptionsQuery's plan as SQL on every dialect, compiled offline: snapshots. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { buildOptionsQuery } from '../../lib/core/options-query.js';
import { defineCatalog } from '../support/catalog.js';
import { snapshotFile } from '../support/snapshots.js';
import { DIALECTS, offlineSequelize, selectSql } from '../support/sql.js';

const CASES: Record<string, [label: string, value: string | undefined]> = {
  'label with the default value': ['name', undefined],
  'label and value by attribute name': ['releasedOn', 'sku'],
  'label and value by column name': ['released_on', 'category_id'],
  'an undeclared value column': ['name', 'legacy_code'],
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

    it('compiles a model without timestamps to its snapshot', async () => {
      const planned = buildOptionsQuery(Category, 'name', undefined, DEFAULT_CONFIG);
      assert.ok(E.isRight(planned));
      snapshots.match('a model without timestamps', await selectSql(Category, planned.right));
    });
  });
}
