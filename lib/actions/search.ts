/** The search action: `GET <uri>?filter[...]&sort=&page=&perPage=`, as a lifecycle and as a mixin. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions } from 'sequelize';
import { compileSearch, type RelationSettings } from '../compile/search.js';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { isPrototypeKey, parseBrackets, prototypeKeys } from '../core/qs-limits.js';
import { planSearch, type SearchRequest } from '../core/search-plan.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { RowShape } from '../core/row-shape.js';
import { estimateCount, hasFindHooks, rawCount, rawPage } from '../execute/raw-select.js';
import type { FailItem, Reply, SearchPlan } from '../types.js';
import { serializerFor } from './records.js';
import { queryStage, rowsStage } from './stages.js';

/**
 * The bracket query string of a request, parsed with qs within fixed limits (QS_OPTIONS); Left when
 * it goes beyond one (nesting, parameter count, list length), or when a filter names a column or an
 * operator that qs would silently drop (`filter[constructor]`, `filter[__proto__]`): `columnNotFound`
 * or `invalidOperator`, as for any other unknown name.
 * @example parseQuery('filter[price][gte]=100&sort=-price') // right({ filter: { price: { gte: '100' } }, sort: '-price' })
 * @example parseQuery('filter[constructor]=1') // left({ field: 'constructor', error: 'columnNotFound', … })
 */
export function parseQuery(querystring: string): E.Either<FailItem, Record<string, unknown>> {
  const dropped = prototypeKeys(querystring).find(([root]) => root === 'filter');
  if (dropped !== undefined) return E.left(droppedFilter(dropped));
  return E.mapLeft((message: string): FailItem => ({ field: 'filter', error: 'invalidValue', message }))(parseBrackets(querystring, 'The query string'));
}

/** The failure for a filter path qs drops: its column, or else its operator, is a prototype key. */
function droppedFilter([, column = '', operator = '']: readonly string[]): FailItem {
  return isPrototypeKey(column)
    ? { field: column, error: 'columnNotFound', message: `The column ${JSON.stringify(column)} was not found` }
    : { field: column, error: 'invalidOperator', message: `Unknown operator ${JSON.stringify(operator)}` };
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
  const planned = planSearch(scope.model, { ...query, filter }, {
    policy: resource.policy,
    termKey: resource.termKey,
    termFields: resource.termFields,
    findField: scope.config.global.find_field,
    // Date-only filter values are days of the time zone Sequelize writes dates in.
    timezone: timezoneOf(scope.model.sequelize),
    config: scope.config,
    paginate,
  });
  return E.mapLeft((failures: FailItem[]) => scope.answers.answerFail(failures))(planned);
}

/** The `timezone` option of a Sequelize instance (its typings leave `options` out); UTC's `'+00:00'` is the default. */
function timezoneOf(sequelize: unknown): string | undefined {
  return (sequelize as { options?: { timezone?: string } } | undefined)?.options?.timezone;
}

/**
 * What compiling a plan's relation paths needs from the scope: the configured deleted-at column and the relation policy.
 * @example compileSearch(model, plan, scope.resource.deletedAt, relationSettings(scope))
 */
export function relationSettings(scope: ActionScope): RelationSettings {
  return { deletedAtField: scope.config.soft_delete.deleted_at_field, policies: scope.resource.policy.relations ?? {} };
}

/**
 * `planSearchRequest` for a class-form controller, for custom actions that search like `search` does.
 * @example const planned = await planRequest(this, false);
 */
export function planRequest(controller: BaseController, paginate: boolean): Promise<E.Either<Reply, SearchPlan>> {
  return planSearchRequest(controllerScope(controller), paginate);
}

/**
 * Internal: a Koa `ctx.state` key; `'instance'` makes search read model instances even where the
 * fast path applies. The fast-path test compares the two replies byte for byte.
 */
export const FORCE_SEARCH_PATH: unique symbol = Symbol('koa-fast-crud: force the search path');

/** Internal: the `ctx.state` key search writes the path it took to (`'raw'` or `'instance'`), for the tests. */
export const SEARCH_PATH_TAKEN: unique symbol = Symbol('koa-fast-crud: the search path taken');

