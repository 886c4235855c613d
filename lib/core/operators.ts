/**
 * OPERATORS: the one table of filter operators, with what each takes; the parser, the docs and the client data
 * providers read it.
 */
import type { Operator } from '../types.js';

/**
 * Every filter operator, with whether it takes one value, a list, two values, or none.
 * @example OPERATORS.btw // 'two'
 */
export const OPERATORS: Readonly<Record<Operator, 'one' | 'list' | 'two' | 'none'>> = Object.freeze({
  eq: 'one',
  neq: 'one',
  like: 'one',
  gt: 'one',
  gte: 'one',
  lt: 'one',
  lte: 'one',
  gtn: 'one',
  ltn: 'one',
  json: 'one',
  in: 'list',
  nin: 'list',
  btw: 'two',
  nn: 'none',
  null: 'none',
});
