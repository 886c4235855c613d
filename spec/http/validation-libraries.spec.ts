import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import { type } from 'arktype';
import Koa from 'koa';
import type { Model } from 'sequelize';
import * as v from 'valibot';
import { z } from 'zod';
import type { ResourceSpec } from '../../lib/index.js';
import type { StandardSchemaV1 } from '../../lib/core.js';
import { defineCatalog, syncCatalog, type Catalog } from '../support/catalog.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Names the async update check refuses, as a uniqueness lookup would. */
const TAKEN = new Set(['Taken']);
const isFree = async (name: string | undefined) => name === undefined || !TAKEN.has(name);

/**
 * The same rules in each library: the sku trimmed and upper-cased (a transform), a name of 2
 * characters or more, a positive price (coerced, so a form's text passes), tags each with a name;
 * the update schema is partial and checks the name asynchronously.
 */
const LIBRARIES: readonly {
  readonly name: string;
  readonly create: StandardSchemaV1;
  readonly update: StandardSchemaV1;
  readonly form: boolean;
}[] = [
  {
    name: 'zod',
    create: z.object({
      sku: z.string().trim().toUpperCase(),
      name: z.string().min(2),
      price: z.coerce.number().positive(),
      tags: z.array(z.object({ name: z.string().min(1) })).optional(),
    }),
    update: z
      .object({ name: z.string().min(2).optional(), stock: z.coerce.number().int().optional() })
      .refine(async (body) => isFree(body.name), { message: 'The name is taken', path: ['name'] }),
    form: true,
  },
  {
    name: 'valibot',
    create: v.object({
      sku: v.pipe(v.string(), v.trim(), v.toUpperCase()),
      name: v.pipe(v.string(), v.minLength(2)),
      price: v.pipe(v.union([v.string(), v.number()]), v.transform(Number), v.number(), v.minValue(0.01)),
      tags: v.optional(v.array(v.object({ name: v.pipe(v.string(), v.minLength(1)) }))),
    }),
    update: v.pipeAsync(
      v.object({
        name: v.optional(v.pipe(v.string(), v.minLength(2))),
        stock: v.optional(v.pipe(v.union([v.string(), v.number()]), v.transform(Number), v.integer())),
      }),
      v.forwardAsync(
        v.checkAsync(async (body) => isFree(body.name), 'The name is taken'),
        ['name'],
      ),
    ),
    form: true,
  },
  {
    name: 'arktype',
    create: type({
      sku: type('string').pipe((sku) => sku.trim().toUpperCase()),
      name: 'string >= 2',
      price: 'number > 0',
      'tags?': type({ name: 'string > 0' }).array(),
    }),
    update: type({ 'name?': 'string >= 2', 'stock?': 'number.integer' }),
    form: false,
  },
];

