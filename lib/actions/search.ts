/** The search action: `GET <uri>?filter[...]&sort=&page=&perPage=`, as a lifecycle and as a mixin. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions, Model, ModelStatic } from 'sequelize';
import { compileSearch, type RelationSettings } from '../compile/search.js';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { isUnreadableJson } from '../core/db-failure.js';
import { withHeader } from '../core/jsend.js';
import { unreadableJsonFilters } from '../core/json-filter-failure.js';
import { QUERY_QS_OPTIONS, isPrototypeKey, parseBrackets, prototypeKeys } from '../core/qs-limits.js';
import { FILTER_GROUPS, everyCondition } from '../core/filter-parser.js';
import { sparseShape } from '../core/row-shape.js';
import { planSearch, type SearchRequest } from '../core/search-plan.js';
import { ownFields, pickFields } from '../core/sparse-fields.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, markDefaultHooks, type ActionScope } from '../resource/scope.js';
import { inOneState } from '../execute/consistent.js';
import {
  decidedExecutor,
  executorFor,
  type Chosen,
  type Executor,
  type PreparedSelect,
  type RawShape,
} from '../execute/executor.js';
import { PREPARED_LIMIT, stateOf } from '../execute/state.js';
import type { ExecutionState, PreparedSearch, SearchPath } from '../execute/state.js';
import { rowScopesOf, scopesKey, unscoped } from '../resource/row-scopes.js';
import type { FailItem, Reply, RowScopes, SearchPlan } from '../types.js';
import { conditionalSearch } from './preconditions.js';
import { serializerFor } from './records.js';
import { withholdDeepRows } from './withheld.js';
import { placedRead } from './read-placement.js';
import { answerCursorSearch, cursorSecret } from './search-cursor.js';
import { queryStage, readStage, rowsStage } from './stages.js';

/**
 * The bracket query string of a request, parsed with qs within fixed limits (QUERY_QS_OPTIONS); Left when
 * it goes beyond one (nesting, parameter count, list length), or when a filter names a column or an
 * operator that qs would silently drop (`filter[constructor]`, `filter[__proto__]`): `columnNotFound`
 * or `invalidOperator`, as for any other unknown name.
 * @example parseQuery('filter[price][gte]=100&sort=-price')
 *   // right({ filter: { price: { gte: '100' } }, sort: '-price' })
 * @example parseQuery('filter[constructor]=1') // left({ field: 'constructor', error: 'columnNotFound', … })
 */
export function parseQuery(querystring: string): E.Either<FailItem, Record<string, unknown>> {
  const dropped = prototypeKeys(querystring).find(([root]) => root === 'filter');
  if (dropped !== undefined) return E.left(droppedFilter(dropped));
  return E.mapLeft((message: string): FailItem => ({ field: 'filter', error: 'invalidValue', message }))(
    parseBrackets(querystring, 'The query string', QUERY_QS_OPTIONS),
  );
}

/**
 * The failure for a filter path qs drops: its column, or else its operator, is a prototype key. Inside a `$or` or
 * `$and` group the field is the path (`filter.$or.0.constructor`), as the filter parser names it.
 */
function droppedFilter(segments: readonly string[]): FailItem {
  const at = segments.findIndex((segment, i) => i > 0 && isPrototypeKey(segment));
  const isColumn = at <= 1 || Object.hasOwn(FILTER_GROUPS, segments[at - 2]!);
  const path = segments.slice(1, isColumn ? at + 1 : at);
  const field = path.length === 1 ? path[0]! : `filter.${path.join('.')}`;
  const name = JSON.stringify(segments[at] ?? '');
  return isColumn
    ? { field, error: 'columnNotFound', message: `The column ${name} was not found` }
    : { field, error: 'invalidOperator', message: `Unknown operator ${name}` };
}

/**
 * Plans the search or export a request asks for: the query string within qs limits, then the
 * `modifyFilters` hook, then `planSearch` against the resource's policy and term search.
 * @example const planned = await planSearchRequest(scope, true);
 */
