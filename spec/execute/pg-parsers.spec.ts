/**
 * The driver path's type parsers on PostgreSQL (pg-parsers.ts): the values of every column type Sequelize parses are
 * the ones `sequelize.query` gives, before and after a stand-in is trusted; a stand-in that disagrees is never used;
 * a `parse` replaced on a type (the usual way to read DECIMAL as numbers) is followed at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, QueryTypes as SequelizeQueryTypes, type Sequelize } from 'sequelize';
import { driverSelect } from '../../lib/execute/driver-connection.js';
import { CHECKED_VALUES, queryTypes } from '../../lib/execute/pg-parsers.js';
import { privateSequelize } from '../../lib/execute/private-sequelize.js';
import { stateOf } from '../../lib/execute/state.js';
import { closeAll, testDatabases } from '../support/databases.js';

const databases = await testDatabases();
after(() => closeAll(databases));
const postgres = databases.find((db) => db.dialect === 'postgres')!;

const TABLE = 'pg_parsers_values';
const SELECT = `SELECT * FROM "${TABLE}" ORDER BY "id";`;
const INT4 = 23;

/** `DataTypes.postgres` as the tests change it (its typings leave it out). */
const pgDataTypes = () =>
  (DataTypes as unknown as { postgres: Record<string, { parse?: unknown; types?: unknown }> }).postgres;

/** A row of every type Sequelize's PostgreSQL connections parse themselves, and some they leave to node-postgres. */
const row = fc.record({
  whole: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
  big: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)),
  amount: fc.option(fc.tuple(fc.integer(), fc.nat(99)).map(([units, cents]) => `${units}.${cents}`)),
  yes: fc.option(fc.boolean()),
  day: fc.option(fc.date({ min: new Date('0100-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })),
  at: fc.option(fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })),
  label: fc.option(fc.string({ maxLength: 12 }).map((text) => text.replaceAll('\0', ''))),
});

describe('the driver path on PostgreSQL parses values as Sequelize does', { skip: postgres.skip }, () => {
  let sequelize: Sequelize;
  before(async () => {
    sequelize = postgres.sequelize!;
    await sequelize.query(`DROP TABLE IF EXISTS "${TABLE}"`);
    await sequelize.query(
      `CREATE TABLE "${TABLE}" ("id" serial PRIMARY KEY, "whole" int4, "big" int8, "amount" numeric(14, 2), ` +
        `"yes" boolean, "day" date, "at" timestamptz, "label" text)`,
    );
  });
  after(() => sequelize.query(`DROP TABLE IF EXISTS "${TABLE}"`));

  const fill = async (rows: readonly Record<string, unknown>[]) => {
    await sequelize.query(`TRUNCATE "${TABLE}"`);
    for (const values of rows) {
      const columns = Object.keys(values);
      await sequelize.query(
        `INSERT INTO "${TABLE}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        { replacements: columns.map((c) => (c === 'day' && values[c] !== null ? isoDay(values[c]) : values[c])) },
      );
    }
  };
  const isoDay = (value: unknown) => (value as Date).toISOString().slice(0, 10);
  const bothPaths = async () => {
    const options = { raw: true, type: SequelizeQueryTypes.SELECT } as const;
    return [await driverSelect(sequelize, SELECT, options), await sequelize.query(SELECT, options)] as const;
  };

  it('gives sequelize.query’s values while its stand-ins are checked and once they are trusted', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 40 }), async (rows) => {
        await fill(rows);
        // The first reads check the stand-ins; past CHECKED_VALUES values of a type, its stand-in parses alone.
        for (let read = 0; read < 3; read += 1) {
          const [driver, query] = await bothPaths();
          assert.deepEqual(driver, query);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('trusts a stand-in only after CHECKED_VALUES agreements, and never for a binary column', () => {
    const types = queryTypes(sequelize)!;
    const theirs = privateSequelize.pgTypes(sequelize)!.parserOf(INT4, 'text');
    const checking = types.getTypeParser(INT4);
    assert.notEqual(checking, theirs);
    for (let i = 0; i < CHECKED_VALUES - 1; i += 1) assert.equal(checking(String(i)), i);
    assert.equal(types.getTypeParser(INT4), checking, 'one value short: still checking');
    checking('-7');
    const direct = types.getTypeParser(INT4);
    assert.ok(direct !== checking && direct !== theirs);
    assert.equal(direct('2147483647'), 2147483647);
    assert.equal(types.getTypeParser(INT4, 'binary'), privateSequelize.pgTypes(sequelize)!.parserOf(INT4, 'binary'));
  });

  it('keeps Sequelize’s parser for a type whose stand-in disagrees once', async () => {
    // A type added after the connections registered their parsers: the stand-in would read int4 as text.
    pgDataTypes()['ZZ_TEXT_INT4'] = { parse: (value: string) => `int4 ${value}`, types: { postgres: ['int4'] } };
    try {
      const types = queryTypes(sequelize)!;
      const theirs = privateSequelize.pgTypes(sequelize)!.parserOf(INT4, 'text');
      assert.equal(types.getTypeParser(INT4)('5'), 5);
      assert.equal(types.getTypeParser(INT4), theirs);
      // The instance's own parsers made again, so that the driver path meets the new type too.
      stateOf(sequelize).queryTypes = undefined;
      await fill(Array.from({ length: CHECKED_VALUES + 1 }, (_, whole) => ({ whole })));
      for (let read = 0; read < 2; read += 1) {
        const [driver, query] = await bothPaths();
        assert.deepEqual(driver, query);
      }
    } finally {
      delete pgDataTypes()['ZZ_TEXT_INT4'];
      stateOf(sequelize).queryTypes = undefined;
    }
  });

  it('follows a parse replaced on a type, as Sequelize’s parser does', async () => {
    await fill(Array.from({ length: CHECKED_VALUES }, (_, i) => ({ whole: i, amount: `${i}.50` })));
    await bothPaths();
    await bothPaths();
    const decimal = pgDataTypes()['DECIMAL']!;
    const parse = decimal.parse;
    decimal.parse = (value: string) => Number(value);
    try {
      const [driver, query] = await bothPaths();
      assert.deepEqual(driver, query);
      assert.equal((driver as { amount: unknown }[])[3]!.amount, 3.5);
    } finally {
      decimal.parse = parse;
    }
    const [driver] = await bothPaths();
    assert.equal((driver as { amount: unknown }[])[3]!.amount, '3.50');
  });
});
