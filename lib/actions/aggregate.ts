/** The aggregates action: `GET <uri>/aggregate?aggregate[count]=*&aggregate[sum]=price&groupBy=status&filter[...]`. */
import * as E from 'fp-ts/lib/Either.js';
import { compileAggregate } from '../compile/aggregate.js';
import { compileSearch } from '../compile/search.js';
import { aggregateRows, planAggregate, tooManyGroups, type AggregateRequest } from '../core/aggregate-plan.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { parseQuery, relationSettings, timezoneOf, unreadableJsonReply } from './search.js';
import { queryStage } from './stages.js';

/**
 * Serves `GET <uri>/aggregate` for a resource declared with `aggregate`: the request planned (`planAggregate`) after
 * the `modifyFilters` hook, its rows selected as search selects them (the filters, the row scopes of plugins such as
 * the tenant scope, soft-deleted rows left out unless a filter is on the deleted-at column, then the
 * `modifySearchQuery` hook's and plugins' `query` stages), and one GROUP BY query over them (`compileAggregate`).
 * Replies `{ status: 'success', data: [{ status: 'active', count: 3, sum: { price: 120 } }] }`, every measure a JSON
 * number; more than `aggregate.max_groups` groups is a `tooManyRows` fail.
 * @example const reply = await aggregateAction(resourceScope(bound, ctx, readBody));
 */
export async function aggregateAction(scope: ActionScope): Promise<Reply> {
  const { model, resource, config } = scope;
  const policy = resource.aggregate;
  if (policy === undefined) throw new TypeError(`${resource.name} does not declare aggregate`);
  const parsed = parseQuery(scope.ctx.querystring);
  if (E.isLeft(parsed)) return scope.answers.answerFail([parsed.left]);
  const query = parsed.right as AggregateRequest;
  const filter = (await scope.hook('modifyFilters', query.filter)) ?? query.filter;
  const planned = planAggregate(
    model,
    { ...query, filter },
    {
      policy: resource.policy,
      termKey: resource.termKey,
      termFields: resource.termFields,
      findField: config.global.find_field,
      timezone: timezoneOf(model.sequelize),
      maxDepth: config.global.max_depth,
      config,
      aggregate: policy,
    },
  );
  if (E.isLeft(planned)) return scope.answers.answerFail(planned.left);
  const plan = planned.right;
  const relations = relationSettings(scope, await rowScopesOf(scope, 'aggregate'));
  const filtered = await queryStage(
    scope,
    'aggregate',
    'modifySearchQuery',
    compileSearch(model, plan.filter, resource.deletedAt, relations),
  );
  let rows: Record<string, unknown>[];
  try {
    rows = (await model.findAll(compileAggregate(model, plan, filtered, relations))) as unknown as Record<
      string,
      unknown
    >[];
  } catch (thrown) {
    return unreadableJsonReply(scope, plan.filter, thrown);
  }
  if (rows.length > plan.maxGroups) return scope.answers.answerFail([tooManyGroups(plan.maxGroups)]);
  return scope.answers.answerSuccess(aggregateRows(plan, rows), config.search.http_status);
}