export async function planSearchRequest(scope: ActionScope, paginate: boolean): Promise<E.Either<Reply, SearchPlan>> {
  const parsed = parseQuery(scope.ctx.querystring);
  if (E.isLeft(parsed)) return E.left(scope.answers.answerFail([parsed.left]));
  const query = parsed.right as SearchRequest;
  const filter = (await scope.hook('modifyFilters', query.filter)) ?? query.filter;
  const { resource } = scope;
  const planned = planSearch(
    scope.model,
    { ...query, filter },
    {
      policy: resource.policy,
      termKey: resource.termKey,
      termFields: resource.termFields,
      fullText: resource.fullText,
      findField: scope.config.global.find_field,
      // Date-only filter values are days of the time zone Sequelize writes dates in.
      timezone: timezoneOf(scope.model.sequelize),
      config: scope.config,
      maxDepth: scope.config.global.max_depth,
      paginate,
      cursorSecret: cursorSecret(scope.config),
    },
  );
  return E.mapLeft((failures: FailItem[]) => scope.answers.answerFail(failures))(planned);
}

/**
 * The `timezone` option of a Sequelize instance (its typings leave `options` out); UTC's `'+00:00'` is the default.
 * @example timezoneOf(model.sequelize) // '+00:00'
 */
export function timezoneOf(sequelize: unknown): string | undefined {
  return (sequelize as { options?: { timezone?: string } } | undefined)?.options?.timezone;
}

/**
 * What compiling a plan's relation paths needs from the scope: the configured deleted-at column,
 * the relation policy and the request's row scopes.
 * @example compileSearch(model, plan, scope.resource.deletedAt, relationSettings(scope, scopes))
 */
export function relationSettings(scope: ActionScope, scopes: RowScopes): RelationSettings {
  return {
    deletedAtField: scope.config.soft_delete.deleted_at_field,
    policies: scope.resource.policy.relations ?? {},
    scopes,
  };
}

/**
 * `planSearchRequest` for a class-form controller, for custom actions that search like `search` does.
 * @example const planned = await planRequest(this, false);
 */
export function planRequest(controller: BaseController, paginate: boolean): Promise<E.Either<Reply, SearchPlan>> {
  return planSearchRequest(controllerScope(controller), paginate);
}

/**
 * Serves `GET <uri>`: filters, term search, sort and pagination, with the hooks `modifyFilters`,
 * `modifySearchQuery` and `afterSearch`. Rows are read raw, of the visible attributes only, when
 * the model and the query allow it (see `planRowShape`), else as model instances; the count is
 * `search.count`'s: exact, none (`hasMore`), or PostgreSQL's estimate. `skipPagination=true` reads at most
 * `search.max_unpaginated` + 1 rows; one past the cap is a `tooManyRows` fail. A `perPage` above `search.max_per_page`
 * is lowered to it, and the reply says so in `Fast-Crud-Per-Page-Lowered` (the page size used, as
 * `meta.pagination.perPage`). `fields=` keeps the named fields of each record (`parseFields`), and the fast path
 * selects those columns alone. The page carries a weak `ETag` of its body; an `If-None-Match` naming it is a 304
 * without a body.
 * @example const reply = await searchAction(resourceScope(bound, ctx));
 */
export function searchAction(scope: ActionScope): Promise<Reply> {
  // Not an async function: a `then` makes one promise where an `await` in one makes two (a search's hot path, where
  // AsyncLocalStorage's hook runs for each promise).
  return searchPage(scope).then((reply) => conditionalSearch(scope, reply));
}

async function searchPage(scope: ActionScope): Promise<Reply> {
  const { model } = scope;
  const state = stateOf(model.sequelize!);
  // Known without waiting on every request but a model's first: each await costs a promise or two, and more while
  // AsyncLocalStorage is on.
  const chosen = decidedExecutor(model, scope.ctx) ?? (await executorFor(model, scope.ctx));
  const { executor, forced } = chosen;
  const scopes = unscoped(scope) ?? (await rowScopesOf(scope, 'search'));
  // A request that must read where its client's write is visible (readYourWrites) plans and prepares its own.
  const requirement = scope.resource.plugins.length === 0 ? undefined : await readStage(scope, 'search');
  const reusable =
    forced === undefined && requirement === undefined ? preparedKey(scope, scopes, executor, state) : undefined;
  const known = reusable === undefined ? undefined : state.prepared.get(reusable);
  let plan: SearchPlan, query: FindOptions;
  if (known !== undefined) {
    ({ plan, query } = known);
  } else {
    const planned = await planSearchRequest(scope, true);
    if (E.isLeft(planned)) return planned.left;
    plan = planned.right;
    query = await queryStage(
      scope,
      'search',
      'modifySearchQuery',
      compileSearch(model, plan, scope.resource.deletedAt, relationSettings(scope, scopes)),
    );
  }
  if (requirement === undefined) return await answerSearch(scope, chosen, plan, query, known, reusable);
  const planned = query;
  return placedRead(model.sequelize!, requirement, (placement) =>
    answerSearch(scope, chosen, plan, { ...planned, ...placement }, undefined, undefined),
  );
}

