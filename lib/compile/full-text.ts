/** Compiles a full-text term search into the WHERE each dialect's full-text index serves. */
import { Sequelize, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { fts5Query, mariadbBooleanQuery, postgresTsQuery, type FullTextDialect } from '../core/full-text.js';
import { fullTextName, postgresDocument } from '../core/full-text-ddl.js';
import { isPlainIdentifier } from '../core/columns.js';
import type { FullTextTerm } from '../types.js';

/**
 * The rows having every word of the term, each as the start of a word of the term columns: PostgreSQL's
 * `to_tsvector(…) @@ to_tsquery(…)` (the expression of `fullTextDdl`'s GIN index), MariaDB's
 * `MATCH (…) AGAINST (… IN BOOLEAN MODE)`, SQLite's `rowid IN (SELECT rowid FROM <table>_fts WHERE … MATCH …)`. The
 * query text is made of the term's words only (`termWords`), and sent as an escaped string. A term without words
 * matches no row.
 * @example fullTextWhere(Product, ['name'], { words: ['pan'], language: 'simple' })
 *   // to_tsvector('simple'::regconfig, coalesce("Product"."name", '')) @@ to_tsquery('simple'::regconfig, '''pan'':*')
 */
export function fullTextWhere(
  model: ModelStatic<Model>,
  columns: readonly string[],
  term: FullTextTerm,
  alias = model.name,
): WhereOptions {
  if (term.words.length === 0) return Sequelize.literal('1 = 0');
  const sequelize = model.sequelize!;
  const quote = (name: string) => sequelize.getQueryInterface().quoteIdentifiers(name);
  const qualified = columns.map((column) => quote(`${alias}.${column}`));
  switch (sequelize.getDialect() as FullTextDialect) {
    case 'postgres': {
      // Registration checks the language is a plain identifier, so its literal is the index's own (`'simple'`).
      const language = isPlainIdentifier(term.language) ? term.language : 'simple';
      const query = sequelize.escape(postgresTsQuery(term.words));
      return Sequelize.literal(
        `${postgresDocument(qualified, language)} @@ to_tsquery('${language}'::regconfig, ${query})`,
      );
    }
    case 'mariadb': {
      const query = sequelize.escape(mariadbBooleanQuery(term.words));
      return Sequelize.literal(`MATCH (${qualified.join(', ')}) AGAINST (${query} IN BOOLEAN MODE)`);
    }
    case 'sqlite': {
      const fts = quote(fullTextName(model.tableName));
      return Sequelize.literal(
        `${quote(`${alias}.${sqliteRowid(model)}`)} IN ` +
          `(SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${sequelize.escape(fts5Query(term.words))})`,
      );
    }
  }
}

/**
 * The column SQLite's FTS5 table is keyed by: the model's one INTEGER primary key column (an alias of the rowid,
 * stable across VACUUM), else `rowid`.
 * @example sqliteRowid(Product) // 'rowid' for a uuid key
 */
export function sqliteRowid(model: ModelStatic<Model>): string {
  const keys = Object.values(model.getAttributes()).filter((definition) => definition.primaryKey === true);
  const [key] = keys;
  const isInteger = key !== undefined && (key.type as { key?: string }).key === 'INTEGER';
  return keys.length === 1 && isInteger ? (key.field ?? 'id') : 'rowid';
}
