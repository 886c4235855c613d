import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planExportRead, type ExportReadFacts } from '../../lib/core/export-read.js';

const cursorFacts: ExportReadFacts = {
  dialect: 'postgres',
  leading: 'other',
  raw: true,
  transaction: true,
  limited: false,
  findHooks: false,
  missing: undefined,
};

const factsArb: fc.Arbitrary<ExportReadFacts> = fc.record({
  dialect: fc.constantFrom('postgres', 'sqlite', 'mariadb', 'mysql', 'mssql'),
  leading: fc.constantFrom('primaryKey' as const, 'none' as const, 'other' as const),
  raw: fc.boolean(),
  transaction: fc.boolean(),
  limited: fc.boolean(),
  findHooks: fc.boolean(),
  missing: fc.option(fc.constantFrom('Database#prepare', 'Connection#queryStream'), { nil: undefined }),
});

describe('planExportRead', () => {
  it('reads a sort that does not lead with the primary key from one cursor, on each dialect that has one', () => {
    for (const dialect of ['postgres', 'sqlite', 'mariadb'])
      assert.deepEqual(planExportRead({ ...cursorFacts, dialect }), { by: 'cursor' });
  });

  it('reads the primary key order (and no order, which the keyset ends with the key) by keyset batches', () => {
    assert.deepEqual(planExportRead({ ...cursorFacts, leading: 'primaryKey' }), {
      by: 'batches',
      reason: 'the order leads with the primary key',
    });
    assert.deepEqual(planExportRead({ ...cursorFacts, leading: 'none' }), {
      by: 'batches',
      reason: 'the order is the primary key',
    });
  });

  it('says why it reads by batches when the cursor cannot serve', () => {
    const cases: [Partial<ExportReadFacts>, string][] = [
      [{ dialect: 'mssql' }, 'mssql has no cursor here'],
      [{ raw: false }, 'the rows are serialized as model instances'],
      [{ transaction: false }, 'there is no snapshot to hold a cursor in'],
      [{ limited: true }, 'the query sets a limit or an offset'],
      [{ findHooks: true }, 'the model has afterFind hooks'],
      [{ missing: 'Database#prepare' }, 'the driver has no Database#prepare'],
    ];
    for (const [change, reason] of cases)
      assert.deepEqual(planExportRead({ ...cursorFacts, ...change }), { by: 'batches', reason });
  });

  it('takes the cursor exactly when every condition holds, and names a reason otherwise', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const read = planExportRead(facts);
        const every =
          facts.leading === 'other' &&
          ['postgres', 'sqlite', 'mariadb'].includes(facts.dialect) &&
          facts.raw &&
          facts.transaction &&
          !facts.limited &&
          !facts.findHooks &&
          facts.missing === undefined;
        assert.equal(read.by === 'cursor', every);
        if (read.by === 'batches') assert.ok(read.reason.length > 0);
      }),
    );
  });

  it('never reads the primary key order from a cursor, whatever else holds', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        assert.equal(planExportRead({ ...facts, leading: 'primaryKey' }).by, 'batches');
      }),
    );
  });
});
