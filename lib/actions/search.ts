/** The search action as a mixin: `GET <uri>?filter[...]&sort=&page=&perPage=`. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import qs from 'qs';
import type { FindOptions } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { planSearch, type SearchRequest } from '../core/search-plan.js';
import type { FailItem, Reply, SearchPlan } from '../types.js';
import { deletedAtOf, serialize, type HookResult } from './records.js';
import { compileSearch } from '../compile/search.js';

/** Query-string limits: brackets at most 3 deep, 100 array items, 200 parameters. */
const QS_OPTIONS = { depth: 3, arrayLimit: 100, parameterLimit: 200, allowPrototypes: false, strictDepth: true, throwOnLimitExceeded: true } as const;

/** What a query string beyond each qs limit is told; a limit is never met by silently dropping parameters. */
const LIMIT_MESSAGES: readonly (readonly [RegExp, string])[] = [
  [/depth/i, `The query string nests deeper than ${QS_OPTIONS.depth} brackets`],
  [/parameter limit/i, `The query string has more than ${QS_OPTIONS.parameterLimit} parameters`],
  [/array limit/i, `A list in the query string has more than ${QS_OPTIONS.arrayLimit} items`],
];

/**
 * The bracket query string of a request, parsed with qs within fixed limits; Left when it goes
 * beyond one (nesting, parameter count, list length).
 * @example parseQuery('filter[price][gte]=100&sort=-price') // right({ filter: { price: { gte: '100' } }, sort: '-price' })
 */
export function parseQuery(querystring: string): E.Either<FailItem, Record<string, unknown>> {
  return E.tryCatch(
    () => qs.parse(querystring, QS_OPTIONS),
    (thrown) => {
      const reason = thrown instanceof Error ? thrown.message : '';
      const message = LIMIT_MESSAGES.find(([pattern]) => pattern.test(reason))?.[1] ?? 'The query string cannot be parsed';
      return { field: 'filter', error: 'invalidValue', message };
    },
  );
}

/**
 * Plans the search or export a controller's request asks for.
 * @example const planned = await planRequest(this, false);
 */
export async function planRequest(
  controller: BaseController & { modifyFilters?(filters: unknown): HookResult<unknown> },
  paginate: boolean,
): Promise<E.Either<Reply, SearchPlan>> {
  const parsed = parseQuery(controller.ctx.querystring);
  if (E.isLeft(parsed)) return E.left(controller.answerFail([parsed.left]));
  const query = parsed.right as SearchRequest;
  const filter = (await controller.modifyFilters?.(query.filter)) ?? query.filter;
  const planned = planSearch(controller.modelClassName(), { ...query, filter }, {
    policy: controller.policy(),
    termKey: controller.termKey,
    termFields: controller.termFields,
    config: controller.config,
    paginate,
  });
  return E.mapLeft((failures: FailItem[]) => controller.answerFail(failures))(planned);
}

/**
 * Adds `GET <uri>` to a controller: filters, term search, sort and pagination, with the hooks
 * `modifyFilters`, `modifySearchQuery` and `afterSearch`.
 * @example class Products extends Search(BaseController) { modelClassName() { return Product; } }
 */
export function Search<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class SearchAction extends Base {
    /** Serves `GET <uri>`. */
    async search(_ctx: Context): Promise<Reply> {
      const planned = await planRequest(this, true);
      if (E.isLeft(planned)) return planned.left;
      const plan = planned.right;
      const model = this.modelClassName();
      const compiled = compileSearch(model, plan, deletedAtOf(this));
      const query = (await this.modifySearchQuery(compiled)) ?? compiled;
      const { rows, count } = await model.findAndCountAll({ ...query, distinct: true });
      const serialized = rows.map((row) => serialize(this, row, this.config.search.method));
      const data = (await this.afterSearch(serialized)) ?? serialized;
      const perPage = plan.page?.perPage ?? Math.max(count, 1);
      const pagination = { current: plan.page?.page ?? 1, perPage, pagesCount: Math.max(1, Math.ceil(count / perPage)), count };
      return this.answerSuccess(data, this.config.search.http_status, { pagination });
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
