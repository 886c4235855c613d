/**
 * docs/guide/plugins.md agrees with the code: its stage table names exactly CrudPlugin's keys, and
 * its example (docs/examples/plugins/invoices.ts) does what the page says: tenants see only their
 * rows (another tenant's is a 404), create writes the tenant and the creator, a request without a
 * tenant is a 403, and a model the plugins cannot serve is refused at registration.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import { DataTypes } from 'sequelize';
import { crud, resource, tenantScope, type CrudPlugin } from '../../lib/index.js';
import { Invoice, app, sequelize, stampCreator } from '../../docs/examples/plugins/invoices.js';
import { serve, type TestServer } from '../support/http.js';
import * as notes from '../../docs/examples/plugins/read-your-writes.js';
import { tableUnder } from '../support/markdown.js';

const PAGE = readFileSync('docs/guide/plugins.md', 'utf8');

/**
 * CrudPlugin's keys with each stage's parameter count: the compiler refuses this object when a key
 * is added or removed, or when a stage's parameters change.
 */
type Arity<K extends keyof CrudPlugin> = K extends 'name' ? 0 : Parameters<Required<CrudPlugin>[K] & ((...args: never[]) => unknown)>['length'];
const PLUGIN_KEYS: { readonly [K in keyof Required<CrudPlugin>]: Arity<K> } = { name: 0, check: 1, query: 2, data: 2, rows: 2, rowScope: 2, readFrom: 1, committed: 1 };

describe('docs/guide/plugins.md', () => {
  it('lists exactly the keys of CrudPlugin, in its order, each with its parameters', () => {
    const listed = tableUnder(PAGE, 'The stages').map(([cell]) => /^`(\w+)(?:\(([^)]*)\))?`$/.exec(cell!));
    assert.ok(listed.every((match) => match !== null), 'every first cell is `name` or `stage(params)`');
    assert.deepEqual(listed.map((match) => match![1]), Object.keys(PLUGIN_KEYS));
    for (const match of listed) {
      const [, stage, params] = match!;
      assert.equal(params === undefined ? 0 : params.split(',').length, PLUGIN_KEYS[stage as keyof CrudPlugin], `${stage}: parameters`);
    }
  });

  it('includes its examples', () => {
    assert.ok(PAGE.includes('<<< @/examples/plugins/read-your-writes.ts#app'));
    assert.ok(PAGE.includes('<<< @/examples/plugins/invoices.ts#app'));
    assert.ok(PAGE.includes('<<< @/examples/plugins/invoices.ts#plugin'));
  });
});

