import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { Can, ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/**
 * The items table holds `api_token`, which the Item model does not declare (the probe's
 * `value=api_token`). Table and model names start with `prefix` (`hdc`, `hdr`).
 */
function defineModels(sequelize: Sequelize, prefix: string) {
  const columns = {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    name: { type: DataTypes.STRING(60), allowNull: false },
    role: { type: DataTypes.STRING(20), allowNull: true },
    startsAt: { type: DataTypes.DATE, allowNull: true },
    day: { type: DataTypes.DATEONLY, allowNull: true },
  };
  const table = { tableName: `${prefix}_items`, underscored: true, timestamps: false };
  const ItemTable = sequelize.define(`${prefix}ItemTable`, { ...columns, apiToken: DataTypes.STRING(40) }, table);
  const Item = sequelize.define(`${prefix}Item`, columns, table);
  return { ItemTable, Item };
}

const spec: ResourceSpec<Model> = { policy: { fillable: ['name', 'startsAt', 'day'] } };

/** Grants only the abilities listed in the `x-grant` header (comma-separated). */
const can: Can = (ctx, ability) => String(ctx.get('x-grant')).split(',').includes(ability);

for (const db of databases)
  for (const form of FORMS) {
    describe(`hardening switches (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `hd${form.initial}`;
      let server: TestServer;
      const errors: unknown[] = [];

      before(async () => {
        const { ItemTable, Item } = defineModels(db.sequelize!, prefix);
        await ItemTable.sync({ force: true });
        await ItemTable.bulkCreate([
          { id: randomUUID(), name: 'Alpha', apiToken: 'secret-a' },
          { id: randomUUID(), name: 'Beta', apiToken: 'secret-b' },
        ]);
        const router = new Router();
        const guarded = { moduleName: 'shop', can };
        form.register(router, 'spec', Item, spec, guarded);
        form.register(router, 'open', Item, spec);
        form.register(router, 'permission', Item, spec, { ...guarded, config: { options: { permission: 'search' } } });
        form.register(router, 'listed', Item, spec, { ...guarded, config: { options: { value_columns: ['id'] } } });
        server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()), errors);
      });
      after(() => server?.close());

      it('returns options to anyone, with any table column as value, by default (the spec)', async () => {
        const res = await server.get('/spec/options?label=name&value=api_token');
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.data, [
          { label: 'Alpha', value: 'secret-a' },
          { label: 'Beta', value: 'secret-b' },
        ]);
      });

      it('returns 403 naming <module>.access.<permission> for options without the ability, when options.permission names one', async () => {
        const denied = await server.get('/permission/options?label=name');
        assert.equal(denied.status, 403);
        assert.deepEqual(denied.body.data, [
          { field: null, error: 'forbidden', message: 'This action needs the ability shop.access.search' },
        ]);
        const granted = await server.request('GET', '/permission/options?label=name', {
          headers: { 'x-grant': 'shop.access.search' },
        });
        assert.equal(granted.status, 200);
        assert.deepEqual(
          granted.body.data.map((i: { label: string }) => i.label),
          ['Alpha', 'Beta'],
        );
      });

      it('returns 400 columnNotFound for a value outside options.value_columns, and the default value within it', async () => {
        const refused = await server.get('/listed/options?label=name&value=api_token');
        assert.equal(refused.status, 400);
        assert.deepEqual(
          refused.body.data.map((i: { field: string; error: string }) => [i.field, i.error]),
          [['api_token', 'columnNotFound']],
        );
        for (const path of ['/listed/options?label=name&value=name', '/listed/options?label=name&value=role']) {
          assert.equal((await server.get(path)).status, 400, path);
        }
        const ok = await server.get('/listed/options?label=name');
        assert.equal(ok.status, 200);
        assert.equal(ok.body.data.length, 2);
      });

      it('returns a record without an attribute outside fillable that the body sent (POST and PATCH)', async () => {
        const json = { 'content-type': 'application/json' };
        const created = await server.request('POST', '/open', {
          headers: json,
          body: JSON.stringify({ name: 'Gamma', role: 'admin' }),
        });
        assert.equal(created.status, 201);
        assert.notEqual(created.body.data.role, 'admin');
        const role = (name: string) =>
          db.sequelize!.query(`SELECT role FROM ${prefix}_items WHERE name = :name`, {
            type: 'SELECT',
            replacements: { name },
          });
        assert.deepEqual(await role('Gamma'), [{ role: null }]);
        const patched = await server.request('PATCH', `/open/${created.body.data.id}`, {
          headers: json,
          body: JSON.stringify({ name: 'Gamma 2', role: 'admin' }),
        });
        assert.equal(patched.status, 200);
        assert.deepEqual([patched.body.data.name, patched.body.data.role], ['Gamma 2', null]);
        assert.deepEqual(await role('Gamma 2'), [{ role: null }]);
      });

      const json = { 'content-type': 'application/json' };
      const failures = (body: { data: { field: string; error: string }[] }) => body.data.map((i) => [i.field, i.error]);

      it('returns 400 invalidValue naming the field for a date or datetime body value that is no real calendar value (POST and PATCH)', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ day: '2024-02-30' }, 'day'],
          [{ day: '2023-02-29' }, 'day'],
          [{ startsAt: '2024-02-30T10:00:00Z' }, 'startsAt'],
          [{ startsAt: '2024-04-31' }, 'startsAt'],
          [{ startsAt: '2024-01-01T24:30:00Z' }, 'startsAt'],
          [{ startsAt: 8.64e15 }, 'startsAt'],
          [{ startsAt: '0000-01-01T00:00:00Z' }, 'startsAt'],
          [{ day: '0000-12-31' }, 'day'],
          [{ startsAt: '0001-01-01T00:00:00Z' }, 'startsAt'],
          [{ day: '0999-12-31' }, 'day'],
        ];
        const anchor = await server.request('POST', '/open', {
          headers: json,
          body: JSON.stringify({ name: 'Anchor' }),
        });
        for (const [fields, field] of cases) {
          const created = await server.request('POST', '/open', {
            headers: json,
            body: JSON.stringify({ name: 'Never', ...fields }),
          });
          assert.equal(created.status, 400, JSON.stringify(fields));
          assert.deepEqual(failures(created.body), [[field, 'invalidValue']], JSON.stringify(fields));
          const patched = await server.request('PATCH', `/open/${anchor.body.data.id}`, {
            headers: json,
            body: JSON.stringify(fields),
          });
          assert.equal(patched.status, 400, JSON.stringify(fields));
          assert.deepEqual(failures(patched.body), [[field, 'invalidValue']]);
        }
        const form = await server.request('POST', '/open', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'name=Never&day=2024-02-30',
        });
        assert.deepEqual([form.status, failures(form.body)], [400, [['day', 'invalidValue']]]);
        assert.deepEqual(
          await db.sequelize!.query(`SELECT name FROM ${prefix}_items WHERE name = 'Never'`, { type: 'SELECT' }),
          [],
        );
      });

      it('returns the first and last storable days (1000-01-01, 9999-12-31) as written, and a leap day', async () => {
        const created = await server.request('POST', '/open', {
          headers: json,
          body: JSON.stringify({ name: 'Edges', day: '1000-01-01', startsAt: '9999-12-31T23:59:59.000Z' }),
        });
        assert.equal(created.status, 201);
        const read = await server.get(`/open/${created.body.data.id}`);
        assert.deepEqual([read.body.data.day, read.body.data.startsAt], ['1000-01-01', '9999-12-31T23:59:59.000Z']);
        const leap = await server.request('PATCH', `/open/${created.body.data.id}`, {
          headers: json,
          body: JSON.stringify({ day: '2024-02-29', startsAt: '1000-01-01T00:00:00.000Z' }),
        });
        assert.equal(leap.status, 200);
        const again = await server.get(`/open/${created.body.data.id}`);
        assert.deepEqual([again.body.data.day, again.body.data.startsAt], ['2024-02-29', '1000-01-01T00:00:00.000Z']);
      });

      it('returns 400 invalidValue for an impossible date in a filter too', async () => {
        for (const path of ['/open?filter[day]=2024-02-30', '/open?filter[startsAt][gte]=2024-02-30T00:00:00Z']) {
          const res = await server.get(path);
          assert.equal(res.status, 400, path);
          assert.equal(res.body.data[0].error, 'invalidValue');
        }
      });

      it('returns 400 columnNotFound for filters keyed constructor, __proto__ or prototype (search and exportCsv), and leaves Object.prototype untouched', async () => {
        const before = Object.getOwnPropertyNames(Object.prototype).sort();
        for (const column of ['constructor', '__proto__', 'prototype', 'toString']) {
          for (const path of [
            `/open?filter[${column}]=x`,
            `/open?filter[${column}][eq]=x`,
            `/open/export-csv?filter[${column}]=x`,
            `/open?filter%5B${column}%5D%5Bpolluted%5D=x`,
          ]) {
            const res = await server.get(path);
            assert.equal(res.status, 400, path);
            assert.deepEqual(failures(res.body), [[column, 'columnNotFound']], path);
          }
        }
        const operator = await server.get('/open?filter[name][constructor]=x');
        assert.deepEqual([operator.status, failures(operator.body)], [400, [['name', 'invalidOperator']]]);
        await server.get('/open?__proto__[polluted]=1&constructor[prototype][polluted]=1&filter[name]=Alpha');
        assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
        assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      });

      it('leaves no server fault behind', () => {
        assert.deepEqual(errors, []);
      });
    });
  }
