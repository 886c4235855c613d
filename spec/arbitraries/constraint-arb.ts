/** fast-check arbitraries for constraint details: column names as PostgreSQL writes them into a foreign key's detail. */
import fc from 'fast-check';

/**
 * A column name: plain lower-case (written bare), or any other text without NUL (written quoted).
 * @example fc.sample(columnNameArb, 1) // ['authorId']
 */
export const columnNameArb: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/),
  fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !name.includes('\u0000')),
);

/**
 * How PostgreSQL's quote_identifier writes a name: bare when it is lower-case letters, digits and
 * underscores not starting with a digit, else in double quotes with each quote doubled.
 * @example pgIdentifier('authorId') // '"authorId"'
 */
export function pgIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/**
 * A foreign key's detail for a row whose key points nowhere, with any values.
 * @example childDetail(['authorId'], ['5']) // 'Key ("authorId")=(5) is not present in table "authors".'
 */
export function childDetail(columns: readonly string[], values: readonly string[]): string {
  return `Key (${columns.map(pgIdentifier).join(', ')})=(${values.join(', ')}) is not present in table "authors".`;
}
