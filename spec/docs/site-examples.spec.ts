/**
 * The doc site's request/response examples (docs/generated/) are what the demo returns now: each
 * scenario under docs/examples/http/scenarios/ is run again and compared with the committed file.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderScenario } from '../../docs/examples/http/exchange.js';
import { renderAll } from '../../docs/examples/http/generate.js';

const pages = ['docs/guide', 'docs/actions'].flatMap((dir) => readdirSync(dir).map((file) => `${dir}/${file}`));
const includes = pages.flatMap((page) =>
  [...readFileSync(page, 'utf8').matchAll(/<!--@include: \.\.\/generated\/([\w-]+)\.md-->/g)].map(([, name]) => ({ page, name: name! })),
);

describe("the doc site's generated HTTP examples", async () => {
  const rendered = await renderAll();

  it('has scenarios', () => assert.ok(rendered.size >= 1));

  for (const [name, markdown] of rendered) {
    it(`docs/generated/${name}.md is what the demo returns now (else run npm run docs:examples)`, () => {
      const path = `docs/generated/${name}.md`;
      assert.ok(existsSync(path), `${path} is missing`);
      assert.equal(readFileSync(path, 'utf8'), markdown);
    });
    it(`docs/generated/${name}.md is shown on a page`, () => {
      assert.ok(includes.some((i) => i.name === name), `no page includes ../generated/${name}.md`);
    });
  }

  it('shows the ids a scenario writes as written, and gives new rows stand-ins that differ from them', async () => {
    const written = '00000000-0000-4000-8000-000000000001';
    const markdown = await renderScenario([
      { title: 'Kitchen', request: 'GET /api/categories/options?label=name', hidden: true, save: { kitchen: 'data.2.value' } },
      { title: 'New', request: 'POST /api/products', body: { sku: 'ZZ-1', name: 'New', price: 1, categoryId: '{kitchen}' } },
      { title: 'Missing', request: `GET /api/products/${written}` },
    ]);
    assert.match(markdown, new RegExp(`GET /api/products/${written}\n`));
    assert.match(markdown, /"id": "00000000-0000-4000-8000-000000000002"/, 'the created row gets the next free stand-in');
    assert.doesNotMatch(markdown, /"createdAt": "(?!2026-01-01T00:00:00.000Z)/);
  });

  it('every page includes only generated files that exist', () => {
    for (const { page, name } of includes) assert.ok(rendered.has(name), `${page} includes ${name}.md, which no scenario makes`);
  });
});
