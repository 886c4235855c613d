/** compileLookup: the find options of a record lookup, as values and as SQL on every dialect (offline snapshots). */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Op, type Transaction } from 'sequelize';
import { compileLookup } from '../../lib/compile/lookup.js';
import { NOT_NULL, lookupFor, type Lookup } from '../../lib/core/record-plan.js';
import { defineCatalog } from '../support/catalog.js';
import { snapshotFile } from '../support/snapshots.js';
import { DIALECTS, offlineSequelize, selectSql } from '../support/sql.js';

const ID = '0b6f9a52-3c1d-4e2f-8a9b-1c2d3e4f5a6b';
/** compileLookup only passes the transaction on; offline there is no real one to open. */
const TRANSACTION = {} as Transaction;

describe('compileLookup', () => {
  it('returns Op.ne null for the NOT_NULL marker and keeps every other value', () => {
    assert.deepEqual(compileLookup({ where: { id: ID, deletedAt: NOT_NULL }, paranoid: false }), {
      where: { id: ID, deletedAt: { [Op.ne]: null } },
      paranoid: false,
    });
    assert.deepEqual(compileLookup({ where: { id: 7, deletedAt: null }, paranoid: true }), {
      where: { id: 7, deletedAt: null },
      paranoid: true,
    });
  });

  it('returns the transaction with a row lock when given one', () => {
    const compiled = compileLookup({ where: { id: 7 }, paranoid: true }, TRANSACTION);
    assert.equal(compiled.transaction, TRANSACTION);
    assert.equal(compiled.lock, true);
  });

  it('does not change the lookup it is given', () => {
    const lookup: Lookup = { where: Object.freeze({ id: ID, deletedAt: NOT_NULL }), paranoid: false };
    compileLookup(lookup);
    assert.deepEqual(lookup, { where: { id: ID, deletedAt: NOT_NULL }, paranoid: false });
  });
});

for (const dialect of DIALECTS) {
  describe(`compileLookup on ${dialect} (offline)`, () => {
    const { Product, Note } = defineCatalog(offlineSequelize(dialect), 'sql');
    const snapshots = snapshotFile(new URL(`__snapshots__/lookup-sql.${dialect}.json`, import.meta.url).pathname);
    after(() => snapshots.finish());
    const cases = {
      'active record': () => [Product, lookupFor(Product, 'id', ID.toUpperCase(), 'active', 'deletedAt')] as const,
      'trashed record': () => [Product, lookupFor(Product, 'id', ID, 'trashed', 'deletedAt')] as const,
      'any record': () => [Product, lookupFor(Product, 'id', ID, 'any', 'deletedAt')] as const,
      'by a mapped find field, hostile id': () =>
        [Product, lookupFor(Product, 'deleted_by', "x' OR '1'='1", 'any', 'deletedAt')] as const,
      'active record of a paranoid model': () => [Note, lookupFor(Note, 'id', ID, 'active', 'deletedAt')] as const,
      'trashed record of a paranoid model': () => [Note, lookupFor(Note, 'id', ID, 'trashed', 'deletedAt')] as const,
    };

    for (const [name, make] of Object.entries(cases)) {
      it(`compiles the ${name} to its snapshot`, async () => {
        const [model, lookup] = make();
        assert.ok(lookup);
        snapshots.match(name, await selectSql(model, compileLookup(lookup)));
      });
    }

    it('compiles a lookup in a transaction to a locking read (its snapshot)', async () => {
      const lookup = lookupFor(Product, 'id', ID, 'active', 'deletedAt');
      assert.ok(lookup);
      snapshots.match('active record in a transaction', await selectSql(Product, compileLookup(lookup, TRANSACTION)));
    });
  });
}
