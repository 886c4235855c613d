/**
 * A write transaction's last statement (`inWriteTransaction`): written with the work or not at all, on the three
 * databases; on PostgreSQL sent in the COMMIT's round trip (`privateSequelize.commitWith`), its values as literals
 * (`pgTextLiteral`) that read back as written under either `standard_conforming_strings`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DataTypes,
  QueryTypes,
  type Model,
  type Options,
  type Sequelize,
  type ModelStatic,
  type Transaction,
} from 'sequelize';
import { pgTextLiteral } from '../../lib/core/pg-literal.js';
import { privateSequelize } from '../../lib/execute/private-sequelize.js';
import { inWriteTransaction, type LastStatement } from '../../lib/execute/write-transaction.js';
import { closeAll, testDatabases } from '../support/databases.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** A Sequelize instance's options, which its typings leave out: the test logs the statements through them. */
const options = (sequelize: Sequelize) => (sequelize as unknown as { options: Options }).options;

/** A string PostgreSQL's text can hold: any code points but NUL. */
const pgText = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('\\', "'", '$', '\n', 'E'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 40,
  })
  .map((text) => text.replaceAll('\0', ''));

describe('pgTextLiteral', () => {
  it('quotes, and marks an escape string exactly when the text holds a backslash', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', "'", '\\', 'é', '"', '$') }), (text) => {
        const literal = pgTextLiteral(text);
        assert.equal(literal.startsWith("E'"), text.includes('\\'));
        assert.ok(literal.endsWith("'"));
        // Between the outer quotes, every quote is doubled: none ends the literal early.
        assert.doesNotMatch(literal.slice(literal.indexOf("'") + 1, -1).replaceAll("''", ''), /'/);
      }),
    );
  });

  it('refuses a NUL character, which PostgreSQL text cannot hold', () => {
    assert.throws(() => pgTextLiteral('a\0b'), RangeError);
  });
});

for (const db of databases) {
  describe(`a write transaction's last statement on ${db.dialect}`, { skip: db.skip }, () => {
    const sequelize = db.sequelize!;
    const statements: string[] = [];
    let Item: ModelStatic<Model>;

    /** The last statement: a row named `name`, written as text (PostgreSQL) or by the model. */
    const lastRow = (name: string, id?: number): LastStatement => ({
      sql:
        db.dialect === 'postgres'
          ? `INSERT INTO "wtx_items" ("name"${id === undefined ? '' : ', "id"'}) VALUES (${pgTextLiteral(name)}` +
            `${id === undefined ? '' : `, ${id}`})`
          : undefined,
      run: async (transaction) =>
        void (await Item.create({ name, ...(id === undefined ? {} : { id }) }, { transaction })),
    });
    const names = async () =>
      ((await Item.findAll({ order: [['id', 'ASC']], raw: true })) as unknown as { name: string }[]).map(
        (row) => row.name,
      );

    before(async () => {
      Item = sequelize.define(
        'wtxItem',
        {
          id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
          name: { type: DataTypes.STRING(200), allowNull: false },
        },
        { tableName: 'wtx_items', timestamps: false },
      );
      await Item.sync({ force: true });
      options(sequelize).logging = (sql: string) => void statements.push(sql);
    });
    after(() => {
      options(sequelize).logging = false;
    });

    it('commits the work and the last statement together', async () => {
      await Item.destroy({ truncate: true });
      statements.length = 0;
      const value = await inWriteTransaction(sequelize, {}, true, async (transaction) => {
        await Item.create({ name: 'work' }, { transaction });
        return { value: 7, last: lastRow("it's the last \\ one") };
      });
      assert.equal(value, 7);
      assert.deepEqual(await names(), ['work', "it's the last \\ one"]);
      const commits = statements.filter((sql) => /\bCOMMIT\b/.test(sql));
      if (db.dialect === 'postgres') {
        // One round trip: the last statement and the COMMIT are one query.
        assert.equal(commits.length, 1, commits.join('\n'));
        assert.match(commits[0]!, /INSERT INTO "wtx_items".*;\nCOMMIT$/s);
      } else assert.ok(commits.every((sql) => !/INSERT/.test(sql)));
    });

    it('writes nothing when the last statement fails, and gives its connection back', async () => {
      await Item.destroy({ truncate: true });
      const [first] = (await Item.bulkCreate([{ name: 'there' }])) as [Model];
      const taken = Number(first.get('id'));
      // More failures than the pool has connections: a connection kept by a failed commit would hang the next one.
      for (let attempt = 0; attempt < 6; attempt++)
        await assert.rejects(
          inWriteTransaction(sequelize, {}, true, async (transaction) => {
            await Item.create({ name: `work ${attempt}` }, { transaction });
            return { value: undefined, last: lastRow('duplicate', taken) };
          }),
        );
      assert.deepEqual(await names(), ['there']);
    });

    it('neither runs the last statement nor writes when the work throws', async () => {
      await Item.destroy({ truncate: true });
      let asked = false;
      await assert.rejects(
        inWriteTransaction(sequelize, {}, true, async (transaction) => {
          await Item.create({ name: 'work' }, { transaction });
          asked = true;
          throw new Error('a hook refused');
        }),
        /a hook refused/,
      );
      assert.ok(asked);
      assert.deepEqual(await names(), []);
    });

    it("runs the transaction's afterCommit hooks once, after the commit", async () => {
      await Item.destroy({ truncate: true });
      const seen: string[][] = [];
      await inWriteTransaction(sequelize, {}, true, async (transaction) => {
        await Item.create({ name: 'work' }, { transaction });
        transaction.afterCommit(async () => void seen.push(await names()));
        return { value: undefined, last: lastRow('last') };
      });
      assert.deepEqual(seen, [['work', 'last']]);
    });

    if (db.dialect === 'postgres') {
      it('commits with the last statement only while the transaction is open and Sequelize has what it needs', async () => {
        assert.equal(privateSequelize.commitsWith({} as Transaction), false);
        const transaction = await sequelize.transaction();
        assert.equal(privateSequelize.commitsWith(transaction), true);
        await transaction.commit();
        assert.equal(privateSequelize.commitsWith(transaction), false);
      });

      for (const setting of ['on', 'off'])
        it(`reads a literal back as its text with standard_conforming_strings ${setting}`, async () => {
          await sequelize.transaction(async (transaction) => {
            await sequelize.query(`SET LOCAL standard_conforming_strings = ${setting}`, { transaction });
            await fc.assert(
              fc.asyncProperty(pgText, async (text) => {
                const [row] = await sequelize.query<{ v: string }>(`SELECT ${pgTextLiteral(text)} AS v`, {
                  type: QueryTypes.SELECT,
                  transaction,
                });
                assert.equal(row!.v, text);
              }),
              { numRuns: 200 },
            );
          });
        });
    }
  });
}