/**
 * Serves `GET <uri>`: filters, term search, sort and pagination, with the hooks `modifyFilters`,
 * `modifySearchQuery` and `afterSearch`. Rows are read raw, of the visible attributes only, when
 * the model and the query allow it (see `planRowShape`), else as model instances; the count is
 * `search.count`'s: exact, none (`hasMore`), or PostgreSQL's estimate.
 * @example const reply = await searchAction(resourceScope(bound, ctx));
 */
export async function searchAction(scope: ActionScope): Promise<Reply> {
  const planned = await planSearchRequest(scope, true);
  if (E.isLeft(planned)) return planned.left;
  const plan = planned.right;
  const { model, config } = scope;
  const query = await queryStage(scope, 'search', 'modifySearchQuery', compileSearch(model, plan, scope.resource.deletedAt, relationSettings(scope)));
  const shape = fastShape(scope, query);
  const counting = config.search.count;
  const page = plan.page;
  // Without a count, one row past the page tells whether there is a next one.
  const read = counting === 'none' && page !== null ? { ...query, limit: page.perPage + 1 } : query;
  const [records, count] = await Promise.all([
    shape === undefined ? model.findAll(read).then((rows) => rows.map(serializerFor(scope, config.search.method))) : rawPage(model, read, shape),
    counting === 'none' ? undefined : countRows(scope, query, shape !== undefined, counting === 'estimate'),
  ]);
  const hasMore = page !== null && records.length > page.perPage;
  const rows = hasMore ? records.slice(0, page.perPage) : records;
  const data = await rowsStage(scope, 'search', (await scope.hook('afterSearch', rows)) ?? rows);
  const current = page?.page ?? 1;
  if (count === undefined) return scope.answers.answerSuccess(data, config.search.http_status, { pagination: { current, perPage: page?.perPage ?? Math.max(rows.length, 1), hasMore } });
  const perPage = page?.perPage ?? Math.max(count.value, 1);
  const pagination = { current, perPage, pagesCount: Math.max(1, Math.ceil(count.value / perPage)), count: count.value, ...(count.estimated && { estimated: true }) };
  return scope.answers.answerSuccess(data, config.search.http_status, { pagination });
}

/** The raw row shape when this request may take the fast path: the model allows it, and no hook or plugin asked for includes, attributes or raw rows of its own. */
function fastShape(scope: ActionScope, query: FindOptions): RawShape | undefined {
  const state = scope.ctx.state as Record<symbol, unknown> | undefined;
  // The bound shape already refuses a search.method other than toJSON (it is planned from the same configuration).
  const shape = scope.resource.searchShape;
  const fast =
    shape.path === 'raw' && state?.[FORCE_SEARCH_PATH] !== 'instance' && !hasIncludes(query) &&
    query.attributes === undefined && query.raw === undefined && query.group === undefined && !hasFindHooks(scope.model);
  if (state !== undefined) state[SEARCH_PATH_TAKEN] = fast ? 'raw' : 'instance';
  return fast ? (shape as RawShape) : undefined;
}

type RawShape = Extract<RowShape, { path: 'raw' }>;

/** True when the query joins or loads associations (a hook's includes, or `include=`). */
function hasIncludes(query: FindOptions): boolean {
  return query.include !== undefined && (!Array.isArray(query.include) || query.include.length > 0);
}

/**
 * The count of the matching rows: DISTINCT only when includes may repeat rows; with `estimate` on
 * PostgreSQL, the planner's estimate when it reaches `search.count_threshold`.
 */
async function countRows(scope: ActionScope, query: FindOptions, raw: boolean, estimate: boolean): Promise<{ value: number; estimated: boolean }> {
  const { model, config } = scope;
  const includes = hasIncludes(query);
  if (estimate && !includes) {
    const estimated = await estimateCount(model, query);
    if (estimated !== undefined && estimated >= config.search.count_threshold) return { value: estimated, estimated: true };
  }
  const value = raw ? await rawCount(model, query) : await model.count({ ...query, distinct: includes });
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
  return SearchAction;
}
