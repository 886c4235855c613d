/**
 * docs/guide/configuration.md documents every key of DEFAULT_CONFIG with its default, and no key
 * the code lacks; its examples run.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../../lib/index.js';
import { app } from '../../docs/examples/configuration/layers.js';
import { Category, sequelize } from '../../docs/examples/minimal/app.js';
import { serve, type TestServer } from '../support/http.js';

const PAGE = readFileSync('docs/guide/configuration.md', 'utf8');

/** Every leaf of the configuration as a dotted path, with its default. */
function leaves(node: object, prefix = ''): [string, unknown][] {
  return Object.entries(node).flatMap(([key, value]): [string, unknown][] =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? leaves(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value]],
  );
}

/** Every path, leaf or section, that exists in the configuration. */
function paths(node: object, prefix = ''): string[] {
  return Object.entries(node).flatMap(([key, value]) => [
    `${prefix}${key}`,
    ...(typeof value === 'object' && value !== null && !Array.isArray(value) ? paths(value, `${prefix}${key}.`) : []),
  ]);
}

/** A default as the page writes it: strings quoted with ', lists as JSON, everything else as is. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return JSON.stringify(value);
  return typeof value === 'string' ? `'${value}'` : String(value);
}

/** The reference tables' rows: `| \`key\` | \`default\` | … |`. */
const rows = new Map([...PAGE.matchAll(/^\| `([\w.]+)` \| `([^`]*)` \|/gm)].map(([, key, value]) => [key!, value!]));

describe('docs/guide/configuration.md', () => {
  it('documents every key of DEFAULT_CONFIG with its default', () => {
    for (const [key, value] of leaves(DEFAULT_CONFIG)) {
      assert.ok(rows.has(key), `${key} is not in a reference table`);
      assert.equal(rows.get(key), shown(value), `${key}: the page says ${rows.get(key)}, DEFAULT_CONFIG has ${shown(value)}`);
    }
  });

  it('documents no key the code lacks, in the tables or anywhere in the text', () => {
    const known = new Set(paths(DEFAULT_CONFIG));
    const extra = [...rows.keys()].filter((key) => !leaves(DEFAULT_CONFIG).some(([leaf]) => leaf === key));
    assert.deepEqual(extra, [], `table rows that are not configuration keys: ${extra.join(', ')}`);
    const sections = Object.keys(DEFAULT_CONFIG);
    const mentioned = [...PAGE.matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)].map(([, path]) => path!).filter((path) => sections.includes(path.split('.')[0]!));
    assert.ok(mentioned.length > 30);
    const unknown = mentioned.filter((path) => !known.has(path));
    assert.deepEqual(unknown, [], `keys mentioned on the page that do not exist: ${unknown.join(', ')}`);
  });

  it('runs docs/examples/configuration/validation.ts: every rejection and its message', async () => {
    await import('../../docs/examples/configuration/validation.js');
  });
});

describe('docs/examples/configuration/layers.ts', () => {
  let server: TestServer;
  before(async () => {
    await sequelize.sync({ force: true });
    await Category.bulkCreate([{ name: 'Garden' }, { name: 'Books' }]);
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  it('gives the per-resource setting to the resource that set it, and the app-wide one to the other', async () => {
    const own = await server.get('/api/categories');
    assert.equal(own.body.meta.pagination.perPage, 100);
    assert.equal(own.headers.get('x-default-page-size'), '100');
    const shared = await server.get('/api/archived-categories');
    assert.equal(shared.body.meta.pagination.perPage, 20);
    assert.equal(shared.headers.get('x-default-page-size'), '20');
  });

  it('keeps the app-wide validation status and applies the per-resource options default', async () => {
    assert.equal((await server.get('/api/categories?page=0')).status, 422);
    assert.equal((await server.get('/api/archived-categories?page=0')).status, 422);
    const options = await server.get('/api/categories/options?label=name');
    assert.deepEqual(options.body.data, [{ label: 'Books', value: 'Books' }, { label: 'Garden', value: 'Garden' }]);
  });
});
