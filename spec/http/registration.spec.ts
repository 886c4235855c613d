import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type ModelStatic } from 'sequelize';
import {
  CrudController,
  createFastCrud,
  crud,
  openApiResource,
  resource,
  tenantScope,
  type CrudOptions,
  type CrudTarget,
  type Declarations,
} from '../../lib/index.js';
import { serve, type TestServer } from '../support/http.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
after(() => sequelize.close());

const uuidKey = { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true };
const Category = sequelize.define('Category', { id: uuidKey, name: DataTypes.STRING(40) }, { tableName: 'reg_categories', timestamps: false });
/** No deleted-at column: softDelete and restore are registered, and answer columnNotFound. */
const User = sequelize.define(
  'User',
  { id: uuidKey, email: DataTypes.STRING(60), password: DataTypes.STRING(60), name: DataTypes.STRING(60), categoryId: DataTypes.UUID },
  { tableName: 'reg_users', underscored: true },
);
User.belongsTo(Category, { as: 'category', foreignKey: 'categoryId', constraints: false });
/** An integer key, and a UUID column a uuid route can find rows by. */
const Counter = sequelize.define(
  'Counter',
  {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
    externalId: { type: DataTypes.UUID, field: 'external_id', defaultValue: DataTypes.UUIDV4 },
    label: DataTypes.STRING(40),
  },
  { tableName: 'reg_counters', timestamps: false },
);
/** A model class never initialised: no attributes, no Sequelize. */
class Ghost extends Model {}

/** One way of declaring a resource: the class form or `resource()`, and how errors name it. */
interface Form {
  readonly kind: 'class' | 'resource';
  target(model: ModelStatic<Model>, declared?: Declarations): CrudTarget;
  /** How `crud` and `openApiResource` name the target of `model` in their errors. */
  name(model: { name: string }): string;
}

const FORMS: readonly Form[] = [
  {
    kind: 'class',
    target: (model, declared = {}) => {
      const Controller = class extends CrudController {
        override hidden = declared.hidden ?? [];
        override fillable = declared.fillable === 'all' ? undefined : declared.fillable;
        override sortable = declared.sortable;
        override filterable = declared.filterable;
        override termFields = declared.termFields ?? [];
        override csvColumns = declared.csvColumns;
        modelClassName() {
          return model;
        }
      };
      return Object.defineProperty(Controller, 'name', { value: `${model.name}Controller` });
    },
    name: (model) => `${model.name}Controller`,
  },
  {
    kind: 'resource',
    target: (model, declared = {}) =>
      resource(model, {
        policy: { fillable: declared.fillable ?? 'all', hidden: declared.hidden, sortable: declared.sortable, filterable: declared.filterable },
        search: { termFields: declared.termFields },
        csv: { columns: declared.csvColumns },
      }),
    name: (model) => `resource(${model.name})`,
  },
];

