/** parseFilters: `filter[column][operator]=value` from a parsed query string, checked and typed. */
import * as E from 'fp-ts/lib/Either.js';
import type {
  AttributeSource,
  Condition,
  ConditionGroup,
  DateSpan,
  ErrorCode,
  FailItem,
  FieldPolicy,
  FilterNode,
  Operator,
  SearchPlan,
} from '../types.js';
import { coerceQueryValue, isTextKind, kindOf, type ValueKind } from './attribute-kinds.js';
import { dateBoundValues, parseDateSpan } from './date-bounds.js';
import { DEFAULT_CONFIG } from './config.js';
import { bodyProblem, problemItem } from './depth.js';
import { allowedColumn } from './field-policy.js';
import { fullTextTerm, type FullTextOption } from './full-text.js';
import { relationTarget } from './relation-paths.js';
import { OPERATORS } from './operators.js';
import { isRecord } from './query-params.js';

export { OPERATORS } from './operators.js';

/**
 * True when the operator applies to a column of this kind: a JSON column takes `json` and the
 * operators without a value, any other column every operator but `json`, and `like` needs text.
 * @example operatorApplies('like', 'number') // false
 */
export function operatorApplies(op: Operator, kind: ValueKind): boolean {
  return kind === 'json'
    ? op === 'json' || OPERATORS[op] === 'none'
    : op !== 'json' && (op !== 'like' || isTextKind(kind));
}

/** What the filter parser needs besides the model. */
export interface FilterSettings {
  readonly policy: FieldPolicy;
  /** The filter key that asks for a term search (`filter[term]=x`). */
  readonly termKey: string;
  /** Attribute or column names the term search looks in. */
  readonly termFields: readonly string[];
  /** `search.fullText`: the term is searched by words in a full-text index, not with LIKE; undefined: LIKE. */
  readonly fullText?: FullTextOption | undefined;
  /** What `<association>.id` names on the associated model (`global.find_field`); default `id`. */
  readonly findField?: string | undefined;
  /**
   * The time zone date-only filter values are days of: the Sequelize instance's `timezone`
   * (`'+02:00'`, `'Europe/Paris'`); UTC when absent.
   */
  readonly timezone?: string | undefined;
  /** Deepest nesting a `json` filter value may have (`global.max_depth`); default `DEFAULT_CONFIG`'s. */
  readonly maxDepth?: number | undefined;
}

/**
 * How deep `$or` and `$and` groups nest: `filter[$or][0][$and][0][$or][0][price][lt]=5` is the deepest filter
 * (three groups), and the query string's bracket depth (`QUERY_QS_OPTIONS`) rises only that far.
 */
export const FILTER_GROUP_DEPTH = 3;

/** The filter keys that open a group of filter objects, and what the group asks. */
export const FILTER_GROUPS = Object.freeze({ $or: 'or', $and: 'and' } as const);

/** Conditions, groups and term search parsed from a filter object, and every failure found on the way. */
export interface ParsedFilters extends Pick<SearchPlan, 'conditions' | 'groups' | 'term'> {
  readonly failures: readonly FailItem<ErrorCode>[];
}

/**
 * Parses `filter` as qs gives it: `{ name: { like: 'pho' }, price: { gte: '100' }, id: '3' }`.
 * A bare value means `eq`. Columns must be filterable by the policy; values are trimmed, an empty
 * one adds no condition (`nn` and `null` aside), and the rest are coerced to the attribute's kind, dates to
 * concrete bounds (`parseDateSpan`). Every problem is a failure naming the column as the client wrote it.
 * `$or` and `$and` take a list of filter objects (`{ $or: [{ name: { like: 'x' } }, { price: { lt: '5' } }] }`),
 * nested at most `FILTER_GROUP_DEPTH` deep; a failure inside one names its path (`filter.$or.1.price`). An item
 * whose values are all empty drops out like an empty field, and a group left with no item with it.
 * @example parseFilters(Product, { price: { gte: '100' } }, settings).conditions
 *   // [{ attribute: 'price', column: 'price', op: 'gte', values: [100] }]
 * @example parseFilters(Product, { $or: [{ name: 'a' }, { price: { lt: '5' } }] }, settings).groups
 *   // [{ group: 'or', items: [[{ attribute: 'name', …, op: 'eq', values: ['a'] }], [{ …, op: 'lt', values: [5] }]] }]
 */
