/** JSON Schema (OpenAPI 3.1) for model attributes: types, nullability and the validators that map onto keywords. */
import { enumValues, kindOf, maxLength } from '../core/attribute-kinds.js';
import type { AttributeDefinition, AttributeSource } from '../types.js';

/** A JSON Schema object, as OpenAPI 3.1 takes it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** The schema of a value of each kind, before its type's own keywords. */
export const BY_KIND: Readonly<Record<string, JsonSchema>> = {
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date-time' },
  dateonly: { type: 'string', format: 'date' },
  uuid: { type: 'string', format: 'uuid' },
  string: { type: 'string' },
  enum: { type: 'string' },
  json: {},
  other: {},
};

/**
 * How a dialect's driver returns BIGINT and DECIMAL values, on every reply (a write's reply is
 * read back, so it holds what a read does): `text` always as a string (PostgreSQL both, MySQL's
 * DECIMAL), `big` as a number, or as a string beyond 2^53 (MariaDB; its DECIMAL only when the
 * type has more than 15 integer digits), and a number where a dialect is absent (SQLite, which
 * loses precision beyond 2^53 instead).
 * @example TEXT_NUMBERS.postgres // { BIGINT: 'text', DECIMAL: 'text' }
 */
export const TEXT_NUMBERS: Readonly<Record<string, Readonly<Record<'BIGINT' | 'DECIMAL', 'text' | 'big'>>>> =
  Object.freeze({
    postgres: { BIGINT: 'text', DECIMAL: 'text' },
    mariadb: { BIGINT: 'big', DECIMAL: 'big' },
    mysql: { BIGINT: 'big', DECIMAL: 'text' },
  });

const DIGITS: Readonly<Record<'BIGINT' | 'DECIMAL', JsonSchema>> = {
  BIGINT: { pattern: '^-?[0-9]+$', format: 'int64' },
  DECIMAL: { pattern: '^-?[0-9]+(\\.[0-9]+)?$' },
};

/** The reply schema of a BIGINT or DECIMAL on a dialect, or undefined when it is a plain number there. */
function numberAsText(
  key: 'BIGINT' | 'DECIMAL',
  type: { _precision?: number; _scale?: number },
  dialect: string | undefined,
): JsonSchema | undefined {
  const returns = dialect === undefined ? undefined : TEXT_NUMBERS[dialect]?.[key];
  if (returns === undefined) return undefined;
  // A DECIMAL(p, s) holds p - s integer digits (DECIMAL(10, 0) when p is absent): 15 or fewer never reach 2^53.
  if (returns === 'big' && key === 'DECIMAL' && (type._precision ?? 10) - (type._scale ?? 0) <= 15) return undefined;
  const base = key === 'BIGINT' ? 'integer' : 'number';
  return { type: returns === 'text' ? 'string' : [base, 'string'], ...DIGITS[key] };
}

/**
 * The schema of one attribute: its kind's type, `null` when it allows null and is no primary key (in an enum's list
 * too),
 * and the keywords of the validators JSON Schema has (len, min, max, isEmail, isUrl, isIn, notEmpty,
 * the type's length and enum values). With the `dialect` of a reply, a BIGINT or DECIMAL is what
 * its driver returns (TEXT_NUMBERS): a string of digits, an integer or number, or either.
 * @example attributeSchema({ type: DataTypes.STRING(60), allowNull: false, validate: { len: [1, 60] } })
 *   // { type: 'string', maxLength: 60, minLength: 1 }
 * @example attributeSchema({ type: DataTypes.DECIMAL(10, 2), allowNull: false }, 'postgres')
 *   // { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' }
 */
export function attributeSchema(definition: AttributeDefinition, dialect?: string): JsonSchema {
  const base = BY_KIND[kindOf(definition)]!;
  const type = definition.type as { key?: string; _precision?: number; _scale?: number } | undefined;
  const key = type?.key === 'BIGINT' || type?.key === 'DECIMAL' ? type.key : undefined;
  const schema: Record<string, unknown> = { ...base, ...(key !== undefined && numberAsText(key, type!, dialect)) };
  const length = maxLength(definition);
  if (length !== undefined) schema['maxLength'] = length;
  const values = enumValues(definition);
  if (values.length > 0) schema['enum'] = [...values];
  Object.assign(schema, validatorKeywords(definition.validate ?? {}));
  // A primary key is never null, whatever allowNull says.
  if (definition.allowNull !== false && !definition.primaryKey) {
    if (typeof schema['type'] === 'string') schema['type'] = [schema['type'], 'null'];
    else if (Array.isArray(schema['type'])) schema['type'] = [...(schema['type'] as string[]), 'null'];
    if (Array.isArray(schema['enum'])) schema['enum'] = [...(schema['enum'] as unknown[]), null];
  }
  return schema;
}

function validatorKeywords(validate: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const keywords: Record<string, unknown> = {};
  const arg = (value: unknown): unknown =>
    typeof value === 'object' && value !== null && 'args' in value ? value.args : value;
  const len = arg(validate['len']);
  if (Array.isArray(len)) {
    const [min, max] = len as readonly unknown[];
    Object.assign(keywords, { minLength: min, ...(max !== undefined && { maxLength: max }) });
  }
  if (validate['notEmpty']) keywords['minLength'] = Math.max(1, Number(keywords['minLength'] ?? 1));
  if (typeof arg(validate['min']) === 'number') keywords['minimum'] = arg(validate['min']);
  if (typeof arg(validate['max']) === 'number') keywords['maximum'] = arg(validate['max']);
  if (validate['isEmail']) keywords['format'] = 'email';
  if (validate['isUrl']) keywords['format'] = 'uri';
  const isIn = arg(validate['isIn']);
  const listed = Array.isArray(isIn) ? (isIn as readonly unknown[])[0] : undefined;
  if (Array.isArray(listed)) keywords['enum'] = [...(listed as readonly unknown[])];
  return keywords;
}

/**
 * An object schema over the named attributes; `required` lists those given
 * (a body must carry the not-null attributes with no default). `dialect`: the values are replies
 * of that dialect (see `attributeSchema`).
 * @example objectSchema(Product, ['id', 'name'], ['name'])
 */
export function objectSchema(
  model: AttributeSource,
  names: Iterable<string>,
  required: readonly string[] = [],
  dialect?: string,
): JsonSchema {
  const attributes = model.getAttributes();
  const properties = Object.fromEntries([...names].map((name) => [name, attributeSchema(attributes[name]!, dialect)]));
  return { type: 'object', properties, ...(required.length > 0 && { required: [...required] }) };
}

/**
 * The attributes a create body must carry: fillable, not null, no default, not auto-incremented.
 * @example requiredOnCreate(Product, policy.fillable) // ['sku', 'name', 'price']
 */
export function requiredOnCreate(model: AttributeSource, fillable: ReadonlySet<string>): string[] {
  const attributes = model.getAttributes();
  return [...fillable].filter((name) => {
    const definition = attributes[name]!;
    return definition.allowNull === false && definition.defaultValue === undefined && !definition.autoIncrement;
  });
}
