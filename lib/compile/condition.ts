/** Compiles one checked condition on a model's own attribute into a Sequelize where clause, per dialect. */
import { Op, Sequelize, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { isDateSpan } from '../core/date-bounds.js';
import type { Condition } from '../types.js';

/** The operators that compare the column with one value. */
const COMPARISONS = { eq: Op.eq, neq: Op.ne, gt: Op.gt, gte: Op.gte, lt: Op.lt, lte: Op.lte } as const;

/**
 * One condition on the model's own attribute as a where clause; `alias` is the name its table has
 * in the query (the model's name, or a relation subquery's alias, whose where is keyed by column).
 * @example compileCondition(Product, { attribute: 'price', column: 'price', op: 'gte', values: [10] })
 *   // { price: { [Op.gte]: 10 } }
 */
export function compileCondition(
  model: ModelStatic<Model>,
  { attribute, column, op, values }: Condition,
  alias = model.name,
): WhereOptions {
  const [first, second] = values;
  if (values.some(isDateSpan)) return compileSpans(attribute, op, values);
  switch (op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { [attribute]: { [COMPARISONS[op]]: first } };
    case 'in':
      return { [attribute]: { [Op.in]: [...values] } };
    case 'nin':
      return { [attribute]: { [Op.notIn]: [...values] } };
    case 'btw':
      return { [attribute]: { [Op.between]: [first, second] } };
    case 'gtn':
    case 'ltn':
      return { [Op.or]: [{ [attribute]: { [op === 'gtn' ? Op.gt : Op.lt]: first } }, { [attribute]: null }] };
    case 'nn':
      return { [attribute]: { [Op.ne]: null } };
    case 'null':
      return { [attribute]: { [Op.is]: null } };
    case 'like':
      return contains(model, column, first as string, false, alias);
    case 'json':
      return jsonContains(model, column, first, alias);
  }
}

/**
 * `eq`, `neq`, `in` and `nin` on date values some of which cover a whole day, month or year:
 * inside (BETWEEN, both ends included) or outside (NOT BETWEEN, which NULL never is) of each.
 */
function compileSpans(attribute: string, op: Condition['op'], values: readonly unknown[]): WhereOptions {
  const inside = (value: unknown): WhereOptions =>
    isDateSpan(value) ? { [attribute]: { [Op.between]: [value.from, value.to] } } : { [attribute]: { [Op.eq]: value } };
  const outside = (value: unknown): WhereOptions =>
    isDateSpan(value)
      ? { [attribute]: { [Op.notBetween]: [value.from, value.to] } }
      : { [attribute]: { [Op.ne]: value } };
  return op === 'neq' || op === 'nin' ? { [Op.and]: values.map(outside) } : { [Op.or]: values.map(inside) };
}

/**
 * Case-insensitive "contains" in which `%` and `_` match themselves. `castToText` is for columns that
 * do not hold text: PostgreSQL will not match a number or uuid with a pattern, and MariaDB stores a
 * uuid as a binary (case-sensitive) string, so both compare its text; SQLite's instr needs no cast.
 * @example contains(Product, 'name', 'kit') // name ILIKE '%kit%' on PostgreSQL
 */
export function contains(
  model: ModelStatic<Model>,
  column: string,
  text: string,
  castToText = false,
  alias = model.name,
): WhereOptions {
  const dialect = model.sequelize!.getDialect();
  const col = Sequelize.col(`${alias}.${column}`);
  const qualified =
    castToText && dialect !== 'sqlite' ? Sequelize.cast(col, dialect === 'postgres' ? 'TEXT' : 'CHAR') : col;
  if (dialect === 'sqlite') {
    // SQLite has no default LIKE escape character: find the text instead, lower-cased on both sides.
    return Sequelize.where(
      Sequelize.fn('instr', Sequelize.fn('lower', qualified), Sequelize.fn('lower', text)),
      Op.gt,
      0,
    );
  }
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return Sequelize.where(qualified, dialect === 'postgres' ? Op.iLike : Op.like, pattern);
}

/** A JSON column contains the value: PostgreSQL's `@>`, MariaDB's JSON_CONTAINS, SQLite's json_each. */
function jsonContains(model: ModelStatic<Model>, column: string, value: unknown, alias = model.name): WhereOptions {
  const sequelize = model.sequelize!;
  const quoted = sequelize.getQueryInterface().quoteIdentifiers(`${alias}.${column}`);
  const json = JSON.stringify(value);
  switch (sequelize.getDialect()) {
    case 'postgres':
      return Sequelize.literal(`CAST(${quoted} AS jsonb) @> CAST(${sequelize.escape(json)} AS jsonb)`);
    case 'sqlite':
      return Sequelize.literal(sqliteJsonContains(quoted, value, (v) => sequelize.escape(v as string)));
    default:
      return Sequelize.where(Sequelize.fn('JSON_CONTAINS', Sequelize.col(`${alias}.${column}`), json), 1);
  }
}

/**
 * SQLite: a scalar is contained when the column equals it or holds it as an element; an array
 * when every element is; an object when every key holds its value. (Objects inside arrays are
 * PostgreSQL and MariaDB only.)
 */
function sqliteJsonContains(quoted: string, value: unknown, escape: (v: unknown) => string): string {
  const jsonValue = (v: unknown) => `json_extract(${escape(JSON.stringify(v))}, '$')`;
  if (Array.isArray(value))
    return value.length === 0 ? '1=1' : value.map((v) => `(${sqliteJsonContains(quoted, v, escape)})`).join(' AND ');
  if (typeof value === 'object' && value !== null) {
    const pairs = Object.entries(value).map(
      ([key, v]) => `json_extract(${quoted}, ${escape(`$.${JSON.stringify(key)}`)}) = ${jsonValue(v)}`,
    );
    return pairs.length === 0 ? '1=1' : pairs.join(' AND ');
  }
  // LIMIT 1 keeps SQLite 3.52 from rewriting the EXISTS into a join that answers a row past OFFSET again when
  // the array holds the value more than once (see existsLimit in relations.ts).
  return `EXISTS (SELECT 1 FROM json_each(${quoted}) WHERE json_each.value = ${jsonValue(value)} LIMIT 1)`;
}
