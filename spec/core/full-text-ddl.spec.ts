/** fullTextDdl: the statements that make and drop each dialect's full-text index, and the names it refuses. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import { fullTextDdl } from '../../lib/core/full-text-ddl.js';

describe('fullTextDdl', () => {
  const target = { table: 'products', columns: ['name', 'description'] };

  it("returns PostgreSQL's GIN expression index over the coalesced columns, its statistics raised, then ANALYZE", () => {
    assert.deepEqual(
      fullTextDdl('postgres', target),
      E.right({
        up: [
          `CREATE INDEX IF NOT EXISTS "products_fts" ON "products" USING gin (to_tsvector('simple'::regconfig, ` +
            `coalesce("name", '') || ' ' || coalesce("description", '')))`,
          'ALTER INDEX "products_fts" ALTER COLUMN 1 SET STATISTICS 1000',
          'ANALYZE "products"',
        ],
        down: ['DROP INDEX IF EXISTS "products_fts"'],
      }),
    );
  });

  it("returns MariaDB's FULLTEXT index", () => {
    assert.deepEqual(
      fullTextDdl('mariadb', target),
      E.right({
        up: ['CREATE FULLTEXT INDEX IF NOT EXISTS `products_fts` ON `products` (`name`, `description`)'],
        down: ['DROP INDEX IF EXISTS `products_fts` ON `products`'],
      }),
    );
  });

  it("returns SQLite's external-content FTS5 table, its three triggers and a rebuild, keyed by the given rowid", () => {
    const ddl = fullTextDdl('sqlite', { ...target, rowid: 'id' });
    assert.ok(E.isRight(ddl));
    const [table, insert, remove, update, rebuild] = ddl.right.up;
    assert.equal(
      table,
      `CREATE VIRTUAL TABLE IF NOT EXISTS "products_fts" USING fts5("name", "description", content='products', ` +
        `content_rowid='id')`,
    );
    assert.match(
      insert!,
      /AFTER INSERT ON "products" BEGIN INSERT INTO "products_fts"\(rowid, "name", "description"\)/,
    );
    assert.match(remove!, /AFTER DELETE .* VALUES \('delete', old\."id", old\."name", old\."description"\);/);
    assert.match(update!, /AFTER UPDATE .*'delete'.*new\."id", new\."name", new\."description"\);/);
    assert.equal(rebuild, `INSERT INTO "products_fts"("products_fts") VALUES ('rebuild')`);
    assert.equal(ddl.right.down.length, 4);
  });

  it('returns left for a name that is not a plain identifier, or no column', () => {
    assert.ok(E.isLeft(fullTextDdl('postgres', { table: 'products"; --', columns: ['name'] })));
    assert.ok(E.isLeft(fullTextDdl('sqlite', { table: 'products', columns: ["na'me"] })));
    assert.ok(E.isLeft(fullTextDdl('postgres', { ...target, language: "simple'" })));
    assert.ok(E.isLeft(fullTextDdl('mariadb', { table: 'products', columns: [] })));
  });
});
