import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import type { OptionItem, ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** The categories table holds `legacy_code`, which the Category model does not declare. Table and model names start with `prefix`. */
function defineModels(sequelize: Sequelize, prefix: string) {
  const columns = {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
    externalId: { type: DataTypes.UUID, allowNull: false },
    name: { type: DataTypes.STRING(60), allowNull: false },
    deletedAt: { type: DataTypes.DATE, allowNull: true },
  };
  const table = { tableName: `${prefix}_categories`, underscored: true, timestamps: false };
  const CategoryTable = sequelize.define(
    `${prefix}CategoryTable`,
    { ...columns, legacyCode: DataTypes.STRING(20) },
    table,
  );
  const Category = sequelize.define(`${prefix}Category`, columns, table);
  const Tag = sequelize.define(
    `${prefix}Tag`,
    { title: DataTypes.STRING(60) },
    { tableName: `${prefix}_tags`, timestamps: false },
  );
  const Memo = sequelize.define(
    `${prefix}Memo`,
    { title: DataTypes.STRING(60), removedAt: { type: DataTypes.DATE, field: 'removed_at' } },
    { tableName: `${prefix}_memos`, timestamps: false },
  );
  const Note = sequelize.define(
    `${prefix}Note`,
    { title: DataTypes.STRING(60) },
    { tableName: `${prefix}_notes`, paranoid: true, underscored: true },
  );
  return { CategoryTable, Category, Tag, Memo, Note };
}

const plain: ResourceSpec<Model> = { policy: { fillable: 'all' } };

/** Hooks steered by the query string: `hook` for modifyOptionsQuery, `after` for afterOptions. */
const hooked: ResourceSpec<Model> = {
  policy: { fillable: 'all' },
  hooks: {
    async modifyOptionsQuery(query, { ctx }) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (ctx.query['hook'] === 'mutate') query.where = { ...query.where, name: { [Op.ne]: 'Toys' } };
      if (ctx.query['hook'] === 'replace') return { ...query, limit: 2 };
      if (ctx.query['hook'] === 'http') ctx.throw(422, 'Pick a narrower list');
      if (ctx.query['hook'] === 'crash') throw new Error('SELECT secret FROM vault');
      return undefined;
    },
    afterOptions(items, { ctx }) {
      if (ctx.query['after'] === 'upper') return items.map((i) => ({ ...i, label: String(i.label).toUpperCase() }));
      if (ctx.query['after'] === 'in-place') items.reverse();
      return undefined;
    },
  },
};

