/** Random create → update → softDelete → restore → delete sequences over HTTP, checked against a Map of records. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS, type Form } from '../support/forms.js';
import { serve, type TestResponse, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const RUNS = Number(process.env['FAST_CRUD_LIFECYCLE_RUNS'] ?? 25);

/** The three ways a model may hold soft deletes: plain columns, Sequelize's paranoid, none. */
const KINDS = ['plain', 'paranoid', 'bare'] as const;
type Kind = (typeof KINDS)[number];

/** One record as the model knows it. */
interface Entry {
  readonly name: string;
  readonly qty: number | null;
  readonly trashed: boolean;
  readonly deletedBy: string | null;
}

/** The model: the records that exist, and every id a run created (deleted for good or not), to aim at. */
interface LifecycleModel {
  readonly kind: Kind;
  readonly records: Map<string, Entry>;
  readonly ids: string[];
}

/** The system: the resource's path on a live server, and its Sequelize model to look behind the API. */
interface Real {
  readonly server: TestServer;
  readonly path: string;
  readonly Item: ModelStatic<Model>;
}

/** Defines the kind's model on table `lm_<kind>_items`: uuid id, name, qty, and the soft-delete columns the kind has. */
function defineItems(sequelize: Sequelize, kind: Kind, form: Form): ModelStatic<Model> {
  const base = {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    name: { type: DataTypes.STRING(40), allowNull: false },
    qty: { type: DataTypes.INTEGER, allowNull: true },
  };
  const deletedBy = { type: DataTypes.STRING(40), allowNull: true };
  const options = { tableName: `lm${form.initial}_${kind}_items`, underscored: true };
  switch (kind) {
    case 'plain':
      return sequelize.define(
        `Lm${form.initial}Plain`,
        { ...base, deletedAt: { type: DataTypes.DATE, allowNull: true }, deletedBy },
        { ...options, timestamps: false },
      );
    case 'paranoid':
      return sequelize.define(`Lm${form.initial}Paranoid`, { ...base, deletedBy }, { ...options, paranoid: true });
    case 'bare':
      return sequelize.define(`Lm${form.initial}Bare`, base, { ...options, timestamps: false });
  }
}

/** Which id a command aims at: the nth the run created (whatever became of it since), or a uuid never created. */
type Target = number | string;

/** What a number aims at before the run created anything. */
const NEVER_CREATED = '00000000-0000-4000-8000-000000000000';

function idOf(m: LifecycleModel, target: Target): string {
  return typeof target === 'string' ? target : (m.ids[target % Math.max(m.ids.length, 1)] ?? NEVER_CREATED);
}

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A record with its id, as the model, a reply or the table shows it. */
type Row = Entry & { readonly id: string };

/** A record as a reply or the table shows it, in the model's terms. */
function rowOf(record: Record<string, unknown>): Row {
  return {
    id: record['id'] as string,
    name: record['name'] as string,
    qty: (record['qty'] ?? null) as number | null,
    trashed: record['deletedAt'] != null,
    deletedBy: (record['deletedBy'] ?? null) as string | null,
  };
}

const sortedById = (rows: Row[]): Row[] => rows.sort((a, b) => a.id.localeCompare(b.id));

/** The model's records, sorted by id: those in one state, or all of them. */
function modelRows(m: LifecycleModel, trashed?: boolean): Row[] {
  return sortedById(
    [...m.records].filter(([, e]) => trashed === undefined || e.trashed === trashed).map(([id, e]) => ({ id, ...e })),
  );
}

function expectStatus(res: TestResponse, status: number, error?: string): void {
  assert.equal(res.status, status, res.text);
  if (error !== undefined) assert.equal(res.body.data[0].error, error, res.text);
}

