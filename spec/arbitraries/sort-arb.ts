/** Arbitrary sort strings, built from items whose expected clause is known by construction. */
import fc from 'fast-check';
import type { Order } from '../../lib/types.js';

const firstWord = fc.stringMatching(/^[a-z]{1,6}$/);
const laterWord = fc.stringMatching(/^[a-z]{2,6}$/);
const padding = fc.constantFrom('', ' ', '  ', '\t');

/** A column written camelCase or snake_case, with the snake_case name it must become. */
export const columnArb = fc
  .tuple(firstWord, fc.array(laterWord, { maxLength: 3 }), fc.boolean())
  .map(([first, rest, camel]) => ({
    written: camel ? first + rest.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') : [first, ...rest].join('_'),
    snake: [first, ...rest].join('_'),
  }));

/** One item of a sort string: a column with a direction and padding, or an empty item. */
export const sortItemArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(columnArb, fc.boolean(), padding, padding).map(([column, desc, left, right]) => ({
      text: `${left}${desc ? '-' : ''}${column.written}${right}`,
      expected: [[column.snake, desc ? 'DESC' : 'ASC']] as Order[],
    })),
  },
  { weight: 1, arbitrary: padding.map((text) => ({ text, expected: [] as Order[] })) },
);

/** A sort string with the clauses it must parse to. */
export const sortStringArb = fc.array(sortItemArb, { maxLength: 8 }).map((items) => ({
  sort: items.map((i) => i.text).join(','),
  expected: items.flatMap((i) => i.expected),
}));
