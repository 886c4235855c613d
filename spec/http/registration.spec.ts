import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type ModelStatic } from 'sequelize';
import {
  BaseController,
  CrudController,
  Read,
  Search,
  createFastCrud,
  crud,
  openApiResource,
  resource,
  tenantScope,
  type CrudOptions,
  type CrudTarget,
} from '../../lib/index.js';
import type { Declarations } from '../../lib/core/resource-check.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS as SPEC_FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
after(() => sequelize.close());

const uuidKey = { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true };
const Category = sequelize.define(
  'Category',
  { id: uuidKey, name: DataTypes.STRING(40) },
  { tableName: 'reg_categories', timestamps: false },
);
/** No deleted-at column: softDelete and restore are registered, and answer columnNotFound. */
const User = sequelize.define(
  'User',
  {
    id: uuidKey,
    email: DataTypes.STRING(60),
    password: DataTypes.STRING(60),
    name: DataTypes.STRING(60),
    handle: DataTypes.STRING(40),
    categoryId: DataTypes.UUID,
  },
  { tableName: 'reg_users', underscored: true },
);
/** A deleted-at column of its own: `deleted_att` is a near miss of it. */
const Memo = sequelize.define(
  'Memo',
  { id: uuidKey, title: DataTypes.STRING(40), deletedAt: { type: DataTypes.DATE, field: 'deleted_at' } },
  { tableName: 'reg_memos', timestamps: false },
);
/** A composite primary key: no one `{id}` names a row. */
const BookTag = sequelize.define(
  'BookTag',
  {
    bookId: { type: DataTypes.UUID, primaryKey: true },
    tagId: { type: DataTypes.UUID, primaryKey: true },
    note: DataTypes.STRING(40),
  },
  { tableName: 'reg_book_tags', timestamps: false },
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
        override fillable = fillableOf(declared);
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
        // A plain-JavaScript caller may leave fillable out: the cast stands for that.
        policy: {
          fillable: fillableOf(declared) as 'all',
          hidden: declared.hidden,
          sortable: declared.sortable,
          filterable: declared.filterable,
        },
        search: { termFields: declared.termFields },
        csv: { columns: declared.csvColumns },
      }),
    name: (model) => `resource(${model.name})`,
  },
];

/** The declared fillable, `'all'` when the key is absent; `{ fillable: undefined }` leaves it undeclared. */
function fillableOf(declared: Declarations): Declarations['fillable'] {
  return Object.hasOwn(declared, 'fillable') ? declared.fillable : 'all';
}