/**
 * A search's reply once its plan and query are known: its page and count read (from one state, see
 * `PreparedSelect.pageAndCount`), through the hooks and plugins. `known` is the prepared search this
 * request reuses, `reusable` the key to keep its own under.
 */
async function answerSearch(
  scope: ActionScope,
  { executor, driver, forced }: Chosen,
  plan: SearchPlan,
  query: FindOptions,
  known: PreparedSearch | undefined,
  reusable: string | undefined,
): Promise<Reply> {
  const { model, config } = scope;
  const counting = config.search.count;
  const raw = forced === 'instance' ? undefined : rawShape(scope, query);
  // A sparse fieldset (`fields=`) selects only its columns on the fast path.
  const fields = plan.fields;
  const shape = raw && sparseShape(raw, fields && ownFields(model, fields));
  if (plan.cursor !== undefined) {
    const estimator = counting === 'estimate' ? executor : undefined;
    const count = (all: FindOptions) => (counting === 'none' ? undefined : countRows(scope, all, undefined, estimator));
    // A cursor page reads raw rows exactly when the offset page of the same request would. A first page's select
    // (`cursor=`, one query string for every client) is kept and reused as an offset page's is; a later page's is not,
    // since each cursor makes its query string and its SQL new.
    const keep = (select: PreparedSelect) => {
      if (reusable !== undefined && known === undefined && select.reusable)
        remember(stateOf(model.sequelize!), reusable, { plan, query, select });
    };
    const rawRead = shape && { executor, driver, shape, known: known?.select, keep };
    try {
      return await answerCursorSearch(scope, plan, query, count, rawRead);
    } catch (thrown) {
      return unreadableJsonReply(scope, plan, thrown);
    }
  }
  const state = stateOf(model.sequelize!);
  const page = plan.page;
  // Without a count, one row past the page tells whether there is a next one; without a page, one row past the cap that
  // there are too many.
  const cap = config.search.max_unpaginated;
  const limit =
    page === null ? Math.min(query.limit ?? cap + 1, cap + 1) : counting === 'none' ? page.perPage + 1 : query.limit;
  const read = limit === query.limit ? query : { ...query, limit };
  // The fast executor prepares the select once, and compiles its WHERE once for the page and the count.
  const select =
    shape === undefined
      ? undefined
      : known !== undefined
        ? known.select.again(driver)
        : executor.select(model, read, shape, driver);
  if (reusable !== undefined && known === undefined && select?.reusable === true) {
    remember(state, reusable, { plan, query, select });
  }
  const path: SearchPath = select?.path ?? 'instance';
  state.observer?.searched?.(scope.ctx, { path, reused: known !== undefined });
  let records: Record<string, unknown>[], count: { value: number; estimated: boolean } | undefined;
  try {
    if (select !== undefined && counting === 'exact') {
      const [raw, value] = await select.pageAndCount();
      [records, count] = [withheldRows(scope, raw), { value, estimated: false }];
    } else if (counting === 'exact') {
      // Instances: the page and the count on one state too, one after the other (issue 21).
      const [found, value] = await inOneState(
        model.sequelize!,
        read.useMaster === true,
        read.transaction,
        async (p) => {
          const rows = await model.findAll({ ...read, ...p });
          return [rows, await model.count({ ...query, ...p, distinct: hasIncludes(query) })] as const;
        },
      );
      [records, count] = [found.map(serializerFor(scope, config.search.method)), { value, estimated: false }];
    } else
      [records, count] = await Promise.all([
        select === undefined
          ? model.findAll(read).then((rows) => rows.map(serializerFor(scope, config.search.method)))
          : select.page().then((raw) => withheldRows(scope, raw)),
        counting === 'none'
          ? undefined
          : countRows(scope, query, select, counting === 'estimate' ? executor : undefined),
      ]);
  } catch (thrown) {
    return unreadableJsonReply(scope, plan, thrown);
  }
  if (page === null && records.length > cap) return scope.answers.answerFail([tooManyRows(cap)]);
  const hasMore = page !== null && records.length > page.perPage;
  const sliced = hasMore ? records.slice(0, page.perPage) : records;
  // Raw rows of a sparse fieldset hold its columns alone already; serialized instances keep its keys here.
  const rows = fields === undefined || select !== undefined ? sliced : sliced.map((row) => pickFields(row, fields));
  const hooked = scope.hasHook('afterSearch') ? ((await scope.hook('afterSearch', rows)) ?? rows) : rows;
  const data = scope.resource.plugins.length === 0 ? hooked : await rowsStage(scope, 'search', hooked);
  const current = page?.page ?? 1;
  if (count === undefined) {
    const pagination = { current, perPage: page?.perPage ?? Math.max(rows.length, 1), hasMore };
    return lowered(page, scope.answers.answerSuccess(data, config.search.http_status, { pagination }));
  }
  const perPage = page?.perPage ?? Math.max(count.value, 1);
  const pagesCount = Math.max(1, Math.ceil(count.value / perPage));
  const pagination = { current, perPage, pagesCount, count: count.value, ...(count.estimated && { estimated: true }) };
  return lowered(page, scope.answers.answerSuccess(data, config.search.http_status, { pagination }));
}