export function parseFilters(model: AttributeSource, filter: unknown, settings: FilterSettings): ParsedFilters {
  if (filter === undefined || filter === '') return { conditions: [], term: null, failures: [] };
  if (!isRecord(filter))
    return { conditions: [], term: null, failures: [invalidValue('filter', 'must be filter[column][operator]=value')] };
  const { [settings.termKey]: termValue, ...columns } = filter;
  const term = parseTerm(model, termValue, settings);
  const parsed = parseObject(model, columns, settings, []);
  const groups = parsed.nodes.filter(isGroup);
  return {
    conditions: parsed.nodes.filter((node): node is Condition => !isGroup(node)),
    ...(groups.length > 0 && { groups }),
    term: E.isRight(term) ? term.right : null,
    failures: [...(E.isLeft(term) ? [term.left] : []), ...parsed.failures],
  };
}

/**
 * True for a `$or` or `$and` group of a condition tree.
 * @example isGroup({ group: 'or', items: [] }) // true
 */
export function isGroup(node: FilterNode): node is ConditionGroup {
  return 'group' in node;
}

/**
 * Every condition of a plan, those inside its groups at any depth included.
 * @example everyCondition({ conditions: [a], groups: [{ group: 'or', items: [[b], [c]] }] }) // [a, b, c]
 */
export function everyCondition(plan: Pick<SearchPlan, 'conditions' | 'groups'>): Condition[] {
  const walk = (nodes: readonly FilterNode[]): Condition[] =>
    nodes.flatMap((node) => (isGroup(node) ? node.items.flatMap(walk) : [node]));
  return walk([...plan.conditions, ...(plan.groups ?? [])]);
}

/** The nodes of one filter object (the top one, or an item of a group at `path`), and its failures. */
interface ParsedObject {
  readonly nodes: readonly FilterNode[];
  readonly failures: readonly FailItem<ErrorCode>[];
}

/**
 * One filter object's keys: columns and relation paths, `$or` and `$and` groups. `path` is where the object is
 * (`['$or', '1']`), empty for the top one, whose failures name the column alone as they always have.
 */
function parseObject(
  model: AttributeSource,
  object: Readonly<Record<string, unknown>>,
  settings: FilterSettings,
  path: readonly string[],
): ParsedObject {
  const results = Object.entries(object).map(([key, spec]): ParsedObject => {
    const field = fieldPath([...path, key]);
    if (Object.hasOwn(FILTER_GROUPS, key))
      return parseGroup(model, key as keyof typeof FILTER_GROUPS, spec, settings, [...path, key]);
    if (key.startsWith('$'))
      return failed({
        field,
        error: 'invalidOperator',
        message: `Unknown filter group ${JSON.stringify(key)}; use ${Object.keys(FILTER_GROUPS).join(' or ')}`,
      });
    if (path.length > 0 && key === settings.termKey)
      return failed(invalidValue(field, `cannot be inside a group: send the term search as filter[${key}]`));
    const parsed = parseColumn(model, key, spec, settings, field);
    return {
      nodes: parsed.filter(E.isRight).flatMap((r) => r.right ?? []),
      failures: parsed.filter(E.isLeft).map((l) => l.left),
    };
  });
  return { nodes: results.flatMap((r) => r.nodes), failures: results.flatMap((r) => r.failures) };
}

/**
 * `$or` or `$and` at `path`: a non-empty list of filter objects, at most `FILTER_GROUP_DEPTH` groups deep. Items
 * with no condition left (every value empty) drop out, and with them a group left without items.
 */
