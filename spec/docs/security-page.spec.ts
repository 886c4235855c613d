/**
 * docs/guide/security.md against the code: every configuration key it names exists in DEFAULT_CONFIG
 * with the default it states, the constants it quotes are the code's, and every class-form example
 * that registers writes declares `fillable`, as `crud` demands (the example of the refusal says it has none).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DATE_YEARS } from '../../lib/core/date-bounds.js';
import { DEFAULT_CONFIG } from 'koa-fast-crud';
import { QUERY_QS_OPTIONS, QS_OPTIONS } from 'koa-fast-crud/core';
import { tableRows } from '../support/markdown.js';

const page = readFileSync('docs/guide/security.md', 'utf8');
const rows = tableRows(page, '| area | default | switch that hardens it |');

/** A dotted key's value in DEFAULT_CONFIG, or undefined when there is no such key. */
function configValue(key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (typeof node === 'object' && node !== null && Object.hasOwn(node, part) ? (node as Record<string, unknown>)[part] : undefined), DEFAULT_CONFIG);
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : []));
}

describe('docs/guide/security.md', () => {
  it('lists every hardening area: options, mass assignment, hidden, body, qs, paging, ids, routes, cross-site, CORS, permissions, tenants, CSV, dates', () => {
    const areas = rows.map(([area]) => area);
    for (const area of ['options permission', 'options value column', 'mass assignment', 'hidden attributes', 'body size', 'query-string and form limits', 'page size', 'every row at once', '`{id}` shape', 'unmatched routes', 'cross-site requests', 'CORS', 'permissions', 'tenants', 'CSV cells', 'CSV caching', 'dates']) {
      assert.ok(areas.includes(area), `no row for ${area}`);
    }
  });

  it('names only configuration keys that exist in DEFAULT_CONFIG, each default cell stating the key with its default', () => {
    const keys = [...page.matchAll(/`((?:global|options|search|create|read|update|delete|soft_delete|restore|export_csv|cors)\.[a-z_.]+)(?::[^`]*)?`/g)].map((m) => m[1]!);
    assert.ok(keys.length >= 8, keys.join(', '));
    for (const key of new Set(keys)) assert.notEqual(configValue(key), undefined, `${key} is not a key of DEFAULT_CONFIG`);
    let stated = 0;
    for (const [, defaults] of rows) {
      for (const [, key, value] of defaults!.matchAll(/`((?:global|options|search|cors)\.[a-z_.]+): ([^`]+)`/g)) {
        stated += 1;
        assert.equal(JSON.stringify(configValue(key!)), JSON.stringify(JSON.parse(value!.replaceAll('_', ''))), `${key} is ${JSON.stringify(configValue(key!))}, the page says ${value}`);
      }
    }
    assert.ok(stated >= 7, `${stated} defaults stated`);
  });

  it('shows the CORS example from docs/examples/cross-origin.ts and the order of the cross-site check', () => {
    const section = page.slice(page.indexOf('## Cross-site requests and CORS'));
    assert.ok(section.includes('<<< @/examples/cross-origin.ts#cors'));
    const example = readFileSync('docs/examples/cross-origin.ts', 'utf8');
    assert.match(example, /#region cors[\s\S]*cors: \{ origins: \[adminOrigin\][\s\S]*#endregion cors/);
    for (const header of ['`Sec-Fetch-Site`', '`Origin`', '`crossOrigin`', '`Vary: Origin`', '`Access-Control-Max-Age`']) assert.ok(section.includes(header), header);
  });

  it('quotes the query-string limits and the years of dates as the code has them', () => {
    const [, qs] = rows.find(([area]) => area === 'query-string and form limits')!;
    assert.ok(qs!.includes(`at most ${QS_OPTIONS.depth} deep, at most ${QS_OPTIONS.parameterLimit} parameters, lists of at most ${QS_OPTIONS.arrayLimit} items`), qs);
    assert.ok(qs!.includes(`a query string's brackets at most ${QUERY_QS_OPTIONS.depth} deep`), qs);
    assert.ok(page.includes(`the years ${DATE_YEARS.min} to ${DATE_YEARS.max}`));
  });

  it('finds fillable declared by every class-form example that registers create or update', () => {
    const classes = filesUnder('docs/examples').flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      return [...source.matchAll(/^(\s*)(?:export )?class (\w+) extends ([^{]+)\{\n([\s\S]*?)^\1\}/gm)]
        .filter(([, , , base]) => /CrudController|Create\(|Update\(/.test(base!))
        .map(([, , name, , body]) => ({ file, name: name!, body: body! }));
    });
    assert.ok(classes.length >= 10, `${classes.length} class-form controllers found`);
    const undeclared = classes.filter(({ body }) => !/\bfillable\b/.test(body)).map(({ file, name }) => `${file}: ${name}`);
    assert.deepEqual(undeclared, []);
  });
});
