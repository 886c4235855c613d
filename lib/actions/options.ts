/**
 * The options action: `{label, value}` pairs for select boxes (spec options rules 1–9), as a lifecycle and as a mixin.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions, Model, ModelStatic } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { compileOptions } from '../compile/options.js';
import {
  inReplyOrder,
  optionItems,
  planOptions,
  undeclaredValueColumn,
  type OptionItem,
  type OptionsPlan,
} from '../core/options-query.js';
import { isUnknownColumn } from '../core/db-failure.js';
import { singleParam } from '../core/query-params.js';
import { NO_ROW_SCOPES, rowScopesOf } from '../resource/row-scopes.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope, type Answers } from '../resource/scope.js';
import type { FastCrudConfig, OptionsError, Reply } from '../types.js';
import { executorFor, type Chosen } from '../execute/executor.js';
import { privateSequelize } from '../execute/private-sequelize.js';
import { stateOf } from '../execute/state.js';
import { tableColumns, tableHasColumn } from '../execute/table.js';
import { placedRead } from './read-placement.js';
import { parseQuery, relationSettings } from './search.js';
import { queryStage, readStage } from './stages.js';
import { withholdDeepOptions } from './withheld.js';

/**
 * Serves `GET <uri>/options?label=<column>&value=<column>` (spec options rules 1–9), with the hooks
 * `modifyOptionsQuery` and `afterOptions`, and the autocomplete's `q`, `limit` and `filter[...]`
 * (`planOptions`). Without a limit, more than `search.max_unpaginated` items is a `tooManyRows` fail.
 * @example const reply = await optionsAction(resourceScope(bound, ctx));
 */
export async function optionsAction(scope: ActionScope): Promise<Reply> {
  const { model, config, answers } = scope;
  const label = singleParam(scope.ctx.query['label']);
  const value = singleParam(scope.ctx.query['value']);
  const filter = await filterOf(scope);
  if (E.isLeft(filter)) return filter.left;
  const { resource } = scope;
  const planned = planOptions(
    model,
    { label, value, q: scope.ctx.query['q'], limit: scope.ctx.query['limit'], filter: filter.right },
    {
      policy: resource.policy,
      termKey: resource.termKey,
      termFields: resource.termFields,
      fullText: resource.fullText,
      findField: config.global.find_field,
      timezone: (model.sequelize as { options?: { timezone?: string } } | undefined)?.options?.timezone,
      maxDepth: config.global.max_depth,
      config,
      visible: resource.policy.visible,
    },
  );
  if (E.isLeft(planned)) {
    const failure = planned.left;
    return '_tag' in failure ? answerOptionsError(answers, config, failure) : answers.answerFail([...failure]);
  }
  const plan: OptionsPlan = planned.right;
  const undeclared = undeclaredValueColumn(model, value, config);
  if (undeclared !== undefined && !(await tableHasColumn(model, undeclared)))
    return columnGone(answers, config, undeclared);
  const relational = plan.conditions.some((condition) => condition.relation !== undefined);
  const scopes = relational ? await rowScopesOf(scope, 'options') : NO_ROW_SCOPES;
  const compiled = compileOptions(model, plan, relationSettings(scope, scopes));
  const staged = await queryStage(scope, 'options', 'modifyOptionsQuery', compiled);
  const requirement = scope.resource.plugins.length === 0 ? undefined : await readStage(scope, 'options');
  const bound = plan.limit ?? undefined;
  if (requirement === undefined) return answerOptions(scope, staged, label!, value, undeclared, bound);
  return placedRead(model.sequelize!, requirement, (placement) =>
    answerOptions(scope, { ...staged, ...placement }, label!, value, undeclared, bound),
  );
}

/**
 * The request's `filter` as qs parses it, then as the `modifyFilters` hook (search's and exportCsv's)
 * leaves it, so options list what search finds; or the fail for a query string beyond qs's limits.
 * Undefined when the query string names none and no hook adds any: a plain options request is read
 * as it always was.
 */
async function filterOf(scope: ActionScope): Promise<E.Either<Reply, unknown>> {
  let filter: unknown;
  if (Object.keys(scope.ctx.query).some((key) => key === 'filter' || key.startsWith('filter['))) {
    const parsed = parseQuery(scope.ctx.querystring);
    if (E.isLeft(parsed)) return E.left(scope.answers.answerFail([parsed.left]));
    filter = parsed.right['filter'];
  }
  if (!scope.hasHook('modifyFilters')) return E.right(filter);
  return E.right((await scope.hook('modifyFilters', filter)) ?? filter);
}

