/** The update action: `PUT|PATCH|POST <uri>/{id}` with a JSON body, as a lifecycle and as a mixin. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import { bodyData } from './body-data.js';
import { checkReferences } from './references.js';
import {
  conditionalHeaders,
  ifMatchRequired,
  recordPrecondition,
  refusedReply,
  sentVersion,
  withoutVersion,
  type RecordExpectation,
} from './preconditions.js';
import { findRecord, inTransaction, recordReply } from './records.js';
import { noteWritten } from '../execute/live-outbox.js';
import { relationalFailReply, relationalStep } from './relation-writes.js';
import { dataStage } from './stages.js';

/**
 * Serves `PUT|PATCH|POST <uri>/{id}`: a partial update of fillable fields in one transaction, with
 * the links the body writes (`relationalStep`), 404 when missing or soft-deleted; hooks
 * `beforeUpdateFill`, `modifyUpdateQuery`, `beforeUpdate` and `afterUpdate`. After the locked lookup: 412 when
 * `If-Match` names another ETag, 409 `staleVersion` when the body's `version` (the model's optimistic-locking
 * attribute, never written from the body) is not the stored one; 428 without `If-Match` when
 * `update.require_if_match` is on.
 * @example const reply = await updateAction(resourceScope(bound, ctx));
 */
export async function updateAction(scope: ActionScope): Promise<Reply> {
  const required = ifMatchRequired(scope, 'update');
  if (required !== undefined) return required;
  let expected: RecordExpectation = { headers: conditionalHeaders(scope), versionSent: false };
  const body = await bodyData(scope, 'update', {
    onPayload: (payload) => {
      expected = { ...expected, ...sentVersion(scope.model, payload) };
    },
  });
  if (E.isLeft(body)) return body.left;
  const fields = withoutVersion(scope.model, body.right);
  const filled = (await scope.hook('beforeUpdateFill', fields)) ?? fields;
  return inTransaction(scope, 'update', async (transaction) => {
    const record = await findRecord(scope, 'update', 'active', 'modifyUpdateQuery');
    if (record === undefined) return scope.answers.answerNotFound();
    const refused = await recordPrecondition(scope, record, expected);
    if (refused !== undefined) return refusedReply(refused);
    const staged = await dataStage(scope, 'update', (await scope.hook('beforeUpdate', record, filled)) ?? filled);
    const { data, write } = await relationalStep(scope, 'update', staged, transaction);
    await checkReferences(scope.model, data, await rowScopesOf(scope, 'update'), transaction);
    await record.update(data, { transaction });
    noteWritten(transaction, [record]);
    await write(record);
    await scope.hook('afterUpdate', record);
    return recordReply(scope, 'update', record, scope.config.update);
  }).catch(relationalFailReply);
}

/**
 * Adds `PUT|PATCH|POST <uri>/{id}` and its hooks to a controller class.
 * @example class Products extends Update(BaseController) { modelClassName() { return Product; } }
 */
export function Update<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class UpdateAction extends Base {
    /** Serves `PUT|PATCH|POST <uri>/{id}`: 200 with the updated record, 404 when missing or soft-deleted. */
    async update(_ctx: Context): Promise<Reply> {
      return updateAction(controllerScope(this));
    }

    /** Called with the client's fillable fields before anything else: return the fields to use. */
    beforeUpdateFill(_data: Record<string, unknown>): HookResult<Record<string, unknown>> {}

    /** Called with the lookup (inside the transaction) before it runs: change it or return a new one. */
    modifyUpdateQuery(_query: FindOptions): HookResult<FindOptions> {}

    /**
     * Called inside the transaction with the record and the fields about to be written.
     * @example beforeUpdate(record, data) { if (record.get('locked')) this.ctx.throw(409, 'The record is locked'); }
     */
    beforeUpdate(_record: Model, _data: Record<string, unknown>): HookResult<Record<string, unknown>> {}

    /** Called inside the transaction with the updated record; throwing rolls the update back. */
    afterUpdate(_record: Model): void | Promise<void> {}
  }
  return UpdateAction;
}