/** The header a page whose `perPage` was lowered to `search.max_per_page` carries: the page size used. */
export const PER_PAGE_LOWERED = 'Fast-Crud-Per-Page-Lowered';

/** A page's reply, with `PER_PAGE_LOWERED` when the client's `perPage` was above the cap. */
function lowered(page: SearchPlan['page'], reply: Reply): Reply {
  if (page?.lowered !== true) return reply;
  return withHeader(reply, PER_PAGE_LOWERED, String(page.perPage));
}

/**
 * The fail naming the `json` filters of a query that SQLite's JSON functions refused over a stored
 * value (see `isUnreadableJson`), at the validation status; rethrows any other error.
 * @example catch (thrown) { return unreadableJsonReply(scope, plan, thrown); }
 */
export function unreadableJsonReply(scope: ActionScope, plan: SearchPlan, thrown: unknown): Reply {
  const items = isUnreadableJson(thrown) ? unreadableJsonFilters(everyCondition(plan)) : [];
  if (items.length === 0) throw thrown;
  return scope.answers.answerFail(items);
}

/**
 * The key of the scope's search among the prepared ones (its resource, row scopes and query
 * string), when they alone decide its plan and its SQL: no `modifyFilters` or `modifySearchQuery`
 * hook and no plugin `query` stage (any of them may read the request), row scopes of plain values, the route's own
 * configuration, no CLS namespace (which puts a transaction in the options), and no default scope
 * on the model (which `findAll` merges into them). Only entries of the fast path whose WHERE is
 * compiled once are kept: their SQL is assembled from strings and never hands the kept options
 * to Sequelize to change. Else undefined, and the request plans and prepares its own.
 * `spec/http/fast-path.spec.ts` compares a reused search's bytes with a planned one's.
 */
function preparedKey(
  scope: ActionScope,
  scopes: RowScopes,
  executor: Executor,
  state: ExecutionState,
): string | undefined {
  const { resource } = scope;
  if (scope.config !== resource.config || scope.hasHook('modifyFilters') || scope.hasHook('modifySearchQuery'))
    return undefined;
  if (resource.plugins.some((plugin) => plugin.query !== undefined)) return undefined;
  if (!executor.queriesAsPlanned(scope.model)) return undefined;
  const scoped = scopes.size === 0 ? '' : scopesKey(scopes);
  if (scoped === undefined) return undefined;
  let id = state.resourceIds.get(resource);
  if (id === undefined) state.resourceIds.set(resource, (id = state.nextResourceId++));
  return `${id}\u0000${scoped}\u0000${scope.ctx.querystring}`;
}

/**
 * Keeps a prepared search, at most `PREPARED_LIMIT` per Sequelize instance; past it the oldest
 * goes. A client sending endless new query strings costs planning, as it did before, and at most
 * this many entries.
 */
function remember(state: ExecutionState, key: string, search: PreparedSearch): void {
  if (state.prepared.size >= PREPARED_LIMIT) state.prepared.delete(state.prepared.keys().next().value!);
  state.prepared.set(key, search);
}