/** After every command: read of the touched id, the search lists and the table itself agree with the model. */
async function agree(m: LifecycleModel, r: Real, id: string): Promise<void> {
  const read = await r.server.get(`${r.path}/${id}`);
  const entry = m.records.get(id);
  if (entry !== undefined && !entry.trashed) {
    expectStatus(read, 200);
    assert.deepEqual(rowOf(read.body.data), { id, ...entry }, 'read');
  } else expectStatus(read, 404, 'recordNotFound');
  const active = await r.server.get(`${r.path}?skipPagination=true`);
  expectStatus(active, 200);
  assert.deepEqual(sortedById(active.body.data.map(rowOf)), modelRows(m, false), 'search');
  const trash = await r.server.get(`${r.path}?skipPagination=true&filter[deleted_at][nn]=1`);
  if (m.kind === 'bare') expectStatus(trash, 400, 'columnNotFound');
  else {
    expectStatus(trash, 200);
    assert.deepEqual(sortedById(trash.body.data.map(rowOf)), modelRows(m, true), 'search filter[deleted_at][nn]');
    // Without a deleted-at condition search lists active rows, and none of those has a deleted-by.
    const marked = await r.server.get(`${r.path}?skipPagination=true&filter[deleted_by][nn]=1`);
    expectStatus(marked, 200);
    assert.deepEqual(marked.body.data, [], 'search filter[deleted_by][nn]');
  }
  const table = await r.Item.findAll({ paranoid: false });
  assert.deepEqual(sortedById(table.map((record) => rowOf(record.get({ plain: true })))), modelRows(m), 'table');
}

type LifecycleCommand = fc.AsyncCommand<LifecycleModel, Real>;

/** POST: 201 with the record; keys that are not fillable (the soft-delete columns) are ignored. */
class Create implements LifecycleCommand {
  constructor(
    readonly name: string,
    readonly qty: number | null,
    readonly sneaky: boolean,
  ) {}
  check = () => true;
  async run(m: LifecycleModel, r: Real) {
    const body = {
      name: this.name,
      qty: this.qty,
      ...(this.sneaky && { deletedAt: '2020-01-01T00:00:00Z', deletedBy: 'mallory' }),
    };
    const res = await r.server.request('POST', r.path, json(body));
    expectStatus(res, 201);
    const id = res.body.data.id as string;
    m.records.set(id, { name: this.name, qty: this.qty, trashed: false, deletedBy: null });
    m.ids.push(id);
    assert.deepEqual(rowOf(res.body.data), { id, ...m.records.get(id)! });
    await agree(m, r, id);
  }
  toString = () => `create(${JSON.stringify(this.name)}, ${this.qty}${this.sneaky ? ', with soft-delete keys' : ''})`;
}

/** PATCH: 200 for an active record; 404 for a missing or soft-deleted one. */
class Update implements LifecycleCommand {
  constructor(
    readonly target: Target,
    readonly name: string,
    readonly sneaky: boolean,
  ) {}
  check = () => true;
  async run(m: LifecycleModel, r: Real) {
    const id = idOf(m, this.target);
    const body = { name: this.name, ...(this.sneaky && { deletedAt: null, deletedBy: 'mallory' }) };
    const res = await r.server.request('PATCH', `${r.path}/${id}`, json(body));
    const entry = m.records.get(id);
    if (entry === undefined || entry.trashed) expectStatus(res, 404, 'recordNotFound');
    else {
      expectStatus(res, 200);
      m.records.set(id, { ...entry, name: this.name });
      assert.deepEqual(rowOf(res.body.data), { id, ...m.records.get(id)! });
    }
    await agree(m, r, id);
  }
  toString = () =>
    `update(${this.target}, ${JSON.stringify(this.name)}${this.sneaky ? ', with soft-delete keys' : ''})`;
}

/** DELETE …/soft as a user (x-user header → ctx.state.user) or none: 200 for an active record, 404 otherwise; 400 without deleted-at. */
class SoftDelete implements LifecycleCommand {
  constructor(
    readonly target: Target,
    readonly user: string | null,
  ) {}
  check = () => true;
  async run(m: LifecycleModel, r: Real) {
    const id = idOf(m, this.target);
    const res = await r.server.request(
      'DELETE',
      `${r.path}/${id}/soft`,
      this.user === null ? {} : { headers: { 'x-user': this.user } },
    );
    const entry = m.records.get(id);
    if (m.kind === 'bare') expectStatus(res, 400, 'columnNotFound');
    else if (entry === undefined || entry.trashed) expectStatus(res, 404, 'recordNotFound');
    else {
      expectStatus(res, 200);
      m.records.set(id, { ...entry, trashed: true, deletedBy: this.user });
      assert.deepEqual(rowOf(res.body.data), { id, ...m.records.get(id)! });
    }
    await agree(m, r, id);
  }
  toString = () => `softDelete(${this.target}, user ${this.user})`;
}