/** The options reply for the query after the hook and the plugins: its rows read, kept within the cap, formatted. */
async function answerOptions(
  scope: ActionScope,
  hooked: FindOptions,
  label: string,
  value: string | undefined,
  undeclared: string | undefined,
  limit: number | undefined,
): Promise<Reply> {
  const { model, config, answers } = scope;
  const chosen = await executorFor(model, scope.ctx);
  // A planned limit (`q` or `limit`) bounds the list itself: no more rows than it, on a table of any size.
  const cap = Math.max(config.search.max_unpaginated, limit ?? 0);
  const tooMany = () =>
    answers.answerFail([
      {
        field: null,
        error: 'tooManyRows',
        message:
          `The options list answers at most ${cap} items (search.max_unpaginated) and this one has more: ask for ` +
          `the first items with limit (or q), narrow it with a filter or a condition (modifyOptionsQuery), ` +
          `or raise the cap`,
      },
    ]);
  const query = inReplyOrder(hooked);
  const read = (useMaster: boolean) =>
    readWithinCap(model, hooked, useMaster ? { ...query, useMaster: true } : query, chosen, cap);
  let found: Record<string, unknown>[] | undefined;
  try {
    found = await read(false);
  } catch (thrown) {
    if (undeclared === undefined) throw thrown;
    // The value column may be gone since it was described (maybe by another process): described again, it is an
    // unknown column. Or it is there now: on a standby that has not replayed its ADD yet, or back again since the
    // select failed; then once more, on the primary.
    const since = performance.now();
    if (!(await describedWith(model, undeclared, since))) return columnGone(answers, config, undeclared);
    if (!isUnknownColumn(thrown)) throw thrown;
    try {
      found = await read(true);
    } catch (again) {
      if (!isUnknownColumn(again) || (await describedWith(model, undeclared, performance.now()))) throw again;
      return columnGone(answers, config, undeclared);
    }
  }
  // More than the count allowed, or a row past the cap: the LIMIT's extra row, or rows added since the span or count.
  if (found === undefined || found.length > cap) return tooMany();
  const asked = { label, value: value || config.options.default_value };
  withholdDeepOptions(scope.ctx, found, config.global.max_depth, asked);
  const rows = optionItems(found);
  const items = (await scope.hook('afterOptions', rows)) ?? rows;
  return answers.answerSuccess(items, config.options.http_status);
}

/**
 * The options' rows, within `search.max_unpaginated`: undefined when there are more (by the
 * count, when it goes first), else every row (one past the cap when the LIMIT gives it).
 */
async function readWithinCap(
  model: ModelStatic<Model>,
  hooked: FindOptions,
  query: FindOptions,
  chosen: Chosen,
  cap: number,
): Promise<Record<string, unknown>[] | undefined> {
  if (hooked.limit === undefined || hooked.limit > cap) {
    // Not a spread and a property: that makes a hidden class per request in Node 20 (see `withHeader`).
    if (!countsFirst(model, hooked)) query = Object.assign({}, query, { limit: cap + 1 });
    else if ((await rowidSpan(model, chosen)) > cap && (await countRows(model, hooked, chosen)) > cap) {
      return undefined;
    }
  }
  return readRows(model, query, chosen);
}

/** True when a description asked for at or after `since` has the column, or when the table cannot be described. */
function describedWith(model: ModelStatic<Model>, column: string, since: number): Promise<boolean> {
  return tableColumns(model, since).then(
    (columns) => columns.has(column),
    () => true,
  );
}

/** The 400 naming a value column the table does not have. */
function columnGone(answers: Answers, config: FastCrudConfig, field: string): Reply {
  return answerOptionsError(answers, config, { _tag: 'columnNotFound', field });
}

/**
 * True when the options query is kept within `search.max_unpaginated` without a LIMIT, by the
 * table's rowid span (`rowidSpan`) or else a count on the same conditions, not by one row past the
 * cap (`LIMIT cap + 1`): on SQLite, whose bounded sorter makes any LIMIT on a sorted select cost
 * more than the count and the whole sort together (9,000 rows: 12.1 ms with the LIMIT, 9.3 ms
 * without, 0.4 ms for the count). Only for a query the count follows row for row: raw rows of plain
 * `[column, alias]` attributes, no include, group or having.
 */
function countsFirst(model: ModelStatic<Model>, query: FindOptions): boolean {
  if (model.sequelize!.getDialect() !== 'sqlite' || query.raw !== true) return false;
  if (query.include !== undefined || query.group !== undefined || query.having !== undefined) return false;
  return (
    Array.isArray(query.attributes) &&
    query.attributes.every((item) => Array.isArray(item) && typeof item[0] === 'string' && typeof item[1] === 'string')
  );
}

