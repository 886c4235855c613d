/**
 * planAggregate: an aggregate request (`GET <uri>/aggregate?aggregate[count]=*&aggregate[sum]=price&groupBy=status`)
 * checked against the model, the field and relation policies and the aggregate policy, as a plan; aggregateRows turns
 * the rows of its query into the reply's records.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { AttributeSource, ErrorCode, FailItem, FastCrudConfig, SearchPlan } from '../types.js';
import { MEASURES, groupable, isNumeric, type AggregatePolicy, type Measure } from './aggregate-policy.js';
import { kindOf, type ValueKind } from './attribute-kinds.js';
import { findColumn } from './columns.js';
import { allowedColumn } from './field-policy.js';
import { everyCondition, parseFilters, type FilterSettings } from './filter-parser.js';
import { didYouMean } from './nearest.js';
import { KNOWN_PARAMS, isRecord, unknownParams, listText } from './query-params.js';
import { isRelationPath, resolveRelationPath, type RelationModel } from './relation-paths.js';

/** The query parameters of an aggregate request, as qs parses them. */
export interface AggregateRequest {
  /** `aggregate[count]=*`, `aggregate[sum]=price,cost`, `aggregate[avg]=…`, `aggregate[min]=…`, `aggregate[max]=…`. */
  readonly aggregate?: unknown;
  /** `groupBy=status,category.name`. */
  readonly groupBy?: unknown;
  readonly filter?: unknown;
}

/** What planning an aggregate request needs besides the model and the request. */
export interface AggregateSettings extends FilterSettings {
  readonly config: Pick<FastCrudConfig, 'search' | 'soft_delete' | 'aggregate'>;
  readonly aggregate: AggregatePolicy;
}

/** One group column of a plan: its key in the reply, and the attribute (through `relation`, for a path). */
export interface AggregateGroup {
  /** The reply's key: the attribute name, or the flat path (`category.name`). */
  readonly key: string;
  readonly attribute: string;
  /** The associations a path walks (`['category']`); absent for a column of the resource's model. */
  readonly relation?: readonly string[] | undefined;
  /** The attribute's kind, which decides how the database's value becomes JSON. */
  readonly kind: ValueKind;
}

/** A checked aggregate request, ready for the shell to compile into one GROUP BY query. */
export interface AggregatePlan {
  /** True: each group's row count (`aggregate[count]=*`). */
  readonly count: boolean;
  /** The measures asked for, in the order sum, avg, min, max, each column once. */
  readonly measures: readonly { readonly measure: Measure; readonly attribute: string }[];
  /** The group columns, in the order asked; none: one row over every matching record. */
  readonly groupBy: readonly AggregateGroup[];
  /** The rows to aggregate: the filters as search plans them (no order, no page). */
  readonly filter: SearchPlan;
  /** `aggregate.max_groups`: more groups than this is a `tooManyRows` fail. */
  readonly maxGroups: number;
}

const FUNCTIONS: readonly string[] = ['count', ...MEASURES];

/**
 * Plans an aggregate request: with `search.strict_params`, no parameter but `aggregate`, `groupBy` and `filter`;
 * `aggregate[count]` must be `*`; each measure takes a comma-separated list (or repeated parameter) of numeric columns
 * the aggregate policy opens to it; `groupBy` a comma-separated list of columns and belongs-to (or has-one) paths;
 * `filter` as search reads it. A name that is unknown, hidden or not filterable is a `columnNotFound` naming the
 * parameter (`aggregate.sum`, `groupBy`) with the nearest allowed name; a column the policy does not open (a measure
 * of a non-numeric one) an `invalidValue`. A request that asks for neither a measure nor a group is `required`. Every
 * failure is collected.
 * @example planAggregate(Product, { aggregate: { count: '*', sum: 'price' }, groupBy: 'status' }, settings)
 *   // right({ count: true, measures: [{ measure: 'sum', attribute: 'price' }], groupBy: [{ key: 'status', attribute:
 *   // 'status', kind: 'string' }], filter: { conditions: [], term: null, order: [], page: null, trashed: false },
 *   // maxGroups: 1000 })
 */
