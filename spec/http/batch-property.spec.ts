/**
 * The law of batch writes, over HTTP on every database and in both forms: when every record succeeds, a batch request
 * leaves the table as the same single requests applied in order do, and answers the records they answer. Tables `bwp*`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { DataTypes, Op, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestResponse, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineRow(sequelize: Sequelize, name: string): ModelStatic<Model> {
  return sequelize.define(
    name,
    {
      id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
      sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(40), allowNull: false },
      price: { type: DataTypes.INTEGER, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: `${name.toLowerCase()}s`, underscored: true, timestamps: false },
  );
}

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A stored row, as generated: skus are unique by construction (`s<index>`). */
const rowsArb = fc
  .array(
    fc.record({ name: fc.stringMatching(/^[a-z]{1,8}$/), price: fc.integer({ min: 0, max: 9 }), gone: fc.boolean() }),
    {
      maxLength: 8,
    },
  )
  .map((rows) => rows.map((row, i) => ({ ...row, sku: `s${i}` })));

/** A price range as a filter: `filter[price][gte]=lo&filter[price][lte]=hi`. */
const rangeArb = fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })).map(([a, b]) => ({
  lo: Math.min(a, b),
  hi: Math.max(a, b),
}));

type Op =
  | { kind: 'create'; items: { sku: string; name: string; price: number }[] }
  | { kind: 'update'; lo: number; hi: number; body: { name?: string; price?: number } }
  | { kind: 'delete' | 'softDelete' | 'restore'; lo: number; hi: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc
    .array(fc.record({ name: fc.stringMatching(/^[a-z]{1,8}$/), price: fc.integer({ min: 0, max: 9 }) }), {
      minLength: 1,
      maxLength: 5,
    })
    .map((items) => ({ kind: 'create' as const, items: items.map((item, i) => ({ ...item, sku: `n${i}` })) })),
  fc
    .tuple(
      rangeArb,
      fc.record(
        { name: fc.stringMatching(/^[A-Z]{1,8}$/), price: fc.integer({ min: 0, max: 9 }) },
        { requiredKeys: [] },
      ),
    )
    .filter(([, body]) => Object.keys(body).length > 0)
    .map(([range, body]) => ({ kind: 'update' as const, ...range, body })),
  fc
    .tuple(
      fc.constantFrom('delete', 'softDelete', 'restore') as fc.Arbitrary<'delete' | 'softDelete' | 'restore'>,
      rangeArb,
    )
    .map(([kind, range]) => ({ kind, ...range })),
);

/** What a reply's record is compared by: everything but the id, which differs between the two tables. */
const shown = (record: Record<string, unknown>) => ({
  ...record,
  id: undefined,
  deletedAt: record['deletedAt'] !== null,
});

for (const db of databases) {
  for (const form of FORMS) {
    describe(
      `a batch equals its single requests in order (${form.name} form) on ${db.dialect}`,
      { skip: db.skip },
      () => {
        const sequelize = db.sequelize!;
        const Batched = defineRow(sequelize, `Bwp${form.initial}Batch`);
        const Single = defineRow(sequelize, `Bwp${form.initial}Single`);
        const spec: ResourceSpec<Model> = { policy: { fillable: ['sku', 'name', 'price'] }, batch: true };
        const config = { global: { find_field_is_uuid: false } };
        let server: TestServer;

        before(async () => {
          await Batched.sync({ force: true });
          await Single.sync({ force: true });
          const router = new Router();
          form.register(router, 'batched', Batched, spec, { config });
          form.register(router, 'single', Single, spec, { config });
          server = await serve(new Koa().use(router.routes()));
        });
        after(() => server.close());

        const table = async (model: ModelStatic<Model>) =>
          (await model.findAll({ order: [['sku', 'ASC']] })).map((row) => ({
            sku: row.get('sku'),
            name: row.get('name'),
            price: row.get('price'),
            gone: row.get('deletedAt') !== null,
          }));

        /** The single requests of an op against /single, in the batch's order (primary key), and their replies' data. */
        async function singles(op: Op): Promise<unknown[]> {
          if (op.kind === 'create') {
            const data = [];
            for (const item of op.items) data.push((await server.request('POST', '/single', json(item))).body.data);
            return data;
          }
          const range = { price: { [Op.gte]: op.lo, [Op.lte]: op.hi } };
          const deleted = op.kind === 'restore' ? { [Op.ne]: null } : op.kind === 'delete' ? undefined : null;
          const where = deleted === undefined ? { ...range, deletedAt: null } : { ...range, deletedAt: deleted };
          const rows = await Single.findAll({ where, order: [['id', 'ASC']] });
          const data = [];
          for (const row of rows) {
            const id = row.get('id') as number;
            const reply: TestResponse =
              op.kind === 'update'
                ? await server.request('PATCH', `/single/${id}`, json(op.body))
                : op.kind === 'delete'
                  ? await server.request('DELETE', `/single/${id}`)
                  : op.kind === 'softDelete'
                    ? await server.request('DELETE', `/single/${id}/soft`)
                    : await server.request('PATCH', `/single/${id}/restore`);
            assert.equal(reply.status, 200, reply.text);
            data.push(op.kind === 'delete' ? row.get('sku') : reply.body.data);
          }
          return data;
        }

        async function batch(op: Op): Promise<unknown[]> {
          const filter = `filter[price][gte]=${'lo' in op ? op.lo : 0}&filter[price][lte]=${'hi' in op ? op.hi : 0}`;
          const reply =
            op.kind === 'create'
              ? await server.request('POST', '/batched', json(op.items))
              : op.kind === 'update'
                ? await server.request('PATCH', `/batched?${filter}`, json(op.body))
                : op.kind === 'delete'
                  ? await server.request('DELETE', `/batched?${filter}`)
                  : op.kind === 'softDelete'
                    ? await server.request('DELETE', `/batched/soft?${filter}`)
                    : await server.request('PATCH', `/batched/restore?${filter}`);
          assert.equal(reply.status, op.kind === 'create' ? 201 : 200, reply.text);
          if (op.kind !== 'delete') return reply.body.data as unknown[];
          // Delete answers find-field values (ids, which differ between the tables): compared as the rows' skus.
          const skus = new Map((await Batched.findAll({ paranoid: false })).map((r) => [r.get('id'), r.get('sku')]));
          return (reply.body.data as number[]).map((id) => skus.get(id) ?? `deleted ${id}`);
        }

        it('leaves the same table and answers the same records', async () => {
          await fc.assert(
            fc.asyncProperty(rowsArb, opArb, async (rows, op) => {
              const seed = rows.map(({ gone, ...row }) => ({ ...row, deletedAt: gone ? new Date(0) : null }));
              for (const model of [Batched, Single]) {
                await model.destroy({ where: {}, truncate: true, force: true });
                await model.bulkCreate(seed);
              }
              const before = op.kind === 'delete' ? await Batched.findAll({ order: [['id', 'ASC']] }) : [];
              const expected = await singles(op);
              const actual = await batch(op);
              if (op.kind === 'delete') {
                const gone = new Set((await Batched.findAll()).map((r) => r.get('sku')));
                assert.deepEqual(
                  before.map((r) => r.get('sku')).filter((sku) => !gone.has(sku)),
                  expected,
                );
              } else {
                assert.deepEqual(
                  (actual as Record<string, unknown>[]).map(shown),
                  (expected as Record<string, unknown>[]).map(shown),
                );
              }
              assert.deepEqual(await table(Batched), await table(Single));
            }),
            { numRuns: 25 },
          );
        });
      },
    );
  }
}
