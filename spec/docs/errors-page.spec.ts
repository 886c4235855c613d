/**
 * docs/guide/errors.md lists every `error` code koa-fast-crud can send, and nothing else.
 *
 * The codes are ERROR_CODES plus the camelCase names of the 4xx statuses that a thrown http error
 * gets. Where they are written in lib/ they are string literals (fail items, `clientError(...)`
 * calls, the OptionsError tags, two fallbacks in error-reply.ts), so this spec also scans lib/ with
 * regular expressions and checks ERROR_CODES against what it finds.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { camelCase } from 'change-case';
import { DataTypes, type Sequelize } from 'sequelize';
import Router from '@koa/router';
import Koa from 'koa';
import { CrudController, ERROR_CODES, HttpStatus, crud, replyForError } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { serve } from '../support/http.js';

const PAGE = readFileSync('docs/guide/errors.md', 'utf8');

/** Source text of every lib/ file, comments removed (doc comments hold example codes too). */
function libSources(dir = 'lib'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return libSources(path);
    if (!entry.name.endsWith('.ts')) return [];
    return [readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')];
  });
}

const PATTERNS = [
  /\berror: '([A-Za-z_]\w*)'/g, // fail items written out
  /\bclientError\(\s*\d{3},\s*'([A-Za-z_]\w*)'/g, // body errors
  /\bclientErrorOf\(\s*'([A-Za-z_]\w*)'/g, // body errors, status from ERROR_TABLE
  /'([A-Za-z_]\w*)' satisfies ErrorCode/g, // fallbacks: `?? ('clientError' satisfies ErrorCode)`
  /\bitem\([^,]+, '([A-Za-z_]\w*)'/g, // error-reply.ts's constraint and data items
  /\b_tag: '([A-Za-z_]\w*)'/g, // OptionsError tags, which failItemOf turns into codes
  /\b(?:code|error)\b[^;\n]*\?\? '([A-Za-z_]\w*)'/g, // fallbacks: `?? 'clientError'`, `?? 'invalid'`
];
/** ConfigError's tag: thrown at registration, never sent to a client. */
const NOT_SENT = new Set(['invalidConfig']);

const libCodes = new Set(
  libSources().flatMap((source) => PATTERNS.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!))).filter((code) => !NOT_SENT.has(code)),
);
const statusNames = new Map(
  Object.entries(HttpStatus)
    .filter(([, code]) => code >= 400 && code < 500)
    .map(([name, code]) => [code as number, camelCase(name)]),
);

/** The page's `## Codes` section. */
const CODES_SECTION = /^## Codes$([\s\S]*?)^## /m.exec(PAGE)?.[1] ?? '';
/** Rows of the codes table: the first cell is exactly one code in backticks. */
const catalogue = new Map(
  [...CODES_SECTION.matchAll(/^\| `([A-Za-z_]\w*)` \| ([^|]+) \|/gm)].map(([, code, status]) => [code!, status!.trim()]),
);
/** Rows of the status-name table: `| 409 | \`conflict\` |`. */
const statusTable = new Map([...PAGE.matchAll(/^\| (4\d\d) \| `(\w+)` \|$/gm)].map(([, status, code]) => [Number(status), code!]));

describe('docs/guide/errors.md', () => {
  it('has a codes table', () => assert.ok(catalogue.size >= 15, `${catalogue.size} rows`));

  it('finds the codes in lib/ (the scan still works)', () => {
    for (const code of ['required', 'columnNotFound', 'invalidValue', 'forbidden', 'unique', 'contentTooLarge', 'clientError', 'invalid']) {
      assert.ok(libCodes.has(code), `the scan of lib/ no longer finds ${code}`);
    }
  });

  it('finds exactly ERROR_CODES written in lib/, so the exported list (and the OpenAPI examples) stay complete', () => {
    assert.deepEqual([...libCodes].sort(), [...ERROR_CODES].sort());
  });

  it('lists every code lib/ can send in its codes table', () => {
    const missing = [...libCodes].filter((code) => !catalogue.has(code));
    assert.deepEqual(missing, [], `codes sent by lib/ but missing from the page: ${missing.join(', ')}`);
  });

  it('lists no code lib/ cannot send', () => {
    const derived = new Set(statusNames.values());
    const unknown = [...catalogue.keys()].filter((code) => !libCodes.has(code) && !derived.has(code));
    assert.deepEqual(unknown, [], `codes on the page that lib/ never sends: ${unknown.join(', ')}`);
  });

  it('names every 4xx status of HttpStatus with the code a thrown error of that status gets, and no other', () => {
    assert.deepEqual(statusTable, statusNames);
    for (const [status, code] of statusNames) {
      const reply = replyForError(Object.assign(new Error('m'), { status, expose: true }));
      assert.deepEqual(reply, { status, body: { status: 'fail', data: [{ field: null, error: code, message: 'm' }], meta: {} } });
    }
  });

  it('gives, for each code in a generated example, the status that example shows', () => {
    const generated = readdirSync('docs/generated').filter((f) => f.startsWith('errors-'));
    assert.ok(generated.length >= 4);
    let checked = 0;
    for (const file of generated) {
      const text = readFileSync(`docs/generated/${file}`, 'utf8');
      for (const [, status, body] of text.matchAll(/HTTP\/1\.1 (\d{3}) [^\n]*\n(?:[^\n]+\n)*\n([\s\S]*?)\n```/g)) {
        for (const [, code] of body!.matchAll(/"error": "(\w+)"/g)) {
          const row = catalogue.get(code!);
          if (row === undefined) continue; // validator names (`is_null`) are not lib/ codes
          assert.ok(row.includes(status!), `${file}: ${code} comes with ${status}, the table says ${row}`);
          checked += 1;
        }
      }
    }
    assert.ok(checked >= 15, `only ${checked} codes found in the generated examples`);
  });

  it('answers a thrown 4xx outside the registry with clientError, and a thrown 5xx with a bare 500', () => {
    const reply499 = replyForError(Object.assign(new Error('Client Closed Request'), { status: 499, expose: true }));
    assert.deepEqual(reply499, { status: 499, body: { status: 'fail', data: [{ field: null, error: 'clientError', message: 'Client Closed Request' }], meta: {} } });
    const reply503 = replyForError(Object.assign(new Error('Down'), { status: 503, expose: false }));
    assert.deepEqual(reply503, { status: 500, body: { status: 'error', message: 'Internal Server Error' } });
  });

  it("runs docs/examples/errors/thrown.ts: hooks' errors, the 500 and the 413", async () => {
    await import('../../docs/examples/errors/thrown.js');
  });
});

const databases = await testDatabases();
after(() => closeAll(databases));

for (const db of databases) {
  describe(`docs/guide/errors.md: a value out of the column's range on ${db.dialect}`, { skip: db.skip }, () => {
    it(db.dialect === 'sqlite' ? 'is stored: SQLite does not check it' : 'is a 400 invalidValue with no field', async () => {
      const sequelize = db.sequelize as Sequelize;
      const Price = sequelize.define('ErrdocPrice', { amount: DataTypes.DECIMAL(10, 2) }, { tableName: 'errdoc_prices', timestamps: false });
      await Price.sync({ force: true });
      class PriceController extends CrudController {
        modelClassName() {
          return Price;
        }
      }
      const router = new Router();
      crud(router, 'prices', PriceController);
      const server = await serve(new Koa().use(router.routes()));
      try {
        const res = await server.request('POST', '/prices', { headers: { 'content-type': 'application/json' }, body: '{"amount":1e12}' });
        if (db.dialect === 'sqlite') assert.equal(res.status, 201, res.text);
        else {
          assert.deepEqual([res.status, res.body], [
            400,
            { status: 'fail', data: [{ field: null, error: 'invalidValue', message: 'A value does not fit its column' }], meta: {} },
          ]);
        }
      } finally {
        await server.close();
        await Price.drop();
      }
    });
  });
}