for (const db of databases)
  for (const form of FORMS) {
    describe(`GET <uri>/options (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `opt${form.initial}`;
      let server: TestServer;
      let models: ReturnType<typeof defineModels>;
      const errors: unknown[] = [];
      const ids: Record<string, { id: number; externalId: string }> = {};

      before(async () => {
        const sequelize = db.sequelize!;
        models = defineModels(sequelize, prefix);
        const { CategoryTable, Category, Tag, Memo, Note } = models;
        await Promise.all([CategoryTable, Tag, Memo, Note].map((m) => m.sync({ force: true })));
        const now = new Date();
        for (const [name, deletedAt, legacyCode] of [
          ['Toys', null, 'T1'],
          ['Books', null, 'B1'],
          ['Archive', now, 'A1'],
          ['Music', null, 'M1'],
          ['Garden', null, 'G1'],
        ] as const) {
          const row = await CategoryTable.create({ name, externalId: randomUUID(), deletedAt, legacyCode });
          ids[name] = { id: row.get('id') as number, externalId: row.get('externalId') as string };
        }
        await Tag.bulkCreate([{ title: 'red' }, { title: 'blue' }]);
        await Memo.bulkCreate([{ title: 'kept' }, { title: 'gone', removedAt: now }]);
        const notes = await Note.bulkCreate([{ title: 'live' }, { title: 'trashed' }]);
        await notes[1]!.destroy();

        const router = new Router();
        // Integer keys: only the options route, which takes no {id:uuid}.
        const only = ['options'] as const;
        form.register(router, 'categories', Category, plain, { only });
        // Options(BaseController) in the class form.
        form.register(router, 'tags', Tag, { policy: { fillable: 'all' }, actions: ['options'] });
        form.register(router, 'memos', Memo, plain, {
          only,
          config: { soft_delete: { deleted_at_field: 'removed_at' } },
        });
        form.register(router, 'notes', Note, plain, { only });
        form.register(router, 'hooked', Category, hooked, { only });
        form.register(router, 'configured', Category, plain, {
          only,
          config: {
            options: { http_status: 203, default_value: 'external_id' },
            global: { validation: { http_status: 422 } },
          },
        });
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      const labels = (body: { data: OptionItem[] }) => body.data.map((i) => i.label);

      it('returns active rows as {label, value} ordered by label, with the default value column', async () => {
        const res = await server.get('/categories/options?label=name');
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, {
          status: 'success',
          data: ['Books', 'Garden', 'Music', 'Toys'].map((name) => ({ label: name, value: ids[name]!.id })),
          meta: {},
        });
        assert.ok(res.body.data.every((i: object) => Object.keys(i).sort().join() === 'label,value'));
      });

      it('returns the value column the request names, by attribute or column name', async () => {
        for (const value of ['externalId', 'external_id']) {
          const res = await server.get(`/categories/options?label=name&value=${value}`);
          assert.deepEqual(res.body.data[0], { label: 'Books', value: ids['Books']!.externalId });
        }
      });

      it('finds the label by column name too', async () => {
        const res = await server.get('/categories/options?label=external_id&value=name');
        assert.deepEqual(res.body.data.map((i: OptionItem) => i.value).sort(), ['Books', 'Garden', 'Music', 'Toys']);
      });

      it('returns a value column the table has but the model does not declare (rule 3)', async () => {
        const res = await server.get('/categories/options?label=name&value=legacy_code');
        assert.deepEqual(
          res.body.data.map((i: OptionItem) => i.value),
          ['B1', 'G1', 'M1', 'T1'],
        );
      });

      it('answers 400 required for field label when label is absent or empty', async () => {
        for (const query of ['', '?value=id', '?label=']) {
          const res = await server.get(`/categories/options${query}`);
          assert.equal(res.status, 400);
          assert.deepEqual(res.body, {
            status: 'fail',
            data: [{ field: 'label', error: 'required', message: 'The label field is required' }],
            meta: {},
          });
        }
      });

      it('answers 400 columnNotFound naming a label that is not a model attribute', async () => {
        for (const label of ['colour', 'legacy_code']) {
          const res = await server.get(`/categories/options?label=${label}`);
          assert.equal(res.status, 400);
          assert.deepEqual(res.body.data, [
            { field: label, error: 'columnNotFound', message: `The column "${label}" was not found` },
          ]);
        }
      });

      it('answers 400 columnNotFound naming a value column the table does not have', async () => {
        const res = await server.get('/categories/options?label=name&value=colour');
        assert.equal(res.status, 400);
        assert.equal(res.body.data[0].field, 'colour');
      });

      it('answers hostile label and value strings with 400 columnNotFound, and changes nothing', async () => {
        const hostile = [
          `name; DROP TABLE ${prefix}_categories`,
          "name'--",
          'name) OR 1=1 --',
          '*',
          'name,id',
          '"name"',
          '`name`',
          'name--',
          'count(*)',
          '__proto__',
          'constructor',
          'ﬁ',
        ];
        for (const text of hostile) {
          for (const query of [`label=${encodeURIComponent(text)}`, `label=name&value=${encodeURIComponent(text)}`]) {
            const res = await server.get(`/categories/options?${query}`);
            assert.equal(res.status, 400, query);
            assert.deepEqual(res.body.data, [
              { field: text, error: 'columnNotFound', message: `The column ${JSON.stringify(text)} was not found` },
            ]);
          }
        }
        const repeated = await server.get('/categories/options?label=name&label=id');
        assert.deepEqual([repeated.status, repeated.body.data[0].field], [400, 'name,id']);
        assert.equal(await models.CategoryTable.count(), 5);
        assert.deepEqual(errors, []);
      });

      it('lists every row of a model without the deleted-at attribute, from an options-only resource', async () => {
        assert.deepEqual(labels((await server.get('/tags/options?label=title')).body), ['blue', 'red']);
        assert.equal((await server.get(`/tags/${randomUUID()}`)).status, 404);
      });

      it('leaves out rows soft-deleted by a configured deleted-at column or by a paranoid model', async () => {
        assert.deepEqual(labels((await server.get('/memos/options?label=title')).body), ['kept']);
        assert.deepEqual(labels((await server.get('/notes/options?label=title')).body), ['live']);
      });

      it('answers with the configured statuses and default value column', async () => {
        const ok = await server.get('/configured/options?label=name');
        assert.equal(ok.status, 203);
        assert.equal(ok.body.data[0].value, ids['Books']!.externalId);
        assert.equal((await server.get('/configured/options')).status, 422);
        assert.equal((await server.get('/configured/options?label=nope')).status, 422);
      });

      it('runs modifyOptionsQuery before the query: changed in place or replaced, async', async () => {
        assert.deepEqual(labels((await server.get('/hooked/options?label=name&hook=mutate')).body), [
          'Books',
          'Garden',
          'Music',
        ]);
        assert.deepEqual(labels((await server.get('/hooked/options?label=name&hook=replace')).body), [
          'Books',
          'Garden',
        ]);
      });

      it('runs afterOptions on the formatted items: replaced or changed in place', async () => {
        assert.deepEqual(labels((await server.get('/hooked/options?label=name&after=upper')).body), [
          'BOOKS',
          'GARDEN',
          'MUSIC',
          'TOYS',
        ]);
        assert.deepEqual(labels((await server.get('/hooked/options?label=name&after=in-place')).body), [
          'Toys',
          'Music',
          'Garden',
          'Books',
        ]);
      });

      it('answers a hook’s HTTP error as a fail and any other fault as a bare 500', async () => {
        const http = await server.get('/hooked/options?label=name&hook=http');
        assert.equal(http.status, 422);
        assert.equal(http.body.data[0].message, 'Pick a narrower list');
        errors.length = 0;
        const crash = await server.get('/hooked/options?label=name&hook=crash');
        assert.deepEqual([crash.status, crash.body], [500, { status: 'error', message: 'Internal Server Error' }]);
        assert.equal(errors.length, 1);
      });

      it('returns any scalar as label', async () => {
        const res = await server.get('/categories/options?label=id&value=name');
        const activeIds = ['Toys', 'Books', 'Music', 'Garden'].map((name) => ids[name]!.id).sort((a, b) => a - b);
        assert.deepEqual(
          res.body.data.map((i: OptionItem) => i.label),
          activeIds,
        );
      });
    });
  }

/** Cities and their countries for the autocomplete (`q`, `limit`, `filter`); tables start with `prefix` (oaq*). */
function defineCities(sequelize: Sequelize, prefix: string) {
  const Country = sequelize.define(
    `${prefix}Country`,
    { name: DataTypes.STRING(40) },
    { tableName: `${prefix}_countries`, timestamps: false },
  );
  const City = sequelize.define(
    `${prefix}City`,
    {
      name: { type: DataTypes.STRING(60), allowNull: false },
      population: DataTypes.INTEGER,
      secret: DataTypes.STRING(20),
      countryId: { type: DataTypes.INTEGER, field: 'country_id' },
      deletedAt: { type: DataTypes.DATE, field: 'deleted_at' },
    },
    { tableName: `${prefix}_cities`, timestamps: false },
  );
  City.belongsTo(Country, { as: 'country', foreignKey: 'countryId', constraints: false });
  return { Country, City };
}

/** Labels whose order is the same under SQLite's bytes, PostgreSQL's collation and MariaDB's case-insensitive one. */
const CITIES: readonly (readonly [name: string, population: number, country: 'fr' | 'it', deleted?: true])[] = [
  ['Bogart', 10, 'fr'],
  ['Cigar Box', 20, 'it'],
  ['Garden City', 30, 'fr'],
  ['Garage', 35, 'fr', true],
  ['Ha_r', 40, 'it'],
  ['Pear 50% off', 50, 'it'],
  ['Pear 50 off', 60, 'fr'],
  ['Rome', 70, 'it'],
  ['Slash\\Town', 80, 'fr'],
  ['Tarragona', 90, 'it'],
];

for (const db of databases)
  for (const form of FORMS) {
    describe(
      `GET <uri>/options autocomplete: q, limit, filter (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        const prefix = `oaq${form.initial}`;
        let server: TestServer;
        const errors: unknown[] = [];

        before(async () => {
          const sequelize = db.sequelize!;
          const { Country, City } = defineCities(sequelize, prefix);
          await Promise.all([Country, City].map((m) => m.sync({ force: true })));
          const [fr, it] = await Country.bulkCreate([{ name: 'France' }, { name: 'Italy' }]);
          const countries = { fr: fr!.get('id'), it: it!.get('id') };
          await City.bulkCreate(
            CITIES.map(([name, population, country, deleted]) => ({
              name,
              population,
              secret: `s-${name}`,
              countryId: countries[country],
              deletedAt: deleted ? new Date() : null,
            })),
          );
          const router = new Router();
          const only = ['options'] as const;
          const cities: ResourceSpec<Model> = {
            policy: { fillable: 'all', hidden: ['secret'] },
            relations: { country: {} },
          };
          form.register(router, 'cities', City, cities, {
            only,
            config: { options: { max_limit: 4 }, search: { max_unpaginated: 3 } },
          });
          form.register(router, 'termed', City, { ...cities, search: { termFields: ['name'] } }, { only });
          // An app that ties a request to one country through modifyFilters, as search and exportCsv see it.
          const italian: ResourceSpec<Model> = {
            ...cities,
            hooks: {
              modifyFilters: (filters, { ctx }) => {
                const country = ctx.get('x-country');
                if (country === '') return undefined;
                // What the hook adds is checked like the client's filters: a hidden column is refused.
                if (country === '?') return { secret: 's-Rome' };
                return { ...(filters as object | undefined), 'country.name': country };
              },
            },
          };
          form.register(router, 'italian', City, italian, { only });
          server = await serve(new Koa().use(router.routes()), errors);
        });
        after(() => server?.close());

        const labels = async (query: string, uri = 'cities') => {
          const res = await server.get(`/${uri}/options?label=name&${query}`);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return (res.body.data as OptionItem[]).map((item) => item.label);
        };

        it('returns the live rows whose label contains q case-insensitively, ordered by label', async () => {
          assert.deepEqual(await labels('q=GAR'), ['Bogart', 'Cigar Box', 'Garden City']);
          assert.deepEqual(await labels('q=gar'), ['Bogart', 'Cigar Box', 'Garden City']);
          assert.deepEqual(await labels('q=%20rom%20'), ['Rome']);
          assert.deepEqual(await labels('q=zzz'), []);
        });

        it('matches LIKE wildcards and the backslash as themselves', async () => {
          assert.deepEqual(await labels('q=%25'), ['Pear 50% off']);
          assert.deepEqual(await labels('q=_'), ['Ha_r']);
          assert.deepEqual(await labels('q=a_'), ['Ha_r']);
          assert.deepEqual(await labels('q=%5C'), ['Slash\\Town']);
          assert.deepEqual(await labels('q=50%25%20off'), ['Pear 50% off']);
        });

        it('answers at most limit items, lowered to options.max_limit, and max_limit for q alone', async () => {
          assert.deepEqual(await labels('q=a&limit=2'), ['Bogart', 'Cigar Box']);
          assert.deepEqual(await labels('q=a&limit=500'), ['Bogart', 'Cigar Box', 'Garden City', 'Ha_r']);
          assert.deepEqual(await labels('q=a'), ['Bogart', 'Cigar Box', 'Garden City', 'Ha_r']);
          assert.deepEqual(await labels('q='), ['Bogart', 'Cigar Box', 'Garden City', 'Ha_r']);
        });

        it('gives the first labels for a limit without q, where the whole list is a tooManyRows fail', async () => {
          assert.deepEqual(await labels('limit=2'), ['Bogart', 'Cigar Box']);
          const whole = await server.get('/cities/options?label=name');
          assert.equal(whole.status, 400);
          assert.equal(whole.body.data[0].error, 'tooManyRows');
          assert.equal((await labels('', 'termed')).length, CITIES.length - 1);
        });

        it('honours filter[...] under the filter policy, with q and through a relation', async () => {
          assert.deepEqual(await labels('filter[population][gte]=60&limit=10'), [
            'Pear 50 off',
            'Rome',
            'Slash\\Town',
            'Tarragona',
          ]);
          assert.deepEqual(await labels('q=a&filter[population][lt]=40'), ['Bogart', 'Cigar Box', 'Garden City']);
          assert.deepEqual(await labels('q=r&filter[country.name]=Italy'), [
            'Cigar Box',
            'Ha_r',
            'Pear 50% off',
            'Rome',
          ]);
          assert.deepEqual(await labels('filter[term]=tarr', 'termed'), ['Tarragona']);
        });

        it('lists what search finds: the modifyFilters hook narrows the list, with or without the client filters', async () => {
          const get = (query: string, country: string) =>
            server.request('GET', `/italian/options?label=name&${query}`, { headers: { 'x-country': country } });
          const listed = async (query: string, country: string) => {
            const res = await get(query, country);
            assert.equal(res.status, 200, JSON.stringify(res.body));
            return (res.body.data as OptionItem[]).map((item) => item.label);
          };
          assert.deepEqual(await listed('', 'Italy'), ['Cigar Box', 'Ha_r', 'Pear 50% off', 'Rome', 'Tarragona']);
          assert.deepEqual(await listed('q=r&filter[population][lt]=60', 'Italy'), [
            'Cigar Box',
            'Ha_r',
            'Pear 50% off',
          ]);
          assert.deepEqual(await listed('q=o&filter[country.name]=Italy', 'France'), [
            'Bogart',
            'Pear 50 off',
            'Slash\\Town',
          ]);
          assert.deepEqual(await listed('limit=2', ''), ['Bogart', 'Cigar Box']);
          const refused = await get('q=a', '?');
          assert.equal(refused.status, 400);
          assert.deepEqual([refused.body.data[0].field, refused.body.data[0].error], ['secret', 'columnNotFound']);
        });

        it('refuses a filter it cannot honour with a 400 naming it, never ignoring it', async () => {
          for (const [query, field, error] of [
            ['filter[secret]=s-Rome', 'secret', 'columnNotFound'],
            ['filter[colour]=red', 'colour', 'columnNotFound'],
            ['filter[population][near]=3', 'population', 'invalidOperator'],
            ['filter[population]=many', 'population', 'invalidValue'],
            ['filter[term]=rome', 'term', 'columnNotFound'],
            ['filter[constructor]=1', 'constructor', 'columnNotFound'],
            ['filter=oops', 'filter', 'invalidValue'],
          ] as const) {
            const res = await server.get(`/cities/options?label=name&q=a&${query}`);
            assert.equal(res.status, 400, query);
            assert.deepEqual([res.body.data[0].field, res.body.data[0].error], [field, error], query);
          }
        });

        it('answers 400 invalidValue naming a bad limit or q', async () => {
          for (const [query, field] of [
            ['limit=0', 'limit'],
            ['limit=-3', 'limit'],
            ['limit=two', 'limit'],
            ['limit=1&limit=2', 'limit'],
            ['q=a&q=b', 'q'],
            ['q=a%00', 'q'],
          ] as const) {
            const res = await server.get(`/cities/options?label=name&${query}`);
            assert.equal(res.status, 400, query);
            assert.deepEqual([res.body.data[0].field, res.body.data[0].error], [field, 'invalidValue'], query);
          }
          // The label is checked first, as the spec has it.
          const res = await server.get('/cities/options?q=a&limit=0');
          assert.deepEqual(res.body.data[0], {
            field: 'label',
            error: 'required',
            message: 'The label field is required',
          });
        });

        it('answers hostile q text as text: no rows, and the table intact', async () => {
          for (const q of [`'; DROP TABLE ${prefix}_cities; --`, "a' OR '1'='1", "%' OR 1=1 --", '\\\\%']) {
            assert.deepEqual(await labels(`q=${encodeURIComponent(q)}`), [], q);
          }
          assert.equal((await labels('limit=100', 'termed')).length, CITIES.length - 1);
          assert.deepEqual(errors, []);
        });
      },
    );
  }