for (const db of databases)
  for (const form of FORMS) {
    describe(`validation with zod, valibot and arktype (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let catalog: Catalog;
      const errors: unknown[] = [];
      const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const urlencoded = (text: string) => ({
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: text,
      });
      const fields = (res: { body: { data: { field: string | null; error: string }[] } }) =>
        res.body.data.map((f) => [f.field, f.error]);

      before(async () => {
        catalog = defineCatalog(db.sequelize!, `vlib${form.initial}`);
        await syncCatalog(catalog);
        const router = new Router();
        for (const library of LIBRARIES) {
          const spec: ResourceSpec<Model> = {
            policy: { fillable: ['sku', 'name', 'price', 'stock', 'tags'] },
            validate: { create: library.create, update: library.update },
          };
          form.register(router, library.name, catalog.Product, spec);
          form.register(router, `${library.name}-422`, catalog.Product, spec, {
            config: { global: { validation: { http_status: 422 } } },
          });
        }
        const throwing: ResourceSpec<Model> = {
          policy: { fillable: 'all' },
          hooks: {
            beforeCreate(data) {
              if (data['name'] === 'zod')
                z.object({ price: z.number().max(100), tags: z.array(z.string().max(3)) }).parse(data);
              if (data['name'] === 'valibot')
                v.parse(v.object({ tags: v.array(v.pipe(v.string(), v.maxLength(3))) }), data);
              return data;
            },
          },
        };
        form.register(router, 'throwing', catalog.Product, throwing);
        server = await serve(new Koa().use(router.routes()).use(router.allowedMethods()), errors);
      });
      after(() => server?.close());

      for (const library of LIBRARIES) {
        describe(library.name, () => {
          const sku = (n: number) => `${library.name.slice(0, 3)}-${n}`;

          it('returns 201 writing the transformed output, without keys the schema does not know', async () => {
            const res = await server.request(
              'POST',
              `/${library.name}`,
              json({ sku: ` ${sku(1)} `, name: 'Kite', price: 3, stock: 9, tags: [{ name: 'red' }] }),
            );
            assert.equal(res.status, 201, res.text);
            assert.deepEqual(
              [res.body.data.sku, res.body.data.name, Number(res.body.data.price), res.body.data.tags],
              [sku(1).toUpperCase(), 'Kite', 3, [{ name: 'red' }]],
            );
            const stock = (await catalog.Product.findOne({ where: { sku: sku(1).toUpperCase() } }))!.get('stock');
            assert.equal(
              stock,
              library.name === 'arktype' ? 9 : null,
              'zod and valibot objects drop unknown keys; arktype keeps them',
            );
          });

          it('returns 400 with one schema item per issue, naming nested paths with dots', async () => {
            const res = await server.request(
              'POST',
              `/${library.name}`,
              json({ sku: sku(2), name: 'K', price: 3, tags: [{ name: 'red' }, { name: '' }] }),
            );
            assert.equal(res.status, 400, res.text);
            assert.deepEqual(fields(res), [
              ['name', 'schema'],
              ['tags.1.name', 'schema'],
            ]);
            assert.ok(
              res.body.data.every((f: { message: unknown }) => typeof f.message === 'string' && f.message.length > 0),
            );
            assert.deepEqual(Object.keys(res.body.data[0]).sort(), ['error', 'field', 'message']);
            assert.equal(
              (await server.request('POST', `/${library.name}-422`, json({ sku: sku(2), name: 'K', price: 3 }))).status,
              422,
            );
            assert.equal(await catalog.Product.count({ where: { sku: [sku(2), sku(2).toUpperCase()] } }), 0);
          });

          it('updates through the partial (and, for zod and valibot, asynchronous) update schema', async () => {
            const id = (await catalog.Product.findOne({ where: { sku: sku(1).toUpperCase() } }))!.get('id') as string;
            const ok = await server.request('PATCH', `/${library.name}/${id}`, json({ name: 'Kestrel', stock: 4 }));
            assert.deepEqual([ok.status, ok.body.data.name, ok.body.data.stock], [200, 'Kestrel', 4], ok.text);
            const short = await server.request('PATCH', `/${library.name}/${id}`, json({ name: 'K' }));
            assert.deepEqual([short.status, fields(short)], [400, [['name', 'schema']]]);
            if (library.name !== 'arktype') {
              const taken = await server.request('PATCH', `/${library.name}/${id}`, json({ name: 'Taken' }));
              assert.deepEqual(
                [taken.status, taken.body.data],
                [400, [{ field: 'name', error: 'schema', message: 'The name is taken' }]],
              );
            }
          });

          if (library.form) {
            it('validates a form body, whose coerced price passes', async () => {
              const res = await server.request(
                'POST',
                `/${library.name}`,
                urlencoded(`sku=${sku(3)}&name=Form&price=2.5&tags[0][name]=red`),
              );
              assert.equal(res.status, 201, res.text);
              assert.deepEqual(
                [res.body.data.sku, Number(res.body.data.price), res.body.data.tags],
                [sku(3).toUpperCase(), 2.5, [{ name: 'red' }]],
              );
              const bad = await server.request(
                'POST',
                `/${library.name}`,
                urlencoded(`sku=${sku(4)}&name=Form&price=-1&tags[0][name]=`),
              );
              assert.deepEqual(
                [bad.status, fields(bad)],
                [
                  400,
                  [
                    ['price', 'schema'],
                    ['tags.0.name', 'schema'],
                  ],
                ],
              );
            });
          }
        });
      }

      it('returns 400 for a ZodError or a ValiError thrown in a hook, one item per issue, where it used to be a 500', async () => {
        const zod = await server.request(
          'POST',
          '/throwing',
          json({ sku: 'thr-1', name: 'zod', price: 500, tags: ['red', 'purple'] }),
        );
        assert.equal(zod.status, 400, zod.text);
        assert.deepEqual(fields(zod), [
          ['price', 'schema'],
          ['tags.1', 'schema'],
        ]);
        const valibot = await server.request(
          'POST',
          '/throwing',
          json({ sku: 'thr-2', name: 'valibot', price: 1, tags: ['purple'] }),
        );
        assert.deepEqual([valibot.status, fields(valibot)], [400, [['tags.0', 'schema']]]);
        assert.equal(await catalog.Product.count({ where: { sku: ['thr-1', 'thr-2'] } }), 0);
        assert.deepEqual(errors, []);
      });
    });
  }