describe('docs/examples/plugins/invoices.ts', () => {
  let server: TestServer;
  const as = (user: string | undefined, method = 'GET', body?: unknown): RequestInit & { method: string } => ({
    method,
    headers: { ...(user ? { 'x-user': user } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const send = (path: string, init: RequestInit & { method: string }) => server.request(init.method, path, init);
  let acme: string;

  before(async () => {
    await sequelize.sync({ force: true });
    await Invoice.bulkCreate([{ tenantId: 'globex', number: 'G-1', total: 10 }]);
    server = await serve(app);
  });
  after(async () => {
    await server.close();
    await sequelize.close();
  });

  it('writes the tenant and the creator on create, whatever the body says', async () => {
    const created = await send('/api/invoices', as('ada', 'POST', { number: 'A-1', total: 25, tenantId: 'globex', createdBy: 'mallory' }));
    assert.equal(created.status, 201, created.text);
    acme = created.body.data.id;
    const row = await Invoice.findByPk(acme);
    assert.deepEqual([row!.tenantId, row!.createdBy], ['acme', 'ada']);
  });

  it('lists, exports and offers only the caller’s tenant’s rows', async () => {
    assert.deepEqual((await send('/api/invoices', as('grace'))).body.data.map((i: { number: string }) => i.number), ['G-1']);
    assert.deepEqual((await send('/api/invoices', as('ada'))).body.data.map((i: { number: string }) => i.number), ['A-1']);
    assert.deepEqual((await send('/api/invoices/options?label=number', as('grace'))).body.data.map((i: { label: string }) => i.label), ['G-1']);
    const csv = await send('/api/invoices/export-csv', as('ada'));
    assert.ok(csv.text.includes('A-1') && !csv.text.includes('G-1'), csv.text);
  });

  it('answers 404 for another tenant’s row, and changes nothing', async () => {
    const read = await send(`/api/invoices/${acme}`, as('grace'));
    assert.equal(read.status, 404);
    assert.equal(read.body.data[0].error, 'recordNotFound');
    assert.equal((await send(`/api/invoices/${acme}`, as('grace', 'PATCH', { total: 1 }))).status, 404);
    assert.equal((await send(`/api/invoices/${acme}/soft`, as('grace', 'DELETE'))).status, 404);
    assert.equal((await send(`/api/invoices/${acme}`, as('grace', 'DELETE'))).status, 404);
    assert.equal(Number((await Invoice.findByPk(acme))!.total), 25);
    assert.equal((await send(`/api/invoices/${acme}`, as('ada'))).status, 200);
  });

  it('never moves a row to another tenant on update', async () => {
    const updated = await send(`/api/invoices/${acme}`, as('ada', 'PATCH', { total: 30, tenantId: 'globex', createdBy: 'mallory' }));
    assert.equal(updated.status, 200, updated.text);
    const row = await Invoice.findByPk(acme);
    assert.deepEqual([row!.tenantId, row!.createdBy, Number(row!.total)], ['acme', 'ada', 30]);
  });

  it('answers 403 to a request without a tenant', async () => {
    const res = await send('/api/invoices', as(undefined));
    assert.equal(res.status, 403);
    assert.deepEqual(res.body.data, [{ field: null, error: 'forbidden', message: 'This request has no tenant' }]);
  });

  it('refuses, at registration, a model without the attributes its plugins need', () => {
    const Note = sequelize.define('Note', { id: { type: DataTypes.UUID, primaryKey: true }, body: DataTypes.STRING });
    const plugins: CrudPlugin[] = [tenantScope('tenantId', () => 't'), stampCreator('createdBy')];
    assert.throws(
      () => crud(new Router(), 'notes', resource(Note, { policy: { fillable: 'all' } }), { plugins }),
      {
        name: 'TypeError',
        message:
          "crud('notes', resource(Note)): plugin tenantScope(tenantId): Note has no attribute tenantId to scope tenants by; " +
          'plugin stampCreator(createdBy): Note has no attribute createdBy',
      },
    );
  });
});

describe('docs/examples/plugins/read-your-writes.ts', () => {
  let server: TestServer;
  /** Whether each read query ran with useMaster (on SQLite: the commit-time window's primary). */
  const reads: boolean[] = [];
  before(async () => {
    await notes.sequelize.sync({ force: true });
    notes.sequelize.addHook('beforeQuery', (options: { type?: string; useMaster?: boolean }) => {
      if (options.type === 'SELECT') reads.push(options.useMaster === true);
    });
    server = await serve(notes.app);
  });
  after(async () => {
    await server.close();
    await notes.sequelize.close();
  });

  it('gives a write a token, in a Consistency-Token header and an HttpOnly SameSite=Lax cookie for the window', async () => {
    const created = await server.request('POST', '/api/notes', { headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' });
    assert.equal(created.status, 201, created.text);
    const token = created.headers.get('consistency-token')!;
    assert.match(token, /^t[0-9]{13}$/);
    assert.match(created.headers.get('set-cookie')!, /^fast-crud-consistency=t[0-9]{13}; path=\/; expires=[^;]+; samesite=lax; httponly$/);

    // The executors' probe (a model's first search) reads as usual: not counted.
    assert.equal((await server.get('/api/notes')).status, 200);
    reads.length = 0;
    const id = created.body.data.id as string;
    assert.equal((await server.request('GET', `/api/notes/${id}`, { headers: { 'consistency-token': token } })).status, 200);
    const cookie = created.headers.get('set-cookie')!.split(';')[0]!;
    assert.equal((await server.request('GET', '/api/notes', { headers: { cookie } })).body.data.length, 1);
    assert.equal((await server.get(`/api/notes/${id}`)).status, 200);
    assert.equal((await server.request('GET', `/api/notes/${id}`, { headers: { 'consistency-token': 'x1; DROP' } })).status, 200);
    // With the token (header or cookie) within the window: the primary (the search's page and count are one SQLite
    // statement); without one, or with a malformed one: as usual.
    assert.deepEqual(reads, [true, true, false, false]);
  });
});