/** PATCH|PUT …/restore: 200 for a soft-deleted record, clearing both marks; 404 otherwise; 400 without deleted-at. */
class Restore implements LifecycleCommand {
  constructor(
    readonly target: Target,
    readonly verb: 'PATCH' | 'PUT',
  ) {}
  check = () => true;
  async run(m: LifecycleModel, r: Real) {
    const id = idOf(m, this.target);
    const res = await r.server.request(this.verb, `${r.path}/${id}/restore`);
    const entry = m.records.get(id);
    if (m.kind === 'bare') expectStatus(res, 400, 'columnNotFound');
    else if (entry === undefined || !entry.trashed) expectStatus(res, 404, 'recordNotFound');
    else {
      expectStatus(res, 200);
      m.records.set(id, { ...entry, trashed: false, deletedBy: null });
      assert.deepEqual(rowOf(res.body.data), { id, ...m.records.get(id)! });
    }
    await agree(m, r, id);
  }
  toString = () => `restore(${this.target}, ${this.verb})`;
}

/** DELETE: finds active and soft-deleted records alike; removes the row, or soft-deletes it on a paranoid model. */
class Delete implements LifecycleCommand {
  constructor(readonly target: Target) {}
  check = () => true;
  async run(m: LifecycleModel, r: Real) {
    const id = idOf(m, this.target);
    const res = await r.server.request('DELETE', `${r.path}/${id}`);
    const entry = m.records.get(id);
    if (entry === undefined) expectStatus(res, 404, 'recordNotFound');
    else {
      expectStatus(res, 200);
      assert.equal(res.body.data, null);
      if (m.kind === 'paranoid') m.records.set(id, { ...entry, trashed: true });
      else m.records.delete(id);
    }
    await agree(m, r, id);
  }
  toString = () => `delete(${this.target})`;
}

const nameArb = fc.stringMatching(/^[A-Za-z0-9]{1,20}$/);
const qtyArb = fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null });
const targetArb: fc.Arbitrary<Target> = fc.oneof(
  { arbitrary: fc.nat({ max: 40 }), weight: 4 },
  { arbitrary: fc.uuid({ version: 4 }), weight: 1 },
);
const createArb = fc.tuple(nameArb, qtyArb, fc.boolean()).map(([name, qty, sneaky]) => new Create(name, qty, sneaky));
const softDeleteArb = fc
  .tuple(targetArb, fc.constantFrom('u-7', 'ada', null))
  .map(([target, user]) => new SoftDelete(target, user));
const restoreArb = fc
  .tuple(targetArb, fc.constantFrom('PATCH' as const, 'PUT' as const))
  .map(([target, verb]) => new Restore(target, verb));
// create, softDelete and restore twice as often as the rest: a sequence then reaches a restore of a deleted row sooner.
const commandsArb = fc.commands(
  [
    createArb,
    createArb,
    fc.tuple(targetArb, nameArb, fc.boolean()).map(([target, name, sneaky]) => new Update(target, name, sneaky)),
    softDeleteArb,
    softDeleteArb,
    restoreArb,
    restoreArb,
    targetArb.map((target) => new Delete(target)),
  ],
  { maxCommands: 12 },
);

for (const db of databases)
  for (const form of FORMS) {
    describe(
      `the record lifecycle (${form.name} form) against an in-memory model on ${db.dialect}`,
      { skip: db.skip },
      () => {
        let server: TestServer;
        const items = new Map<Kind, ModelStatic<Model>>();

        before(async () => {
          const router = new Router();
          for (const kind of KINDS) {
            const Item = defineItems(db.sequelize!, kind, form);
            await Item.sync({ force: true });
            items.set(kind, Item);
            form.register(router, kind, Item, { policy: { fillable: 'all' } });
          }
          const app = new Koa().use(async (ctx, next) => {
            const user = ctx.get('x-user');
            if (user) ctx.state['user'] = { id: user };
            await next();
          });
          server = await serve(app.use(router.routes()));
        });
        after(() => server?.close());

        for (const kind of KINDS) {
          it(`${kind}: every reply, search list and row agrees with the model after each command`, async () => {
            const Item = items.get(kind)!;
            const setup = async () => {
              await Item.destroy({ where: {}, force: true });
              return { model: { kind, records: new Map(), ids: [] }, real: { server, path: `/${kind}`, Item } };
            };
            await fc.assert(
              fc.asyncProperty(commandsArb, (commands) => fc.asyncModelRun(setup, commands)),
              { numRuns: RUNS, includeErrorInReport: true },
            );
          });
        }
      },
    );
  }