/** The options' rows: plain rows through the request's executor, or instances when a hook asked for them. */
async function readRows(
  model: ModelStatic<Model>,
  query: FindOptions,
  { executor, driver }: Chosen,
): Promise<Record<string, unknown>[]> {
  if (query.raw === true) return executor.rows(model, query, driver);
  // A hook that asked for instances gets them, as findAll gives them.
  return (await model.findAll(query)) as object[] as Record<string, unknown>[];
}

/** The names SQLite gives a table's rowid, each usable unless the table has a column of that name. */
const ROWID_NAMES = ['rowid', '_rowid_', 'oid'] as const;

/**
 * An upper bound of the rows in the model's SQLite table that costs two seeks, not a scan: every
 * row of a rowid table has an integer rowid of its own, so there are at most max − min + 1 of
 * them (0 for an empty table). Infinity when there is no rowid to read: a view, a WITHOUT ROWID
 * table, or columns named after all three of its names. Within the cap, options skip the count.
 */
async function rowidSpan(model: ModelStatic<Model>, { executor, driver }: Chosen): Promise<number> {
  const sql = await spanSelect(model);
  if (sql === null) return Infinity;
  let rows: Record<string, unknown>[];
  try {
    rows = await executor.sql(model.sequelize!, sql, driver);
  } catch (error) {
    // No rowid (a view, WITHOUT ROWID) for good; any other error may pass: the count decides this time.
    const message = String(error instanceof Error ? error.message : error);
    if (/no such column/i.test(message)) stateOf(model.sequelize!).spans.set(model, null);
    return Infinity;
  }
  const span = rows[0]?.['span'] ?? 0;
  return typeof span === 'number' && Number.isFinite(span) ? span : Infinity;
}

/** The span's SELECT, written once per model from the table's described columns (a column may take a rowid name). */
async function spanSelect(model: ModelStatic<Model>): Promise<string | null> {
  const { spans } = stateOf(model.sequelize!);
  const known = spans.get(model);
  if (known !== undefined) return known;
  const columns = new Set([...(await tableColumns(model))].map((name) => name.toLowerCase()));
  const rowid = ROWID_NAMES.find((name) => !columns.has(name));
  const table = privateSequelize.generator(model).quoteTable(model.getTableName());
  // One aggregate per subquery: SQLite answers a lone min() or max() of the rowid by a seek, but
  // scans the whole table for `max(rowid) - min(rowid)` in one select.
  const sql =
    rowid === undefined
      ? null
      : `SELECT (SELECT max(${rowid}) FROM ${table}) - (SELECT min(${rowid}) FROM ${table}) + 1 AS "span";`;
  spans.set(model, sql);
  return sql;
}

/** The number of rows the options query's conditions match (its order, page and offset left out). */
async function countRows(model: ModelStatic<Model>, query: FindOptions, { executor, driver }: Chosen): Promise<number> {
  const sequelize = model.sequelize!;
  const attributes: FindOptions['attributes'] = [[sequelize.fn('count', sequelize.col('*')), 'count']];
  const counted: FindOptions = { ...query, attributes, order: undefined, limit: undefined, offset: undefined };
  const [row] = await executor.rows(model, counted, driver);
  return Number(row?.['count'] ?? 0);
}

/** The spec's answer for a planning error, through the controller's helpers, at the validation status. */
function answerOptionsError(answers: Answers, config: FastCrudConfig, optionsError: OptionsError): Reply {
  const status = config.global.validation.http_status;
  return optionsError._tag === 'required'
    ? answers.answerRequired(optionsError.field, status)
    : answers.answerColumnNotFound(optionsError.field, status);
}

/**
 * Adds `GET <uri>/options` and its hooks to a controller class.
 * @example class Categories extends Options(BaseController) { modelClassName() { return Category; } }
 */
export function Options<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class OptionsAction extends Base {
    /** Serves `GET <uri>/options?label=<column>&value=<column>`. */
    async options(_ctx: Context): Promise<Reply> {
      return optionsAction(controllerScope(this));
    }

    /**
     * Called with the planned find options before they run: change them in place or return new ones.
     * @example modifyOptionsQuery(query) { return { ...query, where: { ...query.where, active: true } }; }
     */
    modifyOptionsQuery(_query: FindOptions): HookResult<FindOptions> {}

    /**
     * Called with the formatted items before the response: change them in place or return new ones.
     * @example afterOptions(items) { return items.map((i) => ({ ...i, label: String(i.label).toUpperCase() })); }
     */
    afterOptions(_items: OptionItem[]): HookResult<OptionItem[]> {}

    /** The spec's answer for a planning error, at the validation status. */
    answerOptionsError(optionsError: OptionsError): Reply {
      return answerOptionsError(this, this.config, optionsError);
    }
  }
  return OptionsAction;
}
