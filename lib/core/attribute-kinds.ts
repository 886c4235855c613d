/** What kind of value an attribute holds, and the checks that keep client values within it. */
import * as E from 'fp-ts/lib/Either.js';
import type { AttributeDefinition } from '../types.js';
import { calendarProblem, instantProblem } from './date-bounds.js';
import { isUuid } from './route-path.js';

/** The kinds of value the planners tell apart. */
export type ValueKind =
  'integer' | 'number' | 'boolean' | 'date' | 'dateonly' | 'uuid' | 'string' | 'enum' | 'json' | 'other';

const KINDS: Readonly<Record<string, ValueKind>> = {
  INTEGER: 'integer',
  BIGINT: 'integer',
  SMALLINT: 'integer',
  TINYINT: 'integer',
  MEDIUMINT: 'integer',
  DECIMAL: 'number',
  FLOAT: 'number',
  DOUBLE: 'number',
  'DOUBLE PRECISION': 'number',
  REAL: 'number',
  NUMBER: 'number',
  BOOLEAN: 'boolean',
  DATE: 'date',
  DATEONLY: 'dateonly',
  UUID: 'uuid',
  STRING: 'string',
  TEXT: 'string',
  CHAR: 'string',
  CITEXT: 'string',
  ENUM: 'enum',
  JSON: 'json',
  JSONB: 'json',
};

interface TypeShape {
  readonly key?: string;
  readonly values?: readonly string[];
  readonly options?: { readonly length?: number; readonly values?: readonly string[] };
  readonly _length?: number;
}

/**
 * The kind of an attribute, from its Sequelize type's key.
 * @example kindOf({ type: DataTypes.DECIMAL(10, 2) }) // 'number'
 */
export function kindOf(definition: AttributeDefinition): ValueKind {
  return KINDS[(definition.type as TypeShape | undefined)?.key ?? ''] ?? 'other';
}

/** True for the kinds a case-insensitive "contains" applies to. */
export function isTextKind(kind: ValueKind): boolean {
  return kind === 'string';
}

const INTEGER = /^-?\d{1,15}$/;
const NUMBER = /^-?\d{1,20}(\.\d{1,20})?$/;
const DATEONLY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A query-string value as the attribute's kind, or why it cannot be one. A date must be a real
 * calendar value (`2024-02-30` is refused, not read as 1 March) in the years 1000 to 9999.
 * @example coerceQueryValue({ type: DataTypes.INTEGER }, '42') // right(42)
 * @example coerceQueryValue({ type: DataTypes.INTEGER }, '4x') // left('must be an integer')
 */
export function coerceQueryValue(definition: AttributeDefinition, raw: string): E.Either<string, unknown> {
  if (raw.includes('\u0000')) return E.left('must not contain NUL characters');
  const kind = kindOf(definition);
  switch (kind) {
    case 'integer':
      return INTEGER.test(raw) ? E.right(Number(raw)) : E.left('must be an integer');
    case 'number':
      return NUMBER.test(raw) ? E.right(Number(raw)) : E.left('must be a number');
    case 'boolean':
      return raw === 'true' || raw === '1'
        ? E.right(true)
        : raw === 'false' || raw === '0'
          ? E.right(false)
          : E.left('must be true or false');
    case 'date':
      return ISO_DATE.test(raw)
        ? checkInstant(calendarProblem(raw), new Date(raw))
        : E.left('must be an ISO 8601 date');
    case 'dateonly': {
      if (!DATEONLY.test(raw)) return E.left('must be a date (YYYY-MM-DD)');
      const problem = calendarProblem(raw);
      return problem === undefined ? E.right(raw) : E.left(problem);
    }
    case 'uuid':
      return isUuid(raw) ? E.right(raw.toLowerCase()) : E.left('must be a UUID');
    case 'enum':
      return enumValues(definition).includes(raw)
        ? E.right(raw)
        : E.left(`must be one of ${enumValues(definition).join(', ')}`);
    case 'string':
      return fitsLength(definition, raw) ? E.right(raw) : E.left(`must be at most ${maxLength(definition)} characters`);
    case 'json':
    case 'other':
      return E.right(raw);
  }
}