function parseGroup(
  model: AttributeSource,
  key: keyof typeof FILTER_GROUPS,
  spec: unknown,
  settings: FilterSettings,
  path: readonly string[],
): ParsedObject {
  const field = fieldPath(path);
  const depth = path.filter((segment) => Object.hasOwn(FILTER_GROUPS, segment)).length;
  if (depth > FILTER_GROUP_DEPTH)
    return failed(invalidValue(field, `nests groups deeper than ${FILTER_GROUP_DEPTH} ($or › $and › $or)`));
  if (!Array.isArray(spec) || spec.length === 0)
    return failed(invalidValue(field, `must list filters: filter[${key}][0][column][operator]=value`));
  const items = spec.map((item: unknown, i): ParsedObject =>
    isRecord(item)
      ? parseObject(model, item, settings, [...path, String(i)])
      : failed(invalidValue(`${field}.${i}`, `must be a filter: filter[${key}][${i}][column][operator]=value`)),
  );
  const failures = items.flatMap((item) => item.failures);
  const kept = items.map((item) => item.nodes).filter((nodes) => nodes.length > 0);
  if (failures.length > 0 || kept.length === 0) return { nodes: [], failures };
  return { nodes: [{ group: FILTER_GROUPS[key], items: kept }], failures: [] };
}

/** `['$or', '1', 'price']` as `filter.$or.1.price`, `['$or']` as `filter.$or`; a top-level column alone as its name. */
function fieldPath(path: readonly string[]): string {
  return path.length === 1 && !path[0]!.startsWith('$') ? path[0]! : `filter.${path.join('.')}`;
}

function failed(failure: FailItem<ErrorCode>): ParsedObject {
  return { nodes: [], failures: [failure] };
}

function parseTerm(
  model: AttributeSource,
  value: unknown,
  settings: FilterSettings,
): E.Either<FailItem<ErrorCode>, ParsedFilters['term']> {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return E.right(null);
  if (typeof value !== 'string' || value.includes('\u0000'))
    return E.left(invalidValue(settings.termKey, 'must be a single string without NUL characters'));
  const attributes = model.getAttributes();
  const columns = settings.termFields.flatMap((name) => {
    const found = allowedColumn(model, settings.policy.filterable, name);
    return found ? [{ column: found.column, isText: isTextKind(kindOf(attributes[found.attribute]!)) }] : [];
  });
  if (columns.length === 0) {
    return E.left({
      field: settings.termKey,
      error: 'columnNotFound',
      message: 'This resource has no term fields to search',
    });
  }
  const text = value.trim();
  const fullText = fullTextTerm(text, settings.fullText);
  return E.right({ columns, text, ...(fullText !== undefined && { fullText }) });
}

/** One condition, or null when every value is empty (an empty search-form field). */
type Parsed = E.Either<FailItem<ErrorCode>, Condition | null>;