export function planAggregate(
  model: RelationModel,
  request: AggregateRequest,
  settings: AggregateSettings,
): E.Either<FailItem<ErrorCode>[], AggregatePlan> {
  const unknown = settings.config.search.strict_params
    ? unknownParams(Object.keys(request), KNOWN_PARAMS.aggregate)
    : [];
  const functions = parseFunctions(model, request.aggregate, settings);
  const groups = parseGroupBy(model, request.groupBy, settings);
  const filters = parseFilters(model, request.filter, settings);
  const failures = [
    ...unknown,
    ...(E.isLeft(functions) ? functions.left : []),
    ...(E.isLeft(groups) ? groups.left : []),
    ...filters.failures,
  ];
  if (failures.length > 0 || E.isLeft(functions) || E.isLeft(groups)) return E.left(failures);
  const { count, measures } = functions.right;
  if (!count && measures.length === 0 && groups.right.length === 0)
    return E.left([
      {
        field: 'aggregate',
        error: 'required',
        message: 'Ask for aggregate[count]=*, aggregate[sum|avg|min|max]=<columns> or groupBy=<columns>',
      },
    ]);
  const taken = new Set([...(count ? ['count'] : []), ...measures.map((item) => item.measure)]);
  const clash = groups.right.find((group) => taken.has(group.key));
  if (clash !== undefined)
    return E.left([
      {
        field: 'groupBy',
        error: 'invalidValue',
        message: `groupBy ${JSON.stringify(clash.key)} would share its key with aggregate[${clash.key}] in each row`,
      },
    ]);
  const deletedAt = findColumn(model, settings.config.soft_delete.deleted_at_field)?.attribute;
  return E.right({
    count,
    measures,
    groupBy: groups.right,
    filter: {
      conditions: filters.conditions,
      ...(filters.groups !== undefined && { groups: filters.groups }),
      term: filters.term,
      order: [],
      page: null,
      // As search: a condition on the deleted-at attribute replaces the default of live rows only.
      trashed: everyCondition(filters).some((c) => c.attribute === deletedAt && c.relation === undefined),
    },
    maxGroups: settings.config.aggregate.max_groups,
  });
}

/** The items of a comma-separated (or repeated) parameter, trimmed, empty ones skipped; undefined when not text. */
function listOf(raw: unknown): string[] | undefined {
  const text = listText(raw);
  if (text === undefined) return undefined;
  return [
    ...new Set(
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    ),
  ];
}

interface Functions {
  readonly count: boolean;
  readonly measures: AggregatePlan['measures'];
}

function parseFunctions(
  model: AttributeSource,
  raw: unknown,
  settings: AggregateSettings,
): E.Either<FailItem<ErrorCode>[], Functions> {
  if (raw === undefined) return E.right({ count: false, measures: [] });
  if (!isRecord(raw))
    return E.left([
      {
        field: 'aggregate',
        error: 'invalidValue',
        message: 'aggregate must be aggregate[count]=* or aggregate[sum|avg|min|max]=<columns>',
      },
    ]);
  const failures: FailItem<ErrorCode>[] = Object.keys(raw)
    .filter((name) => !FUNCTIONS.includes(name))
    .map((name) => ({
      field: `aggregate.${name}`,
      error: 'invalidValue',
      message:
        `Unknown aggregate ${JSON.stringify(name)}: one of ${FUNCTIONS.join(', ')}` + didYouMean(name, FUNCTIONS),
    }));
  const count = Object.hasOwn(raw, 'count');
  if (count && raw.count !== '*')
    failures.push({ field: 'aggregate.count', error: 'invalidValue', message: 'aggregate[count] must be *' });
  const measures: { measure: Measure; attribute: string }[] = [];
  for (const measure of MEASURES) {
    if (!Object.hasOwn(raw, measure)) continue;
    const field = `aggregate.${measure}`;
    const items = listOf(raw[measure]);
    if (items === undefined || items.length === 0) {
      failures.push({ field, error: 'invalidValue', message: `aggregate[${measure}] must list numeric columns` });
      continue;
    }
    const allowed = measurable(model, settings, measure);
    for (const item of items) {
      const found = allowedColumn(model, settings.policy.filterable, item);
      if (found === undefined)
        failures.push({
          field,
          error: 'columnNotFound',
          message: `The column ${JSON.stringify(item)} was not found${didYouMean(item, allowed)}`,
        });
      else if (!allowed.includes(found.attribute))
        failures.push({
          field,
          error: 'invalidValue',
          message:
            `aggregate[${measure}] cannot take ${JSON.stringify(item)}: ` +
            (isNumeric(model, found.attribute) ? 'the resource does not open it to this measure' : 'it is not numeric'),
        });
      else if (!measures.some((m) => m.measure === measure && m.attribute === found.attribute))
        measures.push({ measure, attribute: found.attribute });
    }
  }
  return failures.length > 0 ? E.left(failures) : E.right({ count, measures });
}

