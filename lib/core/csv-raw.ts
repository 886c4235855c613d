/**
 * CSV cells straight from a driver's raw row: each value converted as Sequelize converts it into a model instance, then
 * written as `csvCell` writes it.
 */
import type { AttributeDefinition } from '../types.js';
import { kindOf } from './attribute-kinds.js';
import { csvCell } from './csv-cells.js';

/** Floating-point types SQLite's parser reads `'NaN'` and `'Infinity'` text back from. */
const SQLITE_FLOATS = new Set(['FLOAT', 'REAL', 'DOUBLE', 'DOUBLE PRECISION']);

/**
 * A reader from an attribute's raw driver value to its CSV cell, the same text the instance path
 * writes for the same value (csvCell of the instance's JSON value). Booleans are read as
 * Sequelize's BOOLEAN sanitizer reads them (1 and 0, `'true'` and `'false'`); on SQLite, whose
 * driver returns stored text, dates are parsed as Sequelize parses them (the connection's time
 * zone when the text has no `+` offset), JSON text is parsed, float text `'NaN'`/`'Infinity'` is
 * read as Sequelize's float parser reads it, and a TINYINT column as a boolean (Sequelize's SQLite
 * parser is keyed by the column type, which BOOLEAN shares). PostgreSQL and MariaDB parse in the driver.
 * @example rawCellReader({ type: DataTypes.BOOLEAN }, 'sqlite', '+00:00')(1) // 'true'
 * @example rawCellReader({ type: DataTypes.DATE }, 'sqlite', '+00:00')('2024-01-01 00:00:00.000 +00:00')
 *   // '2024-01-01T00:00:00.000Z'
 */
export function rawCellReader(
  definition: AttributeDefinition,
  dialect: string,
  timezone: string,
): (value: unknown) => string {
  const kind = kindOf(definition);
  const key = (definition.type as { key?: string } | undefined)?.key ?? '';
  const sqlite = dialect === 'sqlite';
  if (kind === 'boolean' || (sqlite && key === 'TINYINT')) return (value) => csvCell(sanitizeBoolean(value), kind);
  if (sqlite && kind === 'date')
    return (value) => csvCell(typeof value === 'string' ? parseSqliteDate(value, timezone) : value, kind);
  if (sqlite && kind === 'json') return (value) => csvCell(typeof value === 'string' ? JSON.parse(value) : value, kind);
  if (sqlite && SQLITE_FLOATS.has(key))
    return (value) => csvCell(typeof value === 'string' ? parseSqliteFloat(value) : value, kind);
  return (value) => csvCell(value, kind);
}

/**
 * Sequelize's BOOLEAN sanitizer: a one-byte buffer as its byte, then 1/0 and 'true'/'false' as booleans, anything else
 * as it is.
 */
function sanitizeBoolean(raw: unknown): unknown {
  const value = Buffer.isBuffer(raw) && raw.length === 1 ? raw[0] : raw;
  if (typeof value === 'string') return value === 'true' ? true : value === 'false' ? false : value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : value;
  return value;
}

/** Sequelize's SQLite DATE parser: text without a `+` gets the connection's time zone appended. */
function parseSqliteDate(text: string, timezone: string): Date {
  return new Date(text.includes('+') ? text : text + timezone);
}

/** Sequelize's SQLite float parser, which reads only these three texts (and any other text as undefined). */
function parseSqliteFloat(text: string): number | undefined {
  return text === 'NaN' ? NaN : text === 'Infinity' ? Infinity : text === '-Infinity' ? -Infinity : undefined;
}
