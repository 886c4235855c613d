/**
 * docs/guide/errors.md lists every `error` code koa-fast-crud can send, and nothing else.
 *
 * The library's own codes and their statuses are ERROR_TABLE's: the page's codes table is
 * docs/generated/error-codes.md, which docs/examples/errors/codes-table.ts renders from the table
 * (`npm run docs:examples`; spec/docs/site-examples.spec.ts fails when the committed file drifts).
 * Besides those, the page lists the names the library passes on: a model validator's name, and
 * the camelCase name of the 4xx status a thrown http error has.
 *
 * A scan of lib/ stays only as a guard: every code written there as a bare string literal (a fail
 * item's `error: '…'`, `clientError(4xx, '…')`, an OptionsError tag) is in ERROR_TABLE. Codes
 * passed to `statusOf`, `clientErrorOf` or typed `FailItem<ErrorCode>` items are checked by tsc.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { camelCase } from 'change-case';
import { DataTypes, type Sequelize } from 'sequelize';
import Router from '@koa/router';
import Koa from 'koa';
import { CrudController, ERROR_TABLE, crud, type ErrorCode } from '../../lib/index.js';
import { ERROR_CODES, HttpStatus, replyForError, statusOf } from '../../lib/core.js';
import { renderErrorCodes } from '../../docs/examples/errors/codes-table.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { serve } from '../support/http.js';
import { tableRows } from '../support/markdown.js';

const PAGE = readFileSync('docs/guide/errors.md', 'utf8');
const GENERATED = readFileSync('docs/generated/error-codes.md', 'utf8');

/** Source text of every lib/ file, comments removed (doc comments hold example codes too). */
function libSources(dir = 'lib', except: readonly string[] = []): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return libSources(path, except);
    if (!entry.name.endsWith('.ts') || except.includes(path)) return [];
    return [readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')];
  });
}

const LITERAL_CODES = [
  /\berror: '([A-Za-z_]\w*)'/g, // fail items written out
  /\bclientError\(\s*\d{3},\s*'([A-Za-z_]\w*)'/g, // client errors with a status of their own
  /\b_tag: '([A-Za-z_]\w*)'/g, // OptionsError tags, which failItemOf turns into codes
];
/** ConfigError's tag: thrown at registration, never sent to a client. */
const NOT_SENT = new Set(['invalidConfig']);

const literalCodes = new Set(
  libSources().flatMap((source) => LITERAL_CODES.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!))).filter((code) => !NOT_SENT.has(code)),
);
const statusNames = new Map(
  Object.entries(HttpStatus)
    .filter(([, code]) => code >= 400 && code < 500)
    .map(([name, code]) => [code as number, camelCase(name)]),
);
const isLibraryCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_TABLE, code);

/** The page's `## Codes` section. */
const CODES_SECTION = /^## Codes$([\s\S]*?)^## /m.exec(PAGE)?.[1] ?? '';
/** The generated table's rows: code (without backticks) and status cell. */
const generatedRows = tableRows(GENERATED, '| code |').map(([code, status]) => [code!.replace(/`/g, ''), status!] as const);
/** The page's own table of the codes the library passes on: first cell and status cell. */
const passedOn = tableRows(CODES_SECTION, '| code |').map(([code, status]) => [code!, status!] as const);
/** Rows of the status-name table: `| 409 | \`conflict\` |`. */
const statusTable = new Map([...PAGE.matchAll(/^\| (4\d\d) \| `(\w+)` \|$/gm)].map(([, status, code]) => [Number(status), code!]));

describe('docs/guide/errors.md', () => {
  it("includes, in its Codes section, the codes table rendered from ERROR_TABLE", () => {
    assert.ok(CODES_SECTION.includes('<!--@include: ../generated/error-codes.md-->'));
    assert.equal(GENERATED, renderErrorCodes(), 'run npm run docs:examples');
  });

  it("lists every code of ERROR_TABLE, in the table's order, with the status statusOf gives", () => {
    assert.deepEqual(generatedRows.map(([code]) => code), [...ERROR_CODES]);
    for (const [code, cell] of generatedRows) {
      assert.ok(isLibraryCode(code));
      if (code === 'clientError') assert.equal(cell, 'the thrown 4xx');
      else if (cell === '400\\*') assert.equal(statusOf(code, 422), 422, `${code} follows global.validation.http_status`);
      else assert.deepEqual([statusOf(code, 422), statusOf(code, 400)], [Number(cell), Number(cell)], `${code} has a fixed status`);
    }
  });

  it('lists besides only what the library passes on: validator names and thrown statuses\' names', () => {
    assert.deepEqual(passedOn, [["a validator's name", '400\\*'], ['`conflict`', '409']]);
    assert.equal(statusNames.get(409), 'conflict');
  });

  it('writes in lib/ no code literal that ERROR_TABLE lacks (the guard still finds codes)', () => {
    for (const code of ['required', 'columnNotFound', 'invalidValue', 'forbidden', 'recordNotFound', 'type', 'emptyPayload']) {
      assert.ok(literalCodes.has(code), `the scan of lib/ no longer finds ${code}`);
    }
    const unknown = [...literalCodes].filter((code) => !isLibraryCode(code));
    assert.deepEqual(unknown, [], `codes written in lib/ but missing from ERROR_TABLE: ${unknown.join(', ')}`);
  });

  it('has in ERROR_TABLE no code that lib/ never writes (outside the table and the ErrorCode union)', () => {
    const written = new Set(libSources('lib', ['lib/core/error-codes.ts', 'lib/types.ts']).flatMap((source) => [...source.matchAll(/'([A-Za-z]\w*)'/g)].map((m) => m[1]!)));
    assert.deepEqual(ERROR_CODES.filter((code) => !written.has(code)), []);
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
    const demoValidationStatus = 400;
    let checked = 0;
    for (const file of generated) {
      const text = readFileSync(`docs/generated/${file}`, 'utf8');
      for (const [, status, body] of text.matchAll(/HTTP\/1\.1 (\d{3}) [^\n]*\n(?:[^\n]+\n)*\n([\s\S]*?)\n```/g)) {
        for (const [, code] of body!.matchAll(/"error": "(\w+)"/g)) {
          if (!isLibraryCode(code!) || code === 'clientError') continue; // validator names (`is_null`)
          assert.equal(statusOf(code, demoValidationStatus), Number(status), `${file}: ${code} comes with ${status}`);
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

  it('runs docs/examples/errors/outage.ts: the 503 databaseUnavailable and databaseTimeout, with Retry-After', async () => {
    await import('../../docs/examples/errors/outage.js');
  });

  it('answers a thrown 5xx with a bare 500, but a database failure from a hook with its 503', () => {
    assert.equal(replyForError(Object.assign(new Error('Down'), { status: 503, expose: false })).status, 500);
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { name: 'SequelizeConnectionRefusedError' });
    assert.deepEqual(replyForError(refused), { status: 503, headers: { 'Retry-After': '1' }, body: { status: 'error', code: 'databaseUnavailable', message: 'The database is unavailable' } });
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
        override fillable = ['amount'];
        modelClassName() {
          return Price;
        }
      }
      const router = new Router();
      crud(router, 'prices', PriceController, { only: ['create'] });
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