/** The attributes a measure may take: filterable, numeric, and in the policy's list when it has one. */
function measurable(model: AttributeSource, settings: AggregateSettings, measure: Measure): string[] {
  const declared = settings.aggregate.measures[measure];
  return [...settings.policy.filterable].filter(
    (attribute) => isNumeric(model, attribute) && (declared === undefined || declared.has(attribute)),
  );
}

function parseGroupBy(
  model: RelationModel,
  raw: unknown,
  settings: AggregateSettings,
): E.Either<FailItem<ErrorCode>[], AggregateGroup[]> {
  if (raw === undefined) return E.right([]);
  const items = listOf(raw);
  if (items === undefined || items.length === 0)
    return E.left([
      { field: 'groupBy', error: 'invalidValue', message: 'groupBy must be a comma-separated list of columns' },
    ]);
  const declared = settings.aggregate.groupBy;
  const opened = (key: string) => declared === undefined || declared.has(key);
  const failures: FailItem<ErrorCode>[] = [];
  const groups: AggregateGroup[] = [];
  const refuse = (item: string, why: string) =>
    failures.push({
      field: 'groupBy',
      error: 'invalidValue',
      message: `groupBy cannot take ${JSON.stringify(item)}: ${why}`,
    });
  for (const item of items) {
    let group: AggregateGroup;
    if (isRelationPath(item)) {
      const path = resolveRelationPath(
        model,
        item,
        settings.policy.relations,
        'filterable',
        settings.findField ?? 'id',
      );
      if (E.isLeft(path)) {
        failures.push({ ...path.left, field: 'groupBy' });
        continue;
      }
      const { relation, column, singular, model: target } = path.right;
      const key = [...relation, column.attribute].join('.');
      if (!singular) {
        refuse(item, 'it goes through a has-many association, which has no single value per row');
        continue;
      }
      if (!groupable(target, column.attribute) || !opened(key)) {
        refuse(item, 'the resource does not open it to groupBy');
        continue;
      }
      group = { key, attribute: column.attribute, relation, kind: kindOf(target.getAttributes()[column.attribute]!) };
    } else {
      const found = allowedColumn(model, settings.policy.filterable, item);
      if (found === undefined) {
        const candidates = [...settings.policy.filterable].filter((a) => groupable(model, a) && opened(a));
        failures.push({
          field: 'groupBy',
          error: 'columnNotFound',
          message: `The column ${JSON.stringify(item)} was not found${didYouMean(item, candidates)}`,
        });
        continue;
      }
      if (!groupable(model, found.attribute) || !opened(found.attribute)) {
        refuse(item, 'the resource does not open it to groupBy');
        continue;
      }
      group = {
        key: found.attribute,
        attribute: found.attribute,
        kind: kindOf(model.getAttributes()[found.attribute]!),
      };
    }
    if (!groups.some((known) => known.key === group.key)) groups.push(group);
  }
  return failures.length > 0 ? E.left(failures) : E.right(groups);
}

