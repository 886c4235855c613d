// A DECIMAL comes back as one JSON type from every action on a dialect (a write's reply is read back), and that
// type is the one the document gives the column for that dialect: a string on PostgreSQL, a number on SQLite and
// MariaDB (whose DECIMAL with more than 15 integer digits may be either).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Koa from 'koa';
import { DataTypes, type Model } from 'sequelize';
import { openApiDocument, openApiResource, resource, type CrudTarget, type ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS, controllerOf } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

const spec: ResourceSpec<Model> = { policy: { fillable: ['name', 'price', 'weight'] } };
const EXPECTED_TYPE = { sqlite: 'number', postgres: 'string', mariadb: 'number' } as const;

for (const db of databases)
  for (const form of FORMS) {
    describe(`DECIMAL values in every reply (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `oad${form.initial}`;
      let server: TestServer;
      let schemas: Record<string, { properties: Record<string, object> }>;
      const errors: unknown[] = [];

      before(async () => {
        const Item = db.sequelize!.define(
          `${prefix}Item`,
          {
            id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
            name: { type: DataTypes.STRING(40), allowNull: false },
            price: { type: DataTypes.DECIMAL(10, 2), allowNull: false },
            weight: { type: DataTypes.DECIMAL(8, 3), allowNull: true },
            deletedAt: { type: DataTypes.DATE, allowNull: true },
          },
          { tableName: `${prefix}_items`, underscored: true },
        );
        await Item.sync({ force: true });
        const target: CrudTarget = form.name === 'class' ? controllerOf(Item, spec) : resource(Item, spec);
        const router = new Router();
        form.register(router, 'items', Item, spec);
        const document = openApiDocument({
          info: { title: 'Items', version: '1' },
          resources: [openApiResource('items', target)],
        }) as { components: { schemas: typeof schemas } };
        schemas = document.components.schemas;
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      const send = (verb: string, path: string, body: unknown) =>
        server.request(verb, path, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

      for (const sent of ['number', 'string'] as const) {
        it(`returns the price as a ${EXPECTED_TYPE[db.dialect]} from create, update, read, search, softDelete and restore, sent as a ${sent}`, async () => {
          const value = (n: string) => (sent === 'number' ? Number(n) : n);
          const created = await send('POST', '/items', {
            name: `sent as ${sent}`,
            price: value('25'),
            weight: value('1.5'),
          });
          assert.equal(created.status, 201, created.text);
          const id = created.body.data.id as string;
          const updated = await send('PATCH', `/items/${id}`, { price: value('19.999'), weight: null });
          assert.equal(updated.status, 200, updated.text);
          const read = await server.get(`/items/${id}`);
          const found = (await server.get(`/items?filter%5Bid%5D%5Beq%5D=${id}`)).body.data[0];
          const softDeleted = await server.request('DELETE', `/items/${id}/soft`);
          const restored = await server.request('PATCH', `/items/${id}/restore`);
          const replies = {
            created: created.body.data,
            updated: updated.body.data,
            read: read.body.data,
            found,
            softDeleted: softDeleted.body.data,
            restored: restored.body.data,
          };

          const types = Object.fromEntries(Object.entries(replies).map(([action, row]) => [action, typeof row.price]));
          assert.deepEqual(
            new Set(Object.values(types)),
            new Set([EXPECTED_TYPE[db.dialect]]),
            JSON.stringify(replies),
          );
          // PostgreSQL and MariaDB round 19.999 to the scale, SQLite keeps it: every reply shows what the database holds.
          const held = { postgres: '20.00', mariadb: 20, sqlite: 19.999 }[db.dialect];
          assert.deepEqual(
            [
              replies.updated.price,
              replies.read.price,
              replies.found.price,
              replies.softDeleted.price,
              replies.restored.price,
            ],
            [held, held, held, held, held],
          );
          assert.equal(replies.created.price, db.dialect === 'postgres' ? '25.00' : 25);
          assert.equal(replies.updated.weight, null);

          const ajv = new Ajv2020({ strict: false });
          const priceSchema = schemas[`${prefix[0]!.toUpperCase()}${prefix.slice(1)}Item`]!.properties['price']!;
          assert.deepEqual((priceSchema as { type: unknown }).type, EXPECTED_TYPE[db.dialect]);
          for (const [action, row] of Object.entries(replies))
            assert.ok(
              ajv.validate(priceSchema, row.price),
              `${action}: ${JSON.stringify(row.price)} against ${JSON.stringify(priceSchema)}`,
            );
          assert.deepEqual(errors, []);
        });
      }
    });
  }
