/** fast-check arbitraries for full-text terms: what a client could type into a search box, operators of every dialect. */
import fc from 'fast-check';

/** Pieces of every dialect's full-text syntax, quotes and SQL, beside letters of several scripts and emoji. */
const PIECES = [
  '"', "'", '`', '*', '-', '+', '~', '<', '>', '@', '(', ')', ':', '^', '\\', '%', '_', ';', '--', '/*', '&', '|', '!',
  'OR', 'AND', 'NOT', 'NEAR(', 'NEAR/2', ' or ', '::', "'':*", '{title}', 'title:', ' ', '\t', '\u00a0', 'é', 'É', 'ß',
  'İ', 'ǂ', 'ж', '中文', 'ا', '🙂', 'e\u0301', '1', '42', 'the', 'pan',
]; // prettier-ignore

/** A client's term: pieces of syntax and text, and any other character but NUL. */
export const termTextArb: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...PIECES) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }) },
    ),
    { maxLength: 24 },
  )
  .map((pieces) => pieces.join('').replaceAll('\u0000', ''));
