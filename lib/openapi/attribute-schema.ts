/** JSON Schema (OpenAPI 3.1) for model attributes: types, nullability and the validators that map onto keywords. */
import { kindOf } from '../core/attribute-kinds.js';
import type { AttributeDefinition, AttributeSource } from '../types.js';

/** A JSON Schema object, as OpenAPI 3.1 takes it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

const BY_KIND: Readonly<Record<string, JsonSchema>> = {
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
 * The dialects whose drivers return BIGINT or DECIMAL values as text in replies: PostgreSQL both
 * (on every read; a write's reply echoes the number written), MariaDB and MySQL a BIGINT beyond
 * 2^53. SQLite returns numbers (a BIGINT beyond 2^53 loses precision there).
 * @example TEXT_NUMBERS.postgres // { BIGINT: true, DECIMAL: true }
 */
export const TEXT_NUMBERS: Readonly<Record<string, Readonly<Record<'BIGINT' | 'DECIMAL', boolean>>>> = Object.freeze({
  postgres: { BIGINT: true, DECIMAL: true },
  mariadb: { BIGINT: true, DECIMAL: false },
  mysql: { BIGINT: true, DECIMAL: false },
});

const AS_TEXT: Readonly<Record<'BIGINT' | 'DECIMAL', JsonSchema>> = {
  BIGINT: { type: ['integer', 'string'], pattern: '^-?[0-9]+$', format: 'int64' },
  DECIMAL: { type: ['number', 'string'], pattern: '^-?[0-9]+(\\.[0-9]+)?$' },
};

/**
 * The schema of one attribute: its kind's type, `null` when it allows null (in an enum's list too),
 * and the keywords of the validators JSON Schema has (len, min, max, isEmail, isUrl, isIn, notEmpty,
 * the type's length and enum values). With the `dialect` of a reply, a BIGINT or DECIMAL its driver
 * may return as text (TEXT_NUMBERS) is an integer or number, or a string of digits.
 * @example attributeSchema({ type: DataTypes.STRING(60), allowNull: false, validate: { len: [1, 60] } })
 *   // { type: 'string', maxLength: 60, minLength: 1 }
 * @example attributeSchema({ type: DataTypes.BIGINT, allowNull: false }, 'postgres')
 *   // { type: ['integer', 'string'], pattern: '^-?[0-9]+$', format: 'int64' }
 */
export function attributeSchema(definition: AttributeDefinition, dialect?: string): JsonSchema {
  const base = BY_KIND[kindOf(definition)]!;
  const type = definition.type as { key?: string; values?: readonly string[]; _length?: number; options?: { length?: number } } | undefined;
  const key = type?.key === 'BIGINT' || type?.key === 'DECIMAL' ? type.key : undefined;
  const schema: Record<string, unknown> = { ...base, ...(key !== undefined && dialect !== undefined && TEXT_NUMBERS[dialect]?.[key] && AS_TEXT[key]) };
  if (type?.key === 'STRING' || type?.key === 'CHAR') schema['maxLength'] = type._length ?? type.options?.length ?? 255;
  if (type?.values) schema['enum'] = [...type.values];
  Object.assign(schema, validatorKeywords(definition.validate ?? {}));
  if (definition.allowNull !== false) {
    if (typeof schema['type'] === 'string') schema['type'] = [schema['type'], 'null'];
    else if (Array.isArray(schema['type'])) schema['type'] = [...(schema['type'] as string[]), 'null'];
    if (Array.isArray(schema['enum'])) schema['enum'] = [...(schema['enum'] as unknown[]), null];
  }
  return schema;
}

function validatorKeywords(validate: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const keywords: Record<string, unknown> = {};
  const arg = (value: unknown) => (typeof value === 'object' && value !== null && 'args' in value ? (value as { args: unknown }).args : value);
  const len = arg(validate['len']);
  if (Array.isArray(len)) Object.assign(keywords, { minLength: len[0], ...(len[1] !== undefined && { maxLength: len[1] }) });
  if (validate['notEmpty']) keywords['minLength'] = Math.max(1, Number(keywords['minLength'] ?? 1));
  if (typeof arg(validate['min']) === 'number') keywords['minimum'] = arg(validate['min']);
  if (typeof arg(validate['max']) === 'number') keywords['maximum'] = arg(validate['max']);
  if (validate['isEmail']) keywords['format'] = 'email';
  if (validate['isUrl']) keywords['format'] = 'uri';
  const isIn = arg(validate['isIn']);
  if (Array.isArray(isIn) && Array.isArray(isIn[0])) keywords['enum'] = [...isIn[0]];
  return keywords;
}

/**
 * An object schema over the named attributes; `required` lists those given
 * (a body must carry the not-null attributes with no default). `dialect`: the values are replies
 * of that dialect (see `attributeSchema`).
 * @example objectSchema(Product, ['id', 'name'], ['name'])
 */
export function objectSchema(model: AttributeSource, names: Iterable<string>, required: readonly string[] = [], dialect?: string): JsonSchema {
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
