/** A small SQL lexer for the leak law: what of a statement lies outside its string literals. */
import type { Dialect } from './sql.js';

/**
 * The statement with every string literal replaced by `?`; quoted identifiers are kept as written,
 * so a client string that lands inside an identifier still shows. Throws on a quote left open.
 * MariaDB escapes with a backslash as well as by doubling the quote.
 * @example outsideLiterals("SELECT `a` FROM t WHERE b = 'it''s'", 'sqlite') // "SELECT `a` FROM t WHERE b = ?"
 */
export function outsideLiterals(sql: string, dialect: Dialect): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const end = closing(sql, i, c, c === "'" && dialect === 'mariadb');
      out += c === "'" ? '?' : sql.slice(i, end + 1);
      i = end + 1;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** The index of the quote that closes the one at `start`. */
function closing(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    if (backslashEscapes && sql[i] === '\\') i += 2;
    else if (sql[i] === quote && sql[i + 1] === quote) i += 2;
    else if (sql[i] === quote) return i;
    else i += 1;
  }
  throw new Error(`unterminated ${quote} at ${start}: ${sql.slice(start, start + 40)}`);
}
