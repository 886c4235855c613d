/** buildOptionsQuery: the spec's options action as a pure plan of Sequelize find options. */
import * as E from 'fp-ts/lib/Either.js';
import type { FindOptions } from 'sequelize';
import type {
  AttributeSource,
  Condition,
  ErrorCode,
  FailItem,
  FastCrudConfig,
  OptionsError,
  TermSearch,
} from '../types.js';
import { isTextKind, kindOf } from './attribute-kinds.js';
import { findColumn, isPlainIdentifier, type ResolvedColumn } from './columns.js';
import { DEFAULT_CONFIG } from './config.js';
import { parseFilters, type FilterSettings } from './filter-parser.js';

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

/** The parameters the options action reads: `label`, `value`, and the autocomplete's `q`, `limit`, `filter`. */
export interface OptionsRequest {
  readonly label?: string | undefined;
  readonly value?: string | undefined;
  /** Text the label must contain, case-insensitively (`%` and `_` match themselves). */
  readonly q?: unknown;
  /** Most items to answer: a positive integer, lowered to `options.max_limit`. */
  readonly limit?: unknown;
  /** `filter[column][operator]=value`, as qs gives it: the search's filters, under the resource's filter policy. */
  readonly filter?: unknown;
}

/** What planning options needs besides the model and the request: the filter parser's settings and the config. */
export interface OptionsSettings extends FilterSettings {
  readonly config: Pick<FastCrudConfig, 'options' | 'soft_delete'>;
  /** The field policy's visible attributes: a label or value outside them is `columnNotFound`. */
  readonly visible?: ReadonlySet<string> | undefined;
}

/**
 * A checked options request, for the shell to compile (`compileOptions`): the spec's query, with
 * the rows it lists narrowed by the label's search text and the filters, and at most `limit` of them.
 */
export interface OptionsPlan {
  /** `buildOptionsQuery`'s find options (the spec's query), with `limit` when one applies. */
  readonly query: FindOptions;
  /** The label column and the text it must contain (`q`), or null when the request has none. */
  readonly search: TermSearch | null;
  /** `filter[...]`'s conditions and term search, as search parses them. */
  readonly conditions: readonly Condition[];
  readonly term: TermSearch | null;
  /** The LIMIT: null for a request with neither `q` nor `limit` (every row, as the spec has it). */
  readonly limit: number | null;
}

const POSITIVE = /^[1-9]\d{0,8}$/;

/**
 * Plans an options request: `buildOptionsQuery`'s query for `label` and `value` (its Left as it is),
 * then `q` (a single string without NUL, trimmed; empty: no search), `limit` (a positive integer,
 * lowered to `options.max_limit`; with `q` and no `limit`, `max_limit`) and `filter` (parsed as
 * search parses it, under the same policy). Every failure of those three is collected, naming its field.
 * @example planOptions(Category, { label: 'name', q: 'gar', limit: '20' }, settings)
 *   // right({ query: { …, limit: 20 }, search: { columns: [{ column: 'name', isText: true }], text: 'gar' },
 *   // conditions: [], term: null, limit: 20 })
 */
export function planOptions(
  model: AttributeSource,
  request: OptionsRequest,
  settings: OptionsSettings,
): E.Either<OptionsError | readonly FailItem<ErrorCode>[], OptionsPlan> {
  const planned = buildOptionsQuery(model, request.label, request.value, settings.config, settings.visible);
  if (E.isLeft(planned)) return planned;
  const failures: FailItem<ErrorCode>[] = [];
  const text = readQ(request.q, failures);
  const limit = readLimit(request.limit, request.q !== undefined, settings.config.options.max_limit, failures);
  const filters = parseFilters(model, request.filter, settings);
  failures.push(...filters.failures);
  if (failures.length > 0) return E.left(failures);
  const label = findColumn(model, request.label!)!;
  const isText = isTextKind(kindOf(model.getAttributes()[label.attribute]!));
  return E.right({
    query: limit === null ? planned.right : { ...planned.right, limit },
    search: text === '' ? null : { columns: [{ column: label.column, isText }], text },
    conditions: filters.conditions,
    term: filters.term,
    limit,
  });
}

/** `q` trimmed ('' when absent or blank), or a failure when it is not one string without NUL characters. */
function readQ(q: unknown, failures: FailItem<ErrorCode>[]): string {
  if (q === undefined) return '';
  if (typeof q === 'string' && !q.includes('\u0000')) return q.trim();
  failures.push({ field: 'q', error: 'invalidValue', message: 'q must be a single string without NUL characters' });
  return '';
}

/** The LIMIT: `limit` within `max`, `max` for a `q` without one, null for neither; a failure for a bad `limit`. */
function readLimit(limit: unknown, searched: boolean, max: number, failures: FailItem<ErrorCode>[]): number | null {
  if (limit === undefined) return searched ? max : null;
  if (typeof limit === 'string' && POSITIVE.test(limit)) return Math.min(Number(limit), max);
  failures.push({ field: 'limit', error: 'invalidValue', message: 'limit must be a positive integer' });
  return null;
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
