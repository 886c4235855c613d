/**
 * docs/guide/react-admin.md and docs/guide/refine.md against the code: their examples run against
 * the demo and find what the pages say, their filter tables are what the providers send, and their
 * option tables name the options the providers take.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { listQuery } from 'koa-fast-crud/react-admin';
import { REFINE_OPERATORS } from 'koa-fast-crud/refine';
import * as reactAdmin from '../../docs/examples/clients/react-admin.js';
import * as refine from '../../docs/examples/clients/refine.js';
import { searchParams } from '../../lib/clients/protocol.js';
import { serveDemoInSuite } from '../support/demo.js';
import { tableRows } from '../support/markdown.js';

const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map(([, code]) => code!);

for (const page of ['docs/guide/react-admin.md', 'docs/guide/refine.md']) {
  describe(page, () => {
    const text = readFileSync(page, 'utf8');
    it('includes only example files and regions that exist', () => {
      const includes = [...text.matchAll(/^<<< @\/(\S+?)(?:#([\w-]+))?$/gm)];
      assert.ok(includes.length >= 4);
      for (const [, file, region] of includes) {
        const source = readFileSync(`docs/${file}`, 'utf8');
        if (region) assert.match(source, new RegExp(`// #region ${region}\\n[\\s\\S]*// #endregion ${region}\\n`), `${file}#${region}`);
      }
    });
  });
}

describe('docs/guide/react-admin.md', () => {
  const text = readFileSync('docs/guide/react-admin.md', 'utf8');

  it('shows in its filter table what the provider sends for each filter', () => {
    const rows = tableRows(text, '| filter | sends | meaning |');
    let checked = 0;
    for (const [filterCell, sendsCell] of rows) {
      const [filter] = codes(filterCell!);
      const sends = sendsCell === 'nothing' ? '' : codes(sendsCell!)[0]!;
      if (codes(filterCell!).length !== 1) continue;
      const value = new Function(`return (${filter});`)() as Record<string, unknown>;
      assert.equal(decodeURIComponent(searchParams(listQuery({ filter: value }))), sends, filter);
      checked += 1;
    }
    assert.ok(checked >= 8, `${checked} rows checked`);
  });

  it('lists in its options table exactly the options the provider reads', () => {
    const listed = tableRows(text, '| option | default |').map(([option]) => codes(option!)[0]);
    assert.deepEqual(listed.sort(), ['autocomplete', 'batch', 'batchSize', 'conflictMessage', 'fetch', 'headers', 'httpClient', 'idField', 'preconditions', 'termKey', 'validationStatuses', 'versionField']);
  });
});

describe('docs/guide/refine.md', () => {
  it('maps in its operator table exactly the operators REFINE_OPERATORS maps', () => {
    const rows = tableRows(readFileSync('docs/guide/refine.md', 'utf8'), '| Refine operator | server operator |');
    const mapped = Object.fromEntries(rows.flatMap(([refineCell, serverCell]) => codes(refineCell!).map((op) => [op, serverCell === 'the same' ? op : codes(serverCell!)[0]])));
    assert.deepEqual(mapped, { ...REFINE_OPERATORS });
  });
});

describe('the data-provider examples, against the demo', () => {
  const demo = serveDemoInSuite();

  it('react-admin: a filtered, sorted page with its total, its reference fields, a refused price under its field, a restore', async () => {
    const result = await reactAdmin.tour(reactAdmin.shopProvider(`${demo().url}/api`));
    assert.deepEqual(result, {
      total: 5,
      names: ['Cast Iron Pan', 'Designing Data-Intensive Applications', 'The Pragmatic Programmer'],
      categories: ['Books', 'Kitchen'],
      books: 2,
      formErrors: { price: 'A price is never negative' },
      restored: null,
    });
  });

  it('refine: a filtered page with its total, a refused price under its field, a refused operator, the options', async () => {
    const result = await refine.tour(refine.shopProvider(`${demo().url}/api`));
    assert.deepEqual(result.names, ['Cast Iron Pan', 'Designing Data-Intensive Applications', 'The Pragmatic Programmer']);
    assert.equal(result.total, 4);
    assert.deepEqual(result.fieldErrors, { price: 'A price is never negative' });
    assert.match(result.unsupported, /the filter operator "startswith" on "name" has no equivalent in koa-fast-crud/);
    assert.deepEqual(result.options, ['Books', 'Garden', 'Kitchen', 'Music', 'Toys']);
  });

  it('sends the abilities header of the provider, so a narrowed provider is refused', async () => {
    const searchOnly = reactAdmin.shopProvider(`${demo().url}/api`, 'shop.access.search');
    await assert.rejects(searchOnly.softDelete('products', { id: '00000000-0000-4000-8000-000000000001' }), { status: 403 });
  });
});
