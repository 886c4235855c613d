/** The read action: `GET <uri>/{id}`, as a lifecycle and as a mixin. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { relationIncludes } from '../compile/relations.js';
import { singleParam } from '../core/query-params.js';
import { parseInclude } from '../core/relation-policy.js';
import { parseFields } from '../core/sparse-fields.js';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { placedRead } from './read-placement.js';
import { conditionalRead } from './preconditions.js';
import { findRecord, recordReply } from './records.js';
import { readStage } from './stages.js';

/**
 * Serves `GET <uri>/{id}`: the record with the associations `include=` names, limited to the fields `fields=` names
 * (`parseFields`), or 404 when it is missing or soft-deleted; hooks
 * `modifyReadQuery` and `afterRead`. The reply carries the `ETag` of the record as it shows it (a sparse one has its
 * own); an `If-None-Match` naming it is a 304
 * without a body (after the lookup, so a 404 stays a 404).
 * @example const reply = await readAction(resourceScope(bound, ctx));
 */
export async function readAction(scope: ActionScope): Promise<Reply> {
  const policies = scope.resource.policy.relations ?? {};
  const include = parseInclude(singleParam(scope.ctx.query?.['include']), policies);
  if (E.isLeft(include)) return scope.answers.answerFail(include.left);
  const fields = parseFields(scope.model, scope.ctx.query?.['fields'], scope.resource.policy, include.right);
  if (E.isLeft(fields)) return scope.answers.answerFail(fields.left);
  const includes = relationIncludes(scope.model, include.right, policies, scope.config.soft_delete.deleted_at_field);
  const requirement = scope.resource.plugins.length === 0 ? undefined : await readStage(scope, 'read');
  const record = await placedRead(scope.model.sequelize!, requirement, (placement) =>
    findRecord(scope, 'read', 'active', 'modifyReadQuery', includes, placement),
  );
  if (record === undefined) return scope.answers.answerNotFound();
  await scope.hook('afterRead', record);
  return conditionalRead(scope, await recordReply(scope, 'read', record, scope.config.read, fields.right));
}

/**
 * Adds `GET <uri>/{id}` and its hooks to a controller class.
 * @example class Products extends Read(BaseController) { modelClassName() { return Product; } }
 */
export function Read<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class ReadAction extends Base {
    /** Serves `GET <uri>/{id}`. */
    async read(_ctx: Context): Promise<Reply> {
      return readAction(controllerScope(this));
    }

    /**
     * Called with the lookup before it runs: change it in place or return a new one.
     * @example modifyReadQuery(query) { return { ...query, include: [{ association: 'category' }] }; }
     */
    modifyReadQuery(_query: FindOptions): HookResult<FindOptions> {}

    /** Called with the found record before the response. */
    afterRead(_record: Model): void | Promise<void> {}
  }
  return ReadAction;
}