function parseColumn(
  model: AttributeSource,
  name: string,
  spec: unknown,
  settings: FilterSettings,
  field = name,
): Parsed[] {
  const through = relationTarget(model, name, settings);
  if (through !== undefined && E.isLeft(through)) return [E.left({ ...through.left, field })];
  const found = through === undefined ? allowedColumn(model, settings.policy.filterable, name) : through.right.column;
  if (found === undefined)
    return [E.left({ field, error: 'columnNotFound', message: `The column ${JSON.stringify(name)} was not found` })];
  const entries = isRecord(spec) ? Object.entries(spec) : [['eq', spec] as const];
  return entries.map(([op, raw]): Parsed => {
    if (!Object.hasOwn(OPERATORS, op)) {
      return E.left({
        field,
        error: 'invalidOperator',
        message: `Unknown operator ${JSON.stringify(op)}; use one of ${Object.keys(OPERATORS).join(', ')}`,
      });
    }
    const definition = (through === undefined ? model : through.right.model).getAttributes()[found.attribute]!;
    const kind = kindOf(definition);
    if (!operatorApplies(op as Operator, kind)) {
      return E.left({ field, error: 'invalidOperator', message: `The operator ${op} does not apply to ${name}` });
    }
    const read = readTexts(op as Operator, raw, field);
    if (E.isLeft(read) || read.right === null) return read as E.Either<FailItem<ErrorCode>, null>;
    const { op: used, texts } = read.right;
    const relation = through && { relation: through.right.relation };
    if (kind === 'date' || kind === 'dateonly') {
      const spans = collect(
        texts.map((text) => parseDateSpan(text, kind, settings.timezone ?? '+00:00')),
        field,
      );
      return E.map((all: readonly DateSpan[]): Condition => ({
        ...found,
        op: used,
        values: dateBoundValues(used, all),
        ...relation,
      }))(spans);
    }
    if (used === 'json') {
      // Parsed once, then checked without recursion: nested deeper than global.max_depth, or a NUL once parsed
      // (`"\\u0000"`).
      const values = texts.map(parseJson);
      const max = settings.maxDepth ?? DEFAULT_CONFIG.global.max_depth;
      const problem = values.map((value) => bodyProblem(value, max)).find((found) => found !== undefined);
      return problem === undefined
        ? E.right({ ...found, op: used, values, ...relation })
        : E.left(problemItem(problem, max, field));
    }
    const coerce = (text: string) => (used === 'like' ? E.right(text) : coerceQueryValue(definition, text));
    return E.map((values: readonly unknown[]): Condition => ({ ...found, op: used, values, ...relation }))(
      collect(texts.map(coerce), field),
    );
  });
}

/**
 * The trimmed texts of one operator's value, or null when they are all empty. A `btw` with one
 * side empty becomes `gte` or `lte` of the other; a list drops its empty items.
 */
function readTexts(
  op: Operator,
  raw: unknown,
  field: string,
): E.Either<FailItem<ErrorCode>, { op: Operator; texts: readonly string[] } | null> {
  const arity = OPERATORS[op];
  if (arity === 'none') return E.right({ op, texts: [] });
  const texts =
    typeof raw === 'string'
      ? arity === 'one'
        ? [raw]
        : raw.split(',')
      : Array.isArray(raw) && arity !== 'one'
        ? raw
        : undefined;
  if (texts === undefined || !texts.every((t): t is string => typeof t === 'string')) {
    return E.left(invalidValue(field, arity === 'one' ? 'must be a single value' : 'must be a comma-separated list'));
  }
  if (texts.some((t) => t.includes('\u0000'))) return E.left(invalidValue(field, 'must not contain NUL characters'));
  const trimmed = texts.map((t) => t.trim());
  if (arity === 'two') {
    if (trimmed.length !== 2) return E.left(invalidValue(field, 'btw takes two comma-separated values'));
    const [low, high] = trimmed as [string, string];
    if (low === '' && high === '') return E.right(null);
    if (low === '' || high === '') return E.right({ op: low === '' ? 'lte' : 'gte', texts: [low || high] });
    return E.right({ op, texts: trimmed });
  }
  const present = trimmed.filter((t) => t !== '');
  if (present.length === 0) return E.right(null);
  if (arity === 'list' && present.length > 1000) return E.left(invalidValue(field, 'must list 1 to 1000 values'));
  return E.right({ op, texts: present });
}

/** Every coerced value, or the first reason one cannot be, as a failure naming the field. */
function collect<T>(
  coerced: readonly E.Either<string, T>[],
  field: string,
): E.Either<FailItem<ErrorCode>, readonly T[]> {
  const bad = coerced.find(E.isLeft);
  return bad ? E.left(invalidValue(field, bad.left)) : E.right(coerced.map((c) => (c as E.Right<T>).right));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function invalidValue(field: string, message: string): FailItem<ErrorCode> {
  return { field, error: 'invalidValue', message: `${field} ${message}` };
}
