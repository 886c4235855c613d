/** buildOptionsQuery: the spec's options action as a pure plan of Sequelize find options. */
import * as E from 'fp-ts/lib/Either.js';
import type { FindOptions } from 'sequelize';
import type { AttributeSource, FastCrudConfig, OptionsError } from '../types.js';
import { findColumn, isPlainIdentifier, type ResolvedColumn } from './columns.js';
import { DEFAULT_CONFIG } from './config.js';

/** One option for a select box. */
export interface OptionItem {
  readonly label: unknown;
  readonly value: unknown;
}

/**
 * Plans the options query (spec options rules 1–5): `value` and `label` selected under those
 * aliases, ordered by label ascending, soft-deleted rows left out, raw rows asked for.
 * Left `required` when label is absent; Left `columnNotFound` when label is not a model attribute
 * (by name or column), or when either name is not a plain identifier. `value` defaults to
 * `config.options.default_value` and is not checked against the model (rule 3): the caller
 * checks that the table has it. With `visible` (a field policy's), a model attribute outside it is
 * `columnNotFound` too, as label or as value. With `options.value_columns` a list, a value it does
 * not name (as attribute or column) is `columnNotFound`, the default value included.
 * @example buildOptionsQuery(Category, 'name', undefined)
 *   // right({ attributes: [['id', 'value'], ['name', 'label']], order: [['name', 'ASC']], where: { deletedAt: null },
 *   // raw: true })
 */
export function buildOptionsQuery(
  model: AttributeSource,
  label: string | undefined,
  value: string | undefined,
  config: Pick<FastCrudConfig, 'options' | 'soft_delete'> = DEFAULT_CONFIG,
  visible?: ReadonlySet<string>,
): E.Either<OptionsError, FindOptions> {
  if (label === undefined || label === '') return E.left({ _tag: 'required', field: 'label' });
  const hidden = (column: ResolvedColumn | undefined) =>
    column !== undefined && visible !== undefined && !visible.has(column.attribute);
  const labelColumn = isPlainIdentifier(label) ? findColumn(model, label) : undefined;
  if (labelColumn === undefined || hidden(labelColumn)) return E.left({ _tag: 'columnNotFound', field: label });
  const valueName = valueNameOf(value, config);
  const declaredValue = isPlainIdentifier(valueName) ? findColumn(model, valueName) : undefined;
  if (
    !isPlainIdentifier(valueName) ||
    hidden(declaredValue) ||
    !listed(valueName, declaredValue, config.options.value_columns)
  ) {
    return E.left({ _tag: 'columnNotFound', field: valueName });
  }
  const valueColumn = declaredValue?.column ?? valueName;
  const deletedAt = findColumn(model, config.soft_delete.deleted_at_field);
  return E.right({
    attributes: [
      [valueColumn, 'value'],
      [labelColumn.column, 'label'],
    ],
    ...(deletedAt && { where: { [deletedAt.attribute]: null } }),
    order: [[labelColumn.column, 'ASC']],
    raw: true,
  });
}

/**
 * The value column when the model does not declare it: the caller must find it in the table
 * before running the plan (spec rule 3 leaves it unchecked against the model). Undefined otherwise.
 * @example undeclaredValueColumn(Category, 'legacy_code') // 'legacy_code'
 */
export function undeclaredValueColumn(
  model: AttributeSource,
  value: string | undefined,
  config: Pick<FastCrudConfig, 'options'> = DEFAULT_CONFIG,
): string | undefined {
  const name = valueNameOf(value, config);
  return findColumn(model, name) ? undefined : name;
}

/**
 * True when `value_columns` is null (any column) or names the value, by the client's name, its attribute or its column.
 */
function listed(
  name: string,
  column: ResolvedColumn | undefined,
  allowed: readonly string[] | null | undefined,
): boolean {
  if (allowed == null) return true;
  return (
    allowed.includes(name) ||
    (column !== undefined && (allowed.includes(column.attribute) || allowed.includes(column.column)))
  );
}

function valueNameOf(value: string | undefined, config: Pick<FastCrudConfig, 'options'>): string {
  return value === undefined || value === '' ? config.options.default_value : value;
}

/**
 * Shapes raw rows as option items with exactly the keys `label` and `value` (spec rule 7).
 * @example formatOptions([{ value: 1, label: 'Books', extra: 0 }]) // [{ label: 'Books', value: 1 }]
 */
export function formatOptions(rows: readonly Readonly<Record<string, unknown>>[]): OptionItem[] {
  return rows.map((row) => ({ label: row['label'], value: row['value'] }));
}

/**
 * The options query with its select list in the reply's key order, `label` before `value`, when
 * it selects exactly the `[column, 'value']` and `[column, 'label']` pairs (as planned, or as a
 * hook left them): each raw row then is an option item as it is (`optionItems`), with no copy. Any
 * other query is returned as it is. The rows, their order and the SQL's conditions are the same.
 * @example inReplyOrder({ attributes: [['id', 'value'], ['name', 'label']], raw: true })
 *   // { attributes: [['name', 'label'], ['id', 'value']], raw: true }
 */
export function inReplyOrder(query: FindOptions): FindOptions {
  const { attributes } = query;
  if (!Array.isArray(attributes) || attributes.length !== 2) return query;
  const [first, second] = attributes as unknown[];
  const aliased = (item: unknown, alias: string) =>
    Array.isArray(item) && item.length === 2 && typeof item[0] === 'string' && item[1] === alias;
  return aliased(first, 'value') && aliased(second, 'label')
    ? { ...query, attributes: [second, first] as FindOptions['attributes'] }
    : query;
}

/**
 * The rows as option items (spec rule 7): the rows themselves, not copies, when every one has
 * exactly the enumerable keys `label` then `value` (a select in reply order, `inReplyOrder`),
 * else `formatOptions`' copies. Either way the JSON is the same.
 * @example optionItems([{ label: 'Books', value: 1 }]) // the same array
 */
export function optionItems(rows: Record<string, unknown>[]): OptionItem[] {
  return rows.every(isOptionItem) ? (rows as unknown as OptionItem[]) : formatOptions(rows);
}

const ITEM_KEYS: readonly string[] = ['label', 'value'];

/** True when a row's enumerable keys are exactly `label` then `value`. */
function isOptionItem(row: Readonly<Record<string, unknown>>): boolean {
  let count = 0;
  for (const key in row) if (key !== ITEM_KEYS[count++]) return false;
  return count === ITEM_KEYS.length;
}