/** Asserts that `register` throws a TypeError whose message holds every part. */
function assertRefused(register: () => unknown, parts: readonly string[]): void {
  assert.throws(register, (error: unknown) => {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${String(error)}`);
    for (const part of parts) assert.ok(error.message.includes(part), `${JSON.stringify(error.message)}\n  should include ${JSON.stringify(part)}`);
    return true;
  });
}

/** Registers with `crud` and describes with `openApiResource`: both must refuse, each naming itself. */
function assertBothRefuse(uri: string, target: CrudTarget, options: CrudOptions, name: string, parts: readonly string[]): void {
  assertRefused(() => crud(new Router(), uri, target, options), [`crud('${uri}', ${name})`, ...parts]);
  const { can: _can, ...described } = options;
  assertRefused(() => openApiResource(uri, target, described), [`openApiResource('${uri}', ${name})`, ...parts]);
}

/** An unknown name per list, with the name it most likely meant. */
const MISSPELT = [
  { key: 'hidden', bad: 'pasword', guess: 'password' },
  { key: 'fillable', bad: 'emal', guess: 'email' },
  { key: 'sortable', bad: 'nme', guess: 'name' },
  { key: 'filterable', bad: 'categoryid', guess: 'categoryId' },
  { key: 'termFields', bad: 'emails', guess: 'email' },
] as const;

for (const form of FORMS) {
  describe(`registration of the ${form.kind} form`, () => {
    for (const { key, bad, guess } of MISSPELT) {
      it(`refuses an unknown name in ${key}, naming the target, the uri, the key, the value and the nearest name`, () => {
        assertBothRefuse('users', form.target(User, { [key]: [bad] }), {}, form.name(User), [
          `${key} names '${bad}', which is not an attribute or column of User`,
          `did you mean '${guess}'?`,
        ]);
      });
    }

    it('refuses an unknown name with no near one, without a guess', () => {
      assertRefused(() => crud(new Router(), 'users', form.target(User, { sortable: ['colour'] })), [
        `crud('users', ${form.name(User)}): sortable names 'colour', which is not an attribute or column of User`,
      ]);
      assert.throws(() => crud(new Router(), 'users', form.target(User, { sortable: ['colour'] })), (error: Error) => !error.message.includes('did you mean'));
    });

    it('refuses every unknown name at once', () => {
      assertRefused(() => crud(new Router(), 'users', form.target(User, { hidden: ['pasword'], termFields: ['emails'] })), [
        "hidden names 'pasword'",
        "; termFields names 'emails'",
      ]);
    });

    it('accepts attribute and column names', () => {
      const declared: Declarations = { hidden: ['password'], fillable: ['email', 'category_id'], sortable: ['created_at'], filterable: ['categoryId'], termFields: ['name'] };
      assert.equal(crud(new Router(), 'users', form.target(User, declared)).length, 12);
      assert.equal(openApiResource('users', form.target(User, declared)).uri, 'users');
    });

    it('refuses a csv path through an unknown association', () => {
      assertBothRefuse('users', form.target(User, { csvColumns: { 'categry.name': 'Category' } }), {}, form.name(User), [
        "csvColumns names 'categry.name': 'categry' is not an association of User",
        "did you mean 'category'?",
      ]);
    });

    it('refuses a csv path to an unknown attribute of the association', () => {
      assertBothRefuse('users', form.target(User, { csvColumns: { email: 'Email', 'category.nme': 'Category' } }), {}, form.name(User), [
        "csvColumns names 'category.nme': 'nme' is not an attribute or column of Category",
        "did you mean 'name'?",
      ]);
    });

    it('refuses an integer primary key behind {id:uuid} routes, naming find_field_is_uuid: false', () => {
      assertBothRefuse('counters', form.target(Counter), {}, form.name(Counter), [
        'read, update, delete, softDelete and restore find {id} in Counter.id (INTEGER), but the routes take {id:uuid}',
        'find_field_is_uuid: false',
      ]);
      assertRefused(() => crud(new Router(), 'counters', form.target(Counter), { only: ['search', 'read'] }), [
        "crud('counters', " + form.name(Counter) + '): read finds {id} in Counter.id (INTEGER)',
      ]);
    });

    it('accepts an integer primary key with find_field_is_uuid false, or without record actions', () => {
      const lenient = { config: { global: { find_field_is_uuid: false } } };
      assert.equal(crud(new Router(), 'counters', form.target(Counter), lenient).length, 12);
      assert.equal(createFastCrud(lenient).crud(new Router(), 'counters', form.target(Counter)).length, 12);
      assert.equal(openApiResource('counters', form.target(Counter), lenient).uri, 'counters');
      assert.deepEqual(
        crud(new Router(), 'counters', form.target(Counter), { only: ['search'] }).map((def) => def.method),
        ['search'],
      );
    });

    it("accepts find_field 'external_id', a UUID column of an integer-keyed model", () => {
      const options = { config: { global: { find_field: 'external_id' } } };
      assert.equal(crud(new Router(), 'counters', form.target(Counter), options).length, 12);
      assert.equal(openApiResource('counters', form.target(Counter), options).uri, 'counters');
    });

    it('accepts a declared fillable (a list, or resource()\'s explicit all) under global.require_fillable', () => {
      const strict = { config: { global: { require_fillable: true } } };
      assert.equal(crud(new Router(), 'users', form.target(User, { fillable: ['email', 'name'] }), strict).length, 12);
      assert.equal(createFastCrud(strict).crud(new Router(), 'users', form.target(User, { fillable: ['email'] })).length, 12);
      if (form.kind === 'resource') assert.equal(crud(new Router(), 'users', form.target(User, { fillable: 'all' }), strict).length, 12);
    });

    if (form.kind === 'class') {
      it('refuses a controller that registers create or update without declaring fillable under global.require_fillable, naming it', () => {
        const strict = { config: { global: { require_fillable: true } } };
        assertBothRefuse('users', form.target(User), strict, form.name(User), [
          'UserController registers create and update without declaring fillable, and global.require_fillable is on',
          "override fillable = ['…']",
        ]);
        assertRefused(() => createFastCrud(strict).crud(new Router(), 'users', form.target(User), { only: ['update'] }), [
          `crud('users', UserController): UserController registers update without declaring fillable`,
        ]);
        // Without a write, or without the switch (the default), nothing is refused.
        assert.deepEqual(crud(new Router(), 'users', form.target(User), { ...strict, only: ['search', 'read'] }).map((def) => def.method), ['search', 'read']);
        assert.equal(crud(new Router(), 'users', form.target(User)).length, 12);
      });
    }

    it('refuses a model that was never initialised', () => {
      assertBothRefuse('ghosts', form.target(Ghost), {}, form.name(Ghost), [
        'the model Ghost is not initialised: call Ghost.init(attributes, { sequelize }) or sequelize.define(…) before registering it',
      ]);
    });

    it('refuses a tenantScope plugin naming a missing attribute, from the crud options or createFastCrud', () => {
      const plugins = [tenantScope('tenantId', () => 't1')];
      const parts = ['plugin tenantScope(tenantId): User has no attribute tenantId to scope tenants by'];
      assertBothRefuse('users', form.target(User), { plugins }, form.name(User), parts);
      const app = createFastCrud({ plugins });
      assertRefused(() => app.crud(new Router(), 'users', form.target(User)), [`crud('users', ${form.name(User)})`, ...parts]);
      assertRefused(() => app.openApiResource('users', form.target(User)), [`openApiResource('users', ${form.name(User)})`, ...parts]);
    });
  });
}

describe('registered resources that registration let through', () => {
  let server: TestServer;
  const errors: unknown[] = [];
  let user: Model;
  let counter: Model;

  before(async () => {
    for (const model of [Category, User, Counter]) await model.sync({ force: true });
    user = await User.create({ email: 'ada@example.com', password: 'secret', name: 'Ada' });
    await Counter.create({ label: 'first' });
    counter = await Counter.create({ label: 'second' });
    const router = new Router();
    const [classForm, resourceForm] = FORMS as [Form, Form];
    const lenient = { config: { global: { find_field_is_uuid: false } } };
    crud(router, 'class/counters', classForm.target(Counter), lenient);
    crud(router, 'resource/counters', resourceForm.target(Counter), lenient);
    createFastCrud(lenient).crud(router, 'app/counters', resourceForm.target(Counter));
    const byExternal = { config: { global: { find_field: 'external_id' } } };
    crud(router, 'class/external', classForm.target(Counter), byExternal);
    crud(router, 'resource/external', resourceForm.target(Counter), byExternal);
    crud(router, 'class/users', classForm.target(User, { hidden: ['password'] }));
    crud(router, 'resource/users', resourceForm.target(User, { hidden: ['password'] }));
    server = await serve(new Koa().use(router.routes()), errors);
  });
  after(() => server.close());

  for (const prefix of ['/class', '/resource', '/app']) {
    it(`${prefix}: GET /counters/{integer} reads the row, the id coerced to the key's type`, async () => {
      const response = await server.get(`${prefix}/counters/${String(counter.get('id'))}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.data.label, 'second');
    });

    it(`${prefix}: GET /counters/abc is a 404 JSend fail, with no query`, async () => {
      const response = await server.get(`${prefix}/counters/abc`);
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, { status: 'fail', data: [{ field: 'id', error: 'recordNotFound', message: 'The record was not found' }], meta: {} });
    });
  }

  for (const prefix of ['/class', '/resource']) {
    it(`${prefix}: find_field external_id reads by the UUID column, and an integer does not match the route`, async () => {
      const found = await server.get(`${prefix}/external/${String(counter.get('externalId'))}`);
      assert.equal(found.status, 200);
      assert.equal(found.body.data.label, 'second');
      assert.equal((await server.get(`${prefix}/external/${String(counter.get('id'))}`)).status, 404);
      assert.equal((await server.get(`${prefix}/external/${randomUUID()}`)).body.data[0].error, 'recordNotFound');
    });

    it(`${prefix}: softDelete and restore of a model without a deleted-at column answer 400 columnNotFound`, async () => {
      const id = String(user.get('id'));
      for (const [method, path] of [['DELETE', `${prefix}/users/${id}/soft`], ['PATCH', `${prefix}/users/${id}/restore`], ['PUT', `${prefix}/users/${id}/restore`]] as const) {
        const response = await server.request(method, path);
        assert.equal(response.status, 400, `${method} ${path}`);
        assert.equal(response.body.status, 'fail');
        assert.deepEqual(response.body.data.map((item: { field: string; error: string }) => [item.field, item.error]), [['deleted_at', 'columnNotFound']]);
      }
      const read = await server.get(`${prefix}/users/${id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.data.password, undefined);
    });
  }

  it('served no request with a server fault', () => {
    assert.deepEqual(errors, []);
  });
});