/** The fail item for `skipPagination=true` over more than `search.max_unpaginated` rows. */
function tooManyRows(cap: number): FailItem {
  return {
    field: 'skipPagination',
    error: 'tooManyRows',
    message:
      `skipPagination=true answers at most ${cap} rows (search.max_unpaginated) and this search matches more: ` +
      `paginate with page and perPage, or narrow it with a filter`,
  };
}

/** Raw rows with each stored JSON value deeper than `global.max_depth` withheld (see `withholdDeepRows`). */
function withheldRows(scope: ActionScope, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  withholdDeepRows(scope.ctx, scope.model, rows, scope.config.global.max_depth);
  return rows;
}

/**
 * The raw row shape when this request may read plain rows: the model allows it (see `planRowShape`),
 * no hook or plugin asked for includes, attributes, grouping or raw rows of its own, and no find
 * hook could change the query or the instances.
 */
function rawShape(scope: ActionScope, query: FindOptions): RawShape | undefined {
  // The bound shape already refuses a search.method other than toJSON (it is planned from the same configuration).
  const shape = scope.resource.searchShape;
  if (shape.path !== 'raw' || hasIncludes(query) || hasFindHooks(scope.model)) return undefined;
  return query.attributes === undefined && query.raw === undefined && query.group === undefined ? shape : undefined;
}

const FIND_HOOKS = ['beforeFind', 'beforeFindAfterExpandIncludeAll', 'beforeFindAfterOptions', 'afterFind'] as const;

/** True when `findAll` would run find hooks on this model (its own or the Sequelize instance's). */
function hasFindHooks(model: ModelStatic<Model>): boolean {
  return FIND_HOOKS.some((name) => model.hasHook(name) || model.sequelize!.hasHook(name));
}

/** True when the query joins or loads associations (a hook's includes, or `include=`). */
function hasIncludes(query: FindOptions): boolean {
  return query.include !== undefined && (!Array.isArray(query.include) || query.include.length > 0);
}

/**
 * The count of the matching rows: DISTINCT only when includes may repeat rows; with an `estimator`
 * (`search.count: 'estimate'`), the planner's estimate when it reaches `search.count_threshold`.
 */
async function countRows(
  scope: ActionScope,
  query: FindOptions,
  select: PreparedSelect | undefined,
  estimator: Executor | undefined,
): Promise<{ value: number; estimated: boolean }> {
  const { model, config } = scope;
  const includes = hasIncludes(query);
  if (estimator !== undefined && !includes) {
    const estimated = await estimator.estimate(model, query);
    if (estimated !== undefined && estimated >= config.search.count_threshold)
      return { value: estimated, estimated: true };
  }
  const value = select !== undefined ? await select.count() : await model.count({ ...query, distinct: includes });
  return { value, estimated: false };
}

/**
 * Adds `GET <uri>` and its hooks to a controller class.
 * @example class Products extends Search(BaseController) { modelClassName() { return Product; } }
 */
export function Search<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class SearchAction extends Base {
    /** Serves `GET <uri>`. */
    async search(_ctx: Context): Promise<Reply> {
      return searchAction(controllerScope(this));
    }

    /**
     * Called with the parsed `filter` object before it is checked: return the filters to use.
     * @example modifyFilters(filters) { return { ...filters, tenant_id: String(this.ctx.state.tenantId) }; }
     */
    modifyFilters(_filters: unknown): HookResult<unknown> {
      return undefined;
    }

    /**
     * Called with the compiled find options before they run: change them in place or return new ones.
     * @example modifySearchQuery(query) { return { ...query, include: [{ association: 'category' }] }; }
     */
    modifySearchQuery(_query: FindOptions): HookResult<FindOptions> {}

    /**
     * Called with the serialized rows before the response: change them in place or return new ones.
     * @example afterSearch(rows) { return rows.map((r) => ({ ...r, url: `/products/${r.id}` })); }
     */
    afterSearch(_rows: Record<string, unknown>[]): HookResult<Record<string, unknown>[]> {}
  }
  // A class that keeps these as they are searches as a resource without them does (its plans may be reused, and its
  // rows go out without a hook call).
  markDefaultHooks(SearchAction.prototype, ['modifyFilters', 'modifySearchQuery', 'afterSearch']);
  return SearchAction;
}
