/**
 * Full-text term search, planned: a client's term as words, each dialect's query text built from those words only (so
 * no operator syntax of the client's reaches the database), and the DDL of the index or virtual table it needs.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { AttributeSource, FieldPolicy, FullTextTerm } from '../types.js';
import { isTextKind, kindOf } from './attribute-kinds.js';
import { isPlainIdentifier } from './columns.js';
import { allowedColumn } from './field-policy.js';

/** The dialects full-text search compiles for. */
export type FullTextDialect = 'postgres' | 'mariadb' | 'sqlite';

/**
 * A resource's full-text setting as declared: `true`, or the PostgreSQL text search configuration (`language`,
 * default `simple`: no stemming, no stop words) its `to_tsvector` and `to_tsquery` use.
 * @example { language: 'english' }
 */
export type FullTextOption = boolean | { readonly language?: string };

/** The most words a term is searched by; the rest are left out (a term is a search box's text, not a document). */
export const MAX_TERM_WORDS = 16;
/** The longest word searched; a longer one is cut there (every dialect's index holds shorter words only). */
export const MAX_WORD_LENGTH = 64;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The words of a client's term: runs of letters, digits and combining marks, lower-cased (NFC), at most
 * `MAX_TERM_WORDS`, each at most `MAX_WORD_LENGTH` characters, without repeats. Everything else (quotes, `*`, `-`,
 * parentheses, `:`) separates words, so no character of a word is operator syntax in any dialect.
 * @example termWords('"Cast-iron" pan*') // ['cast', 'iron', 'pan']
 */
export function termWords(term: string): string[] {
  const words = (term.normalize('NFC').toLowerCase().match(WORD) ?? []).map((word) =>
    [...word].slice(0, MAX_WORD_LENGTH).join(''),
  );
  return [...new Set(words)].slice(0, MAX_TERM_WORDS);
}

/**
 * The full-text term of a declared setting, or undefined when the resource searches with LIKE (the default).
 * @example fullTextTerm('Pan', { language: 'english' }) // { words: ['pan'], language: 'english' }
 */
export function fullTextTerm(text: string, option: FullTextOption | undefined): FullTextTerm | undefined {
  if (option === undefined || option === false) return undefined;
  return { words: termWords(text), language: languageOf(option) };
}

/**
 * The text search configuration of a setting: its `language`, or `simple`.
 * @example languageOf(true) // 'simple'
 */
export function languageOf(option: FullTextOption): string {
  return option === true || option === false ? 'simple' : (option.language ?? 'simple');
}

/**
 * What registration refuses in a full-text setting: a language that is not a plain identifier.
 * @example fullTextProblems({ language: "english'" }) // ["search.fullText.language …"]
 */
export function fullTextProblems(option: FullTextOption | undefined): string[] {
  if (option === undefined || typeof option === 'boolean') return [];
  const language = option.language ?? 'simple';
  return typeof language === 'string' && isPlainIdentifier(language)
    ? []
    : [`search.fullText.language ${JSON.stringify(language)} is not a text search configuration name`];
}

/**
 * What registration refuses in a full-text term search: no term field, or one that is not a filterable text column
 * (the index covers the declared fields, so every search must read all of them).
 * @example fullTextColumnProblems(Product, ['stock'], policy, true)
 *   // ["search.fullText needs text term fields: 'stock' is not text"]
 */
export function fullTextColumnProblems(
  model: AttributeSource,
  termFields: readonly string[],
  policy: Pick<FieldPolicy, 'filterable'>,
  option: FullTextOption | undefined,
): string[] {
  if (option === undefined || option === false) return [];
  if (termFields.length === 0) return ['search.fullText needs termFields to search'];
  return termFields.flatMap((name) => {
    const found = allowedColumn(model, policy.filterable, name);
    if (found === undefined) return [`search.fullText needs filterable term fields: ${JSON.stringify(name)} is not`];
    return isTextKind(kindOf(model.getAttributes()[found.attribute]!))
      ? []
      : [`search.fullText needs text term fields: ${JSON.stringify(name)} is not text`];
  });
}

/**
 * PostgreSQL's `to_tsquery` text: every word as a prefix, ANDed (`'cast':* & 'pan':*`); words hold letters,
 * digits and marks only, and the quotes are PostgreSQL's lexeme quotes.
 * @example postgresTsQuery(['cast', 'pan']) // "'cast':* & 'pan':*"
 */
export function postgresTsQuery(words: readonly string[]): string {
  return words.map((word) => `'${word.replaceAll("'", "''")}':*`).join(' & ');
}

/**
 * InnoDB's default stop words (`INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD`): never indexed, so a required one
 * (`+the*`) would find no row; they are sent as optional prefixes instead.
 */
export const INNODB_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about an are as at be by com de en for from how i in is it la of on or that the this to was what when where ' +
    'who will with und www'
  ).split(' '),
);

/**
 * MariaDB's `AGAINST (… IN BOOLEAN MODE)` text: every word a required prefix (`+cast* +pan*`), a stop word an optional
 * one; words hold letters, digits and marks only, none of which is a boolean operator.
 * @example mariadbBooleanQuery(['the', 'pan']) // 'the* +pan*'
 */
export function mariadbBooleanQuery(words: readonly string[]): string {
  return words.map((word) => (INNODB_STOPWORDS.has(word) ? `${word}*` : `+${word}*`)).join(' ');
}

/**
 * An FTS5 `MATCH` text: every word an FTS5 string (double quotes, a quote doubled) and a prefix, ANDed
 * (`"cast"* AND "pan"*`), so no FTS5 syntax (`OR`, `NEAR(`, `-`, `:`, `^`) of the client's is read as such.
 * @example fts5Query(['cast', 'or']) // '"cast"* AND "or"*'
 */
export function fts5Query(words: readonly string[]): string {
  return words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(' AND ');
}

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
    case 'postgres':
      return E.right({
        up: [
          `CREATE INDEX IF NOT EXISTS "${name}" ON "${table}" USING gin (${postgresDocument(
            columns.map((c) => `"${c}"`),
            language,
          )})`,
        ],
        down: [`DROP INDEX IF EXISTS "${name}"`],
      });
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
