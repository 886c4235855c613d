/** fullTextDdl: the index (PostgreSQL, MariaDB) or FTS5 table and triggers (SQLite) a full-text term search reads. */
import * as E from 'fp-ts/lib/Either.js';
import { isPlainIdentifier } from './columns.js';
import type { FullTextDialect } from './full-text.js';

/** The statistics target of PostgreSQL's full-text index: how many of the commonest words ANALYZE counts, ×10. */
export const POSTGRES_STATISTICS = 1000;

/** What a full-text index is made on: the table, its term columns in declared order, and its key. */
export interface FullTextTarget {
  readonly table: string;
  readonly columns: readonly string[];
  /** SQLite: the integer column the FTS5 table's rows are keyed by; `rowid` (the default) for any other key. */
  readonly rowid?: string | undefined;
  readonly language?: string | undefined;
}

/** The statements that make a full-text index (`up`) and drop it (`down`). */
export interface FullTextDdl {
  readonly up: readonly string[];
  readonly down: readonly string[];
}

/**
 * The name of the index (PostgreSQL, MariaDB) or FTS5 table (SQLite) of a table's full-text search.
 * @example fullTextName('products') // 'products_fts'
 */
export function fullTextName(table: string): string {
  return `${table}_fts`;
}

/**
 * The document a PostgreSQL full-text search and its expression index read: the columns (quoted SQL), NULL as empty,
 * joined by spaces. PostgreSQL uses the index only for a query whose expression is this same one.
 * @example postgresDocument(['"name"', '"sku"'], 'simple')
 *   // `to_tsvector('simple'::regconfig, coalesce("name", '') || ' ' || coalesce("sku", ''))`
 */
export function postgresDocument(columns: readonly string[], language: string): string {
  const text = columns.map((column) => `coalesce(${column}, '')`).join(` || ' ' || `);
  return `to_tsvector('${language}'::regconfig, ${text})`;
}

/**
 * The DDL of a full-text index, per dialect: PostgreSQL's GIN expression index over `postgresDocument`, MariaDB's
 * FULLTEXT index, SQLite's external-content FTS5 table with the three triggers that keep it in step and a `rebuild`
 * that fills it. Left: a name that is not a plain identifier, or no column.
 * @example fullTextDdl('postgres', { table: 'products', columns: ['name'] })
 *   // right({ up: [`CREATE INDEX IF NOT EXISTS "products_fts" ON "products" USING gin (to_tsvector(…))`], down: […] })
 */
export function fullTextDdl(dialect: FullTextDialect, target: FullTextTarget): E.Either<string, FullTextDdl> {
  const { table, columns } = target;
  const rowid = target.rowid ?? 'rowid';
  const language = target.language ?? 'simple';
  const names = [table, ...columns, rowid, language];
  const bad = names.find((name) => !isPlainIdentifier(name) || name.length > 50);
  if (bad !== undefined) return E.left(`${JSON.stringify(bad)} is not a plain identifier of at most 50 characters`);
  if (columns.length === 0) return E.left('a full-text index needs at least one column');
  const name = fullTextName(table);
  switch (dialect) {
    case 'postgres': {
      const document = postgresDocument(
        columns.map((c) => `"${c}"`),
        language,
      );
      return E.right({
        up: [
          `CREATE INDEX IF NOT EXISTS "${name}" ON "${table}" USING gin (${document})`,
          // Word frequencies for 10,000 words instead of 1,000: an estimate off by far makes PostgreSQL walk the key
          // order for a page (ORDER BY id LIMIT 40), making the document of every row it passes (0.4 s at 1M rows).
          `ALTER INDEX "${name}" ALTER COLUMN 1 SET STATISTICS ${POSTGRES_STATISTICS}`,
          `ANALYZE "${table}"`,
        ],
        down: [`DROP INDEX IF EXISTS "${name}"`],
      });
    }
    case 'mariadb': {
      const list = columns.map((c) => `\`${c}\``).join(', ');
      return E.right({
        up: [`CREATE FULLTEXT INDEX IF NOT EXISTS \`${name}\` ON \`${table}\` (${list})`],
        down: [`DROP INDEX IF EXISTS \`${name}\` ON \`${table}\``],
      });
    }
    case 'sqlite':
      return E.right(sqliteDdl(name, target, rowid));
  }
}

function sqliteDdl(name: string, { table, columns }: FullTextTarget, rowid: string): FullTextDdl {
  const list = columns.map((c) => `"${c}"`).join(', ');
  const values = (row: 'new' | 'old') => columns.map((c) => `${row}."${c}"`).join(', ');
  const remove =
    `INSERT INTO "${name}"("${name}", rowid, ${list}) ` + `VALUES ('delete', old."${rowid}", ${values('old')});`;
  const add = `INSERT INTO "${name}"(rowid, ${list}) VALUES (new."${rowid}", ${values('new')});`;
  return {
    up: [
      `CREATE VIRTUAL TABLE IF NOT EXISTS "${name}" USING fts5(${list}, content='${table}', content_rowid='${rowid}')`,
      `CREATE TRIGGER IF NOT EXISTS "${name}_ai" AFTER INSERT ON "${table}" BEGIN ${add} END`,
      `CREATE TRIGGER IF NOT EXISTS "${name}_ad" AFTER DELETE ON "${table}" BEGIN ${remove} END`,
      `CREATE TRIGGER IF NOT EXISTS "${name}_au" AFTER UPDATE ON "${table}" BEGIN ${remove} ${add} END`,
      `INSERT INTO "${name}"("${name}") VALUES ('rebuild')`,
    ],
    down: [
      `DROP TRIGGER IF EXISTS "${name}_ai"`,
      `DROP TRIGGER IF EXISTS "${name}_ad"`,
      `DROP TRIGGER IF EXISTS "${name}_au"`,
      `DROP TABLE IF EXISTS "${name}"`,
    ],
  };
}
