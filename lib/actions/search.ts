/** The search action: `GET <uri>?filter[...]&sort=&page=&perPage=`, as a lifecycle and as a mixin. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions } from 'sequelize';
import { compileSearch, type RelationSettings } from '../compile/search.js';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { parseBrackets, prototypeKeys } from '../core/qs-limits.js';
import { planSearch, type SearchRequest } from '../core/search-plan.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { FailItem, Reply, SearchPlan } from '../types.js';
import { serialize } from './records.js';
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
  return column === '__proto__' || Object.hasOwn(Object.prototype, column)
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
 * Serves `GET <uri>`: filters, term search, sort and pagination, with the hooks `modifyFilters`,
 * `modifySearchQuery` and `afterSearch`.
 * @example const reply = await searchAction(resourceScope(bound, ctx));
 */
export async function searchAction(scope: ActionScope): Promise<Reply> {
  const planned = await planSearchRequest(scope, true);
  if (E.isLeft(planned)) return planned.left;
  const plan = planned.right;
  const { model, config } = scope;
  const query = await queryStage(scope, 'search', 'modifySearchQuery', compileSearch(model, plan, scope.resource.deletedAt, relationSettings(scope)));
  const { rows, count } = await model.findAndCountAll({ ...query, distinct: true });
  const serialized = rows.map((row) => serialize(scope, row, config.search.method));
  const data = await rowsStage(scope, 'search', (await scope.hook('afterSearch', serialized)) ?? serialized);
  const perPage = plan.page?.perPage ?? Math.max(count, 1);
  const pagination = { current: plan.page?.page ?? 1, perPage, pagesCount: Math.max(1, Math.ceil(count / perPage)), count };
  return scope.answers.answerSuccess(data, config.search.http_status, { pagination });
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
