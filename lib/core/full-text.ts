/**
 * Full-text term search, planned: a client's term as words, each dialect's query text built from those words only (so
 * no operator syntax of the client's reaches the database), and what registration refuses (full-text-ddl.ts: the
 * index).
 */
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
