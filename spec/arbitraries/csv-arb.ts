/** Arbitrary CSV cell values: text rich in formula triggers and CSV syntax, and numbers as databases return them. */
import fc from 'fast-check';

/** Characters that matter to a spreadsheet or to CSV quoting, beside plain ones. */
const UNITS = [
  'a',
  'Z',
  '1',
  '.',
  ' ',
  '\u00a0',
  '\u3000',
  '\t',
  '\r',
  '\n',
  ',',
  '"',
  "'",
  '=',
  '+',
  '-',
  '@',
  '\uFF1D',
  '\uFF0B',
  '\uFF0D',
  '\uFF20',
  'é',
  '日',
];

/** Text of up to 12 characters, most of them triggers, whitespace or CSV syntax; never a NUL. */
export const cellTextArb = fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 12 });

/** A DECIMAL(10, 2) value in cents, negative ones included. */
export const centsArb = fc.integer({ min: -99_999_999, max: 99_999_999 });

/** A DECIMAL(10, 2) value as PostgreSQL and MariaDB return it: `'-5.00'`. */
export const decimalTextArb = centsArb.map((cents) => (cents / 100).toFixed(2));

/** A date within what every dialect stores, to the second (MariaDB's DATETIME keeps no milliseconds). */
export const storedDateArb = fc
  .integer({ min: Date.UTC(1971, 0, 1) / 1000, max: Date.UTC(2099, 11, 31) / 1000 })
  .map((seconds) => new Date(seconds * 1000));