/**
 * The alias each selected value of a plan's query has: `g0, g1, …` for its groups, `n` for the count, `m0, m1, …` for
 * its measures. Plain names, so no client text ever names a column of the query.
 * @example aggregateAliases(plan) // { groups: ['g0'], count: 'n', measures: ['m0'] }
 */
export function aggregateAliases(plan: Pick<AggregatePlan, 'groupBy' | 'measures'>): {
  readonly groups: readonly string[];
  readonly count: string;
  readonly measures: readonly string[];
} {
  return {
    groups: plan.groupBy.map((_, i) => `g${i}`),
    count: 'n',
    measures: plan.measures.map((_, i) => `m${i}`),
  };
}

/**
 * The reply's records from the rows of a plan's query (keyed by `aggregateAliases`): each group's value under its key
 * (JSON as search gives it on every dialect: numbers, booleans, ISO instants), then `count`, then `sum`, `avg`, `min`
 * and `max` objects keyed by attribute, every measure a JSON number (or null over no value). PostgreSQL's text counts
 * and sums, MariaDB's decimals and bigints all become numbers.
 * @example aggregateRows(plan, [{ g0: 'active', n: '3', m0: '120.00' }])
 *   // [{ status: 'active', count: 3, sum: { price: 120 } }]
 */
export function aggregateRows(
  plan: Pick<AggregatePlan, 'groupBy' | 'measures' | 'count'>,
  rows: readonly Readonly<Record<string, unknown>>[],
): Record<string, unknown>[] {
  const aliases = aggregateAliases(plan);
  return rows.map((row) => {
    const record: Record<string, unknown> = {};
    plan.groupBy.forEach((group, i) => (record[group.key] = groupValue(group.kind, row[aliases.groups[i]!])));
    if (plan.count) record.count = measureValue(row[aliases.count]) ?? 0;
    for (const measure of MEASURES) {
      const asked = plan.measures.flatMap((item, i) =>
        item.measure === measure ? [[item.attribute, i] as const] : [],
      );
      if (asked.length > 0)
        record[measure] = Object.fromEntries(
          asked.map(([attribute, i]) => [attribute, measureValue(row[aliases.measures[i]!])]),
        );
    }
    return record;
  });
}

/**
 * A measure as JSON: a number, or null when the database gave none (a sum over no rows).
 * @example measureValue('120.50') // 120.5
 */
export function measureValue(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : Number(value);
}

/**
 * A group's value as JSON, by its attribute's kind: numbers (PostgreSQL's bigint and decimal text included), booleans
 * (SQLite's and MariaDB's 0 and 1), instants as ISO text; anything else as the database gave it.
 * @example groupValue('boolean', 1) // true
 * @example groupValue('date', '2024-05-01 10:00:00.000 +00:00') // '2024-05-01T10:00:00.000Z'
 */
export function groupValue(kind: ValueKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'integer':
    case 'number':
      return measureValue(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 1 || value === '1' || value === 't' || value === 'true';
    case 'date': {
      if (!(value instanceof Date) && typeof value !== 'string') return value;
      const instant = value instanceof Date ? value : new Date(value);
      return Number.isNaN(instant.getTime()) ? value : instant.toISOString();
    }
    case 'dateonly':
      return value instanceof Date ? value.toISOString().slice(0, 10) : value;
    default:
      return value;
  }
}

/**
 * The fail of an aggregate that would answer more than `aggregate.max_groups` groups.
 * @example tooManyGroups(1000) // { field: 'groupBy', error: 'tooManyRows', message: '…' }
 */
export function tooManyGroups(max: number): FailItem<ErrorCode> {
  return {
    field: 'groupBy',
    error: 'tooManyRows',
    message:
      `An aggregate answers at most ${max} groups (aggregate.max_groups) and this one has more: ` +
      'group by fewer columns, or narrow it with a filter',
  };
}
