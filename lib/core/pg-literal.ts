/**
 * PostgreSQL string literals for a statement that must carry its values in its text: one sent with the simple query
 * protocol, which has no parameters (the change feed's outbox row, sent in the same round trip as its COMMIT).
 */

/**
 * `text` as a PostgreSQL string literal that reads back as `text` whatever `standard_conforming_strings` is: quotes
 * doubled, and when it holds a backslash, an escape string (`E'…'`) with each backslash doubled, since only there does
 * a backslash mean the same under both settings. Throws on a NUL character, which PostgreSQL's text cannot hold.
 * @example pgTextLiteral("it's") // "'it''s'"
 * @example pgTextLiteral('a\\b') // "E'a\\\\b'"
 */
export function pgTextLiteral(text: string): string {
  if (text.includes('\0')) throw new RangeError('A PostgreSQL string cannot hold a NUL character');
  const quoted = text.replaceAll("'", "''");
  return text.includes('\\') ? `E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}
