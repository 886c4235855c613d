/**
 * docs/guide/pagination.md against the code: its parameter table names the search's page parameters
 * (as the OpenAPI document lists them) with the configured defaults, and the demo pages as it says.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG } from 'koa-fast-crud';
import { serveDemoInSuite } from '../support/demo.js';
import { tableRows } from '../support/markdown.js';

const page = readFileSync('docs/guide/pagination.md', 'utf8');

describe('docs/guide/pagination.md', () => {
  const demo = serveDemoInSuite();

  it('lists the search parameters other than filter and sort, no more, no fewer', async () => {
    const document = (await demo().get('/api/openapi.json')).body as { paths: Record<string, { get: { parameters: { name: string; in: string }[] } }> };
    // The query parameters: the headers (If-None-Match) are the concurrency page's.
    const searchParameters = document.paths['/products']!.get.parameters.filter((p) => p.in === 'query').map((p) => p.name).filter((name) => !name.startsWith('filter[') && name !== 'sort');
    const listed = tableRows(page, '| parameter | default |').map(([name]) => name!.replaceAll('`', ''));
    assert.deepEqual(listed.sort(), searchParameters.sort());
  });

  it('states the configured defaults and the fields of meta.pagination', async () => {
    const [, perPage] = tableRows(page, '| parameter | default |').find(([name]) => name === '`perPage`')!;
    assert.ok(perPage!.includes(`\`search.per_page\` (${DEFAULT_CONFIG.search.per_page})`), perPage);
    assert.ok(page.includes(`\`search.max_per_page\` (${DEFAULT_CONFIG.search.max_per_page})`));
    assert.ok(page.includes(`\`export_csv.batch_size\` (${DEFAULT_CONFIG.export_csv.batch_size})`));
    const fields = tableRows(page, '| field | meaning |').map(([name]) => name!.replaceAll('`', ''));
    const meta = (await demo().get('/api/products?perPage=3&page=2')).body.meta.pagination as Record<string, number>;
    assert.deepEqual(fields.sort(), Object.keys(meta).sort());
    assert.deepEqual(meta, { current: 2, perPage: 3, pagesCount: 3, count: 7 });
  });

  it('refuses each value the page lists as refused, naming the parameter', async () => {
    const refused = ['page=0', 'page=-1', 'page=1.5', 'page=02', 'page=1000000000', 'perPage=ten', 'page=1&page=2', 'page[]=1', 'skipPagination=yes'];
    for (const query of refused) {
      const res = await demo().get(`/api/products?${query}`);
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body.data.map((f: { error: string }) => f.error), ['invalidValue'], query);
      assert.equal(res.body.data[0].field, query.split(/[=[]/)[0], query);
    }
    assert.equal((await demo().get('/api/products?page=999999999')).status, 200);
  });

  it('answers a page past the end, skipPagination and a large perPage as the page says', async () => {
    const past = await demo().get('/api/products?perPage=3&page=9');
    assert.deepEqual([past.status, past.body.data, past.body.meta.pagination], [200, [], { current: 9, perPage: 3, pagesCount: 3, count: 7 }]);
    const all = await demo().get('/api/products?skipPagination=1&page=x&perPage=2');
    assert.deepEqual([all.body.data.length, all.body.meta.pagination], [7, { current: 1, perPage: 7, pagesCount: 1, count: 7 }]);
    const none = await demo().get('/api/products?skipPagination=true&filter[price][gt]=1000');
    assert.deepEqual(none.body.meta.pagination, { current: 1, perPage: 1, pagesCount: 1, count: 0 });
    const paged = await demo().get('/api/products?skipPagination=0&perPage=2');
    assert.equal(paged.body.data.length, 2);
    assert.equal((await demo().get('/api/products?perPage=501')).body.meta.pagination.perPage, 500);
  });

  it('includes only example files and regions that exist', () => {
    for (const [, file, region] of page.matchAll(/^<<< @\/(\S+?)(?:#([\w-]+))?$/gm)) {
      const source = readFileSync(`docs/${file}`, 'utf8');
      if (region) assert.match(source, new RegExp(`// #region ${region}\\n[\\s\\S]*// #endregion ${region}\\n`), `${file}#${region}`);
    }
  });
});