/** Asserts that `register` throws a TypeError whose message holds every part. */
function assertRefused(register: () => unknown, parts: readonly string[]): void {
  assert.throws(register, (error: unknown) => {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${String(error)}`);
    for (const part of parts)
      assert.ok(
        error.message.includes(part),
        `${JSON.stringify(error.message)}\n  should include ${JSON.stringify(part)}`,
      );
    return true;
  });
}

/** Registers with `crud` and describes with `openApiResource`: both must refuse, each naming itself. */
function assertBothRefuse(
  uri: string,
  target: CrudTarget,
  options: CrudOptions,
  name: string,
  parts: readonly string[],
): void {
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
      assertRefused(
        () => crud(new Router(), 'users', form.target(User, { sortable: ['colour'] })),
        [`crud('users', ${form.name(User)}): sortable names 'colour', which is not an attribute or column of User`],
      );
      assert.throws(
        () => crud(new Router(), 'users', form.target(User, { sortable: ['colour'] })),
        (error: Error) => !error.message.includes('did you mean'),
      );
    });

    it('refuses every unknown name at once', () => {
      assertRefused(
        () => crud(new Router(), 'users', form.target(User, { hidden: ['pasword'], termFields: ['emails'] })),
        ["hidden names 'pasword'", "; termFields names 'emails'"],
      );
    });

    it('accepts attribute and column names', () => {
      const declared: Declarations = {
        hidden: ['password'],
        fillable: ['email', 'category_id'],
        sortable: ['created_at'],
        filterable: ['categoryId'],
        termFields: ['name'],
      };
      assert.equal(crud(new Router(), 'users', form.target(User, declared)).length, 12);
      assert.equal(openApiResource('users', form.target(User, declared)).uri, 'users');
    });

    it('refuses a csv path through an unknown association', () => {
      assertBothRefuse(
        'users',
        form.target(User, { csvColumns: { 'categry.name': 'Category' } }),
        {},
        form.name(User),
        ["csvColumns names 'categry.name': 'categry' is not an association of User", "did you mean 'category'?"],
      );
    });

    it('refuses a csv path to an unknown attribute of the association', () => {
      assertBothRefuse(
        'users',
        form.target(User, { csvColumns: { email: 'Email', 'category.nme': 'Category' } }),
        {},
        form.name(User),
        ["csvColumns names 'category.nme': 'nme' is not an attribute or column of Category", "did you mean 'name'?"],
      );
    });

    it('refuses an integer primary key behind {id:uuid} routes, naming find_field_is_uuid: false', () => {
      assertBothRefuse('counters', form.target(Counter), {}, form.name(Counter), [
        'read, update, delete, softDelete and restore find {id} in Counter.id (INTEGER), but the routes take {id:uuid}',
        'find_field_is_uuid: false',
      ]);
      assertRefused(
        () => crud(new Router(), 'counters', form.target(Counter), { only: ['search', 'read'] }),
        ["crud('counters', " + form.name(Counter) + '): read finds {id} in Counter.id (INTEGER)'],
      );
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

    it('refuses create or update without a declared fillable, naming the fix', () => {
      const undeclared = form.target(User, { fillable: undefined });
      const parts = [
        'create and update are registered without fillable',
        "declare fillable: [...] (the attributes a body may write) or fillable: 'all'",
      ];
      assertBothRefuse('users', undeclared, {}, form.name(User), parts);
      assertRefused(
        () => createFastCrud().crud(new Router(), 'users', undeclared, { only: ['search', 'update'] }),
        [`crud('users', ${form.name(User)}): update is registered without fillable`],
      );
      assertRefused(
        () => crud(new Router(), 'users', undeclared, { except: ['update'] }),
        ['create is registered without fillable'],
      );
    });

    it('accepts no fillable when neither create nor update is registered', () => {
      const undeclared = form.target(User, { fillable: undefined });
      const readOnly = ['search', 'options', 'read', 'exportCsv', 'delete', 'softDelete', 'restore'] as const;
      assert.deepEqual(
        crud(new Router(), 'users', undeclared, { only: [...readOnly] }).map((def) => def.method),
        ['search', 'options', 'exportCsv', 'read', 'delete', 'softDelete', 'restore', 'restore'],
      );
      assert.equal(crud(new Router(), 'users', undeclared, { except: ['create', 'update'] }).length, 8);
      assert.equal(openApiResource('users', undeclared, { only: ['search', 'read'] }).uri, 'users');
    });

    it("accepts a declared fillable: a list, or 'all'", () => {
      assert.equal(crud(new Router(), 'users', form.target(User, { fillable: ['email', 'name'] })).length, 12);
      assert.equal(createFastCrud().crud(new Router(), 'users', form.target(User, { fillable: 'all' })).length, 12);
      assert.equal(openApiResource('users', form.target(User, { fillable: 'all' })).uri, 'users');
    });

    it('refuses options.default_value naming a hidden attribute, when options is registered', () => {
      const target = form.target(User, { hidden: ['password'] });
      assertBothRefuse('users', target, { config: { options: { default_value: 'password' } } }, form.name(User), [
        "options.default_value names 'password', a hidden attribute of User",
      ]);
      const hiddenId = form.target(User, { hidden: ['id'] });
      assertRefused(
        () => crud(new Router(), 'users', hiddenId, { only: ['options'] }),
        ["options.default_value names 'id', a hidden attribute of User"],
      );
      assert.deepEqual(
        crud(new Router(), 'users', hiddenId, { only: ['search'] }).map((def) => def.method),
        ['search'],
      );
    });

    it('refuses options.default_value that is a near miss of an attribute, and accepts a name that is none', () => {
      assertBothRefuse(
        'users',
        form.target(User),
        { config: { options: { default_value: 'handel' } } },
        form.name(User),
        ["options.default_value names 'handel', which is not an attribute or column of User; did you mean 'handle'?"],
      );
      assertRefused(
        () =>
          createFastCrud({ config: { options: { default_value: 'emial' } } }).crud(
            new Router(),
            'users',
            form.target(User),
          ),
        ["did you mean 'email'?"],
      );
      // A column of the table that the model does not declare stays allowed (spec options rule 3).
      assert.equal(
        crud(new Router(), 'users', form.target(User), { config: { options: { default_value: 'legacy_code' } } })
          .length,
        12,
      );
      assert.equal(
        crud(new Router(), 'users', form.target(User), { config: { options: { default_value: 'handle' } } }).length,
        12,
      );
      assert.equal(
        crud(new Router(), 'users', form.target(User), {
          only: ['search'],
          config: { options: { default_value: 'handel' } },
        }).length,
        1,
      );
    });

    it('refuses options.value_columns naming a hidden attribute or a near miss, and accepts undeclared columns', () => {
      const target = form.target(User, { hidden: ['password'] });
      assertBothRefuse(
        'users',
        target,
        { config: { options: { value_columns: ['id', 'password'] } } },
        form.name(User),
        ["options.value_columns names 'password', a hidden attribute of User"],
      );
      assertBothRefuse(
        'users',
        target,
        { config: { options: { value_columns: ['id', 'handel', 'emial'] } } },
        form.name(User),
        [
          "options.value_columns names 'handel', which is not an attribute or column of User; did you mean 'handle'?",
          "options.value_columns names 'emial', which is not an attribute or column of User; did you mean 'email'?",
        ],
      );
      assert.equal(
        crud(new Router(), 'users', target, {
          config: { options: { value_columns: ['id', 'category_id', 'api_token'] } },
        }).length,
        12,
      );
    });

    it('refuses soft_delete.deleted_at_field that is a near miss of an attribute, and accepts a name that is none', () => {
      assertBothRefuse(
        'memos',
        form.target(Memo),
        { config: { soft_delete: { deleted_at_field: 'deleted_att' } } },
        form.name(Memo),
        [
          "soft_delete.deleted_at_field names 'deleted_att', which is not an attribute or column of Memo; did you mean 'deleted_at'?",
        ],
      );
      assertRefused(
        () =>
          crud(new Router(), 'memos', form.target(Memo), {
            only: ['search'],
            config: { soft_delete: { deleted_at_field: 'deletedAtt' } },
          }),
        ["did you mean 'deletedAt'?"],
      );
      assert.equal(
        crud(new Router(), 'memos', form.target(Memo), { config: { soft_delete: { deleted_at_field: 'removed_at' } } })
          .length,
        12,
      );
      assert.equal(
        crud(new Router(), 'memos', form.target(Memo), { config: { soft_delete: { deleted_at_field: 'deletedAt' } } })
          .length,
        12,
      );
      // The default name on a model without it is no one's typo: that model has no soft delete.
      assert.equal(crud(new Router(), 'users', form.target(User)).length, 12);
    });

    it('refuses a composite primary key behind the {id} routes, and accepts the routes that find no record', () => {
      assertBothRefuse('book-tags', form.target(BookTag), {}, form.name(BookTag), [
        'read, update, delete, softDelete and restore find {id} in BookTag.bookId, one column of the composite primary key (bookId, tagId)',
        'one {id} names no single row',
      ]);
      assertRefused(
        () => crud(new Router(), 'book-tags', form.target(BookTag), { only: ['delete'] }),
        ['delete finds {id} in BookTag.bookId'],
      );
      assert.deepEqual(
        crud(new Router(), 'book-tags', form.target(BookTag), {
          only: ['search', 'options', 'create', 'exportCsv'],
        }).map((def) => def.method),
        ['search', 'options', 'create', 'exportCsv'],
      );
    });

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
      assertRefused(
        () => app.crud(new Router(), 'users', form.target(User)),
        [`crud('users', ${form.name(User)})`, ...parts],
      );
      assertRefused(
        () => app.openApiResource('users', form.target(User)),
        [`openApiResource('users', ${form.name(User)})`, ...parts],
      );
    });
  });
}

describe('registration of a resource written in plain JavaScript', () => {
  it('refuses a resource() without fillable, or without a policy at all, when it registers writes', () => {
    // What the compiler refuses, a JavaScript caller can still write: the casts stand for that.
    for (const spec of [{ policy: { hidden: ['password'] } }, {}]) {
      const target = resource(User, spec as never);
      assertBothRefuse('users', target, {}, 'resource(User)', [
        'create and update are registered without fillable',
        "fillable: 'all'",
      ]);
      assert.deepEqual(
        crud(new Router(), 'users', target, { only: ['search', 'read'] }).map((def) => def.method),
        ['search', 'read'],
      );
    }
  });

  it('accepts a read-only controller of mixins that declares no fillable', () => {
    class UserReader extends Search(Read(BaseController)) {
      modelClassName() {
        return User;
      }
    }
    assert.deepEqual(
      crud(new Router(), 'users', UserReader).map((def) => def.method),
      ['search', 'read'],
    );
  });
});

/** Names left to request time on purpose: the client's mistake stays a 400, and the body writes only what fillable lets it. */
for (const db of databases)
  for (const form of SPEC_FORMS) {
    describe(
      `registration lets through, as requests show (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        const prefix = `reg${form.initial}`;
        let server: TestServer;
        const errors: unknown[] = [];

        before(async () => {
          const sequelize = db.sequelize!;
          const columns = {
            // Sequelize rewrites an attribute's definition for its dialect: each database gets its own.
            id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
            name: { type: DataTypes.STRING(40), allowNull: false },
            role: DataTypes.STRING(20),
            password: DataTypes.STRING(60),
            deletedAt: { type: DataTypes.DATE, field: 'deleted_at' },
          };
          const table = { tableName: `${prefix}_accounts`, timestamps: false };
          const AccountTable = sequelize.define(
            `${prefix}AccountTable`,
            { ...columns, legacyCode: { type: DataTypes.STRING(20), field: 'legacy_code' } },
            table,
          );
          const Account = sequelize.define(`${prefix}Account`, columns, table);
          await AccountTable.sync({ force: true });
          await AccountTable.create({ name: 'Ada', legacyCode: 'A-1' });
          const router = new Router();
          form.register(router, 'listed', Account, { policy: { fillable: ['name'], hidden: ['password'] } });
          form.register(router, 'all', Account, { policy: { fillable: 'all', hidden: ['password'] } });
          form.register(
            router,
            'legacy',
            Account,
            { policy: { fillable: ['name'] } },
            { config: { options: { default_value: 'legacy_code' } } },
          );
          form.register(
            router,
            'removed',
            Account,
            { policy: { fillable: ['name'] } },
            { config: { soft_delete: { deleted_at_field: 'removed_at' } } },
          );
          server = await serve(new Koa().use(router.routes()), errors);
        });
        after(() => server?.close());
        const post = (path: string, body: unknown) =>
          server.request('POST', path, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

        it('creates with the listed fillable only: role and password in the body are not stored', async () => {
          const created = await post('/listed', { name: 'Bob', role: 'admin', password: 'hunter2' });
          assert.equal(created.status, 201);
          const read = await server.get(`/all/${String(created.body.data.id)}`);
          assert.deepEqual(
            [read.body.data.name, read.body.data.role, read.body.data.password],
            ['Bob', null, undefined],
          );
        });

        it("creates with fillable 'all': every writable attribute, the key left to the model", async () => {
          const id = randomUUID();
          const created = await post('/all', { id, name: 'Cy', role: 'editor' });
          assert.equal(created.status, 201);
          assert.notEqual(created.body.data.id, id);
          assert.deepEqual([created.body.data.name, created.body.data.role], ['Cy', 'editor']);
        });

        it('answers options with a default value column the table has and the model does not declare', async () => {
          const response = await server.get('/legacy/options?label=name');
          assert.equal(response.status, 200);
          assert.deepEqual(
            response.body.data.filter((item: { label: string }) => item.label === 'Ada'),
            [{ label: 'Ada', value: 'A-1' }],
          );
        });

        it('answers 400 columnNotFound on softDelete and restore for a deleted_at_field that is no near miss', async () => {
          const ada = (await server.get('/all?filter[name]=Ada')).body.data[0];
          for (const [method, path] of [
            ['DELETE', `/removed/${String(ada.id)}/soft`],
            ['PATCH', `/removed/${String(ada.id)}/restore`],
          ] as const) {
            const response = await server.request(method, path);
            assert.equal(response.status, 400, `${method} ${path}`);
            assert.deepEqual(
              response.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
              [['removed_at', 'columnNotFound']],
            );
          }
        });

        it('served no request with a server fault', () => {
          assert.deepEqual(errors, []);
        });
      },
    );
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
      assert.deepEqual(response.body, {
        status: 'fail',
        data: [{ field: 'id', error: 'recordNotFound', message: 'The record was not found' }],
        meta: {},
      });
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
      for (const [method, path] of [
        ['DELETE', `${prefix}/users/${id}/soft`],
        ['PATCH', `${prefix}/users/${id}/restore`],
        ['PUT', `${prefix}/users/${id}/restore`],
      ] as const) {
        const response = await server.request(method, path);
        assert.equal(response.status, 400, `${method} ${path}`);
        assert.equal(response.body.status, 'fail');
        assert.deepEqual(
          response.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
          [['deleted_at', 'columnNotFound']],
        );
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
