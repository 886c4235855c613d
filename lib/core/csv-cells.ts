/** CSV cells: values as text a spreadsheet shows and never runs. */
import type { AttributeSource } from '../types.js';
import { kindOf, type ValueKind } from './attribute-kinds.js';
import { stringifyJson } from './depth.js';

/**
 * Text a spreadsheet would run as a formula: `=`, `+`, `-`, `@` (or their full-width forms
 * `＝ ＋ － ＠`) first, possibly after whitespace, or a tab or carriage return first.
 */
const FORMULA_START = /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/u;

/** Numeric text as databases and getters give it (`-5.00`, `1e+21`): a value, not a formula. */
const NUMERIC_TEXT = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A date or date-only value as ISO 8601 text, years beyond 9999 or before 0 included. */
const ISO_TEXT = /^[+-]?\d{4,6}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * A value as CSV cell text: null and undefined empty, dates ISO 8601, numbers and booleans as they
 * are, objects JSON, and text that a spreadsheet would run as a formula prefixed with `'`. The
 * attribute's kind, when known, tells a numeric or date value that arrives as text (a DECIMAL on
 * PostgreSQL is `'-5.00'`) from text: such a value is written as it is, never guarded.
 * @example csvCell('=HYPERLINK("x")') // "'=HYPERLINK(\"x\")"
 * @example csvCell('-5.00', 'number') // '-5.00'
 * @example csvCell(new Date(0)) // '1970-01-01T00:00:00.000Z'
 */
export function csvCell(value: unknown, kind?: ValueKind): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object') return neutralize(stringifyJson(value));
  // What is left is text (a function or a symbol never comes from a row).
  const text = typeof value === 'string' ? value : typeof value === 'symbol' ? value.toString() : '';
  return isValueText(text, kind) ? text : neutralize(text);
}

/**
 * A number as `String` writes it, without V8's number-to-string cache: `JSON.stringify` writes a
 * finite number's digits straight into its output. The cache keeps each converted number and its
 * text alive through the young generation's collections, so an export of a million numeric cells
 * left tens of MB of them in the old space until the next full collection.
 */
function numberText(value: number): string {
  return Number.isFinite(value) ? JSON.stringify(value) : String(value);
}

function isValueText(text: string, kind: ValueKind | undefined): boolean {
  if (kind === 'integer' || kind === 'number') return NUMERIC_TEXT.test(text);
  if (kind === 'date' || kind === 'dateonly') return ISO_TEXT.test(text);
  return false;
}

function neutralize(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A model as far as CSV columns need it: its attributes and the models its associations reach. */
export interface AssociatedSource extends AttributeSource {
  readonly associations: { readonly [name: string]: { readonly target: AssociatedSource } | undefined };
}

/**
 * One CSV column: the dot path of its value, its header, and the kind of the attribute it reaches (undefined: not an
 * attribute).
 */
export interface CsvColumn {
  readonly path: string;
  /** The path's keys, split once. */
  readonly keys: readonly string[];
  readonly header: string;
  readonly kind: ValueKind | undefined;
}

/**
 * The export's columns as a plan, derived once per request: each dot path with its header and the
 * kind of the attribute it names, through associations (`category.name` → the category's `name`).
 * @example csvColumns(Product, { price: 'Price', 'category.name': 'Category' })
 *   // [{ path: 'price', keys: ['price'], header: 'Price', kind: 'number' }, { path: 'category.name', keys:
 *   // ['category', 'name'], header: 'Category', kind: 'string' }]
 */
export function csvColumns(model: AssociatedSource, headers: Readonly<Record<string, string>>): CsvColumn[] {
  return Object.entries(headers).map(([path, header]) => ({
    path,
    keys: path.split('.'),
    header,
    kind: kindAt(model, path),
  }));
}

function kindAt(model: AssociatedSource, path: string): ValueKind | undefined {
  const [head, ...rest] = path.split('.');
  if (rest.length > 0) {
    const target = Object.hasOwn(model.associations, head!) ? model.associations[head!]?.target : undefined;
    return target && kindAt(target, rest.join('.'));
  }
  const attributes = model.getAttributes();
  return Object.hasOwn(attributes, head!) ? kindOf(attributes[head!]!) : undefined;
}

/**
 * A serialized record (as the JSON actions show it) as one CSV line's cells, column by column.
 * @example csvRow(csvColumns(Product, { price: 'Price' }), { price: '-5.00' }) // ['-5.00']
 */
export function csvRow(columns: readonly CsvColumn[], record: Readonly<Record<string, unknown>>): string[] {
  return columns.map((column) => csvCell(valueAtKeys(record, column.keys), column.kind));
}

/**
 * The value at a dot path of a nested row (`category.name`), or undefined.
 * @example valueAt({ category: { name: 'Books' } }, 'category.name') // 'Books'
 */
export function valueAt(row: unknown, path: string): unknown {
  return valueAtKeys(row, path.split('.'));
}

function valueAtKeys(row: unknown, keys: readonly string[]): unknown {
  let value = row;
  for (const key of keys)
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/**
 * The associations and their attributes a set of dot paths needs, as a tree: `{ category: { name: {} } }`.
 * @example includeTree(['name', 'category.name']) // { category: { name: {} } }
 */
export function includeTree(paths: readonly string[]): Record<string, Record<string, unknown>> {
  const tree: Record<string, Record<string, unknown>> = {};
  for (const path of paths.filter((p) => p.includes('.'))) {
    const keys = path.split('.');
    let node: Record<string, unknown> = tree;
    for (const key of keys) node = (node[key] ??= {}) as Record<string, unknown>;
  }
  return tree;
}