/**
 * A body value checked against the attribute's kind; null passes (not-null is the model's check).
 * Numbers may come as numeric strings, dates as ISO strings, epoch milliseconds or a valid `Date`
 * (what a validation schema's transform may give), always a real calendar value in the years 1000 to 9999.
 * @example checkBodyValue({ type: DataTypes.STRING(3) }, 'abcd') // left('must be at most 3 characters')
 */
export function checkBodyValue(definition: AttributeDefinition, value: unknown): E.Either<string, unknown> {
  if (value === null) return E.right(null);
  const kind = kindOf(definition);
  if (kind === 'json' || kind === 'other') return E.right(value);
  if (kind === 'boolean') return typeof value === 'boolean' ? E.right(value) : E.left('must be true or false');
  if (kind === 'integer' || kind === 'number') {
    if (typeof value === 'number')
      return Number.isFinite(value) && (kind === 'number' || Number.isSafeInteger(value))
        ? E.right(value)
        : E.left(`must be ${kind === 'integer' ? 'an integer' : 'a number'}`);
    return typeof value === 'string'
      ? coerceQueryValue(definition, value)
      : E.left(`must be ${kind === 'integer' ? 'an integer' : 'a number'}`);
  }
  if (kind === 'date' && typeof value === 'number') return checkInstant(undefined, new Date(value));
  if (kind === 'date' && value instanceof Date) return checkInstant(undefined, value);
  return typeof value === 'string'
    ? coerceQueryValue(definition, value)
    : E.left(`must be a ${kind === 'uuid' ? 'UUID' : 'string'}`);
}

/**
 * A form body's value checked against the attribute's kind: as `checkBodyValue`, but a boolean may
 * also come as the text `true`, `false`, `1` or `0`, as in a query string (a form has no other way to send one).
 * @example checkFormValue({ type: DataTypes.BOOLEAN }, 'false') // right(false)
 */
export function checkFormValue(definition: AttributeDefinition, value: unknown): E.Either<string, unknown> {
  return kindOf(definition) === 'boolean' && typeof value === 'string'
    ? coerceQueryValue(definition, value)
    : checkBodyValue(definition, value);
}

/**
 * The error code for a body value that `checkBodyValue` refused: `invalidValue` for a value shaped
 * like a date (an ISO string, epoch milliseconds, a `Date`) that is no real date in the storable
 * years (`2024-02-30`, year 10000), `type` for every other refusal.
 * @example refusalCode({ type: DataTypes.DATEONLY }, '2024-02-30') // 'invalidValue'
 * @example refusalCode({ type: DataTypes.DATEONLY }, 'soon') // 'type'
 */
export function refusalCode(definition: AttributeDefinition, value: unknown): 'type' | 'invalidValue' {
  const kind = kindOf(definition);
  if (kind === 'dateonly') return typeof value === 'string' && DATEONLY.test(value) ? 'invalidValue' : 'type';
  if (kind !== 'date') return 'type';
  const shaped =
    (typeof value === 'string' && ISO_DATE.test(value)) ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (value instanceof Date && !Number.isNaN(value.getTime()));
  return shaped ? 'invalidValue' : 'type';
}

/** A date that names a real calendar value (no problem with its text) in the storable years, or why not. */
function checkInstant(problem: string | undefined, date: Date): E.Either<string, Date> {
  const wrong = problem ?? instantProblem(date);
  return wrong === undefined ? E.right(date) : E.left(wrong);
}

/**
 * The values an ENUM attribute takes (its type's, or its options'); none for another type.
 * @example enumValues({ type: DataTypes.ENUM('a', 'b') }) // ['a', 'b']
 */
export function enumValues(definition: AttributeDefinition): readonly string[] {
  const type = definition.type as TypeShape | undefined;
  return type?.values ?? type?.options?.values ?? [];
}

/**
 * The most characters a STRING or CHAR attribute holds (Sequelize's default 255); undefined for another type.
 * @example maxLength({ type: DataTypes.STRING(60) }) // 60
 */
export function maxLength(definition: AttributeDefinition): number | undefined {
  const type = definition.type as TypeShape | undefined;
  return type?.key === 'STRING' || type?.key === 'CHAR' ? (type._length ?? type.options?.length ?? 255) : undefined;
}

function fitsLength(definition: AttributeDefinition, raw: string): boolean {
  const max = maxLength(definition);
  return max === undefined || [...raw].length <= max;
}
