/** The delete action: `DELETE <uri>/{id}`, as a lifecycle and as a mixin. */
import type { Context } from 'koa';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { conditionalHeaders, ifMatchRequired, recordPrecondition, refusedReply } from './preconditions.js';
import { findRecord, inTransaction } from './records.js';
import { noteWritten } from '../execute/live-outbox.js';

/**
 * Serves `DELETE <uri>/{id}`: removes the row (a `paranoid` model soft-deletes, as Sequelize
 * does), 200 with `data: null`; a row soft-deleted by a plain deleted-at column can be deleted for
 * good. Hooks `modifyDeleteQuery`, `beforeDelete` and `afterDelete`. `If-Match` is checked after the locked lookup
 * (412), and required when `delete.require_if_match` is on (428).
 * @example const reply = await deleteAction(resourceScope(bound, ctx));
 */
export async function deleteAction(scope: ActionScope): Promise<Reply> {
  const required = ifMatchRequired(scope, 'delete');
  if (required !== undefined) return required;
  return inTransaction(scope, 'delete', async (transaction) => {
    const record = await findRecord(scope, 'delete', 'any', 'modifyDeleteQuery');
    if (record === undefined) return scope.answers.answerNotFound();
    const refused = await recordPrecondition(scope, record, { headers: conditionalHeaders(scope), versionSent: false });
    if (refused !== undefined) return refusedReply(refused);
    await scope.hook('beforeDelete', record);
    await record.destroy({ transaction });
    noteWritten(transaction, [record]);
    await scope.hook('afterDelete', record);
    return scope.answers.answerSuccess(null, scope.config.delete.http_status);
  });
}

/**
 * Adds `DELETE <uri>/{id}` and its hooks to a controller class.
 * @example class Products extends Delete(BaseController) { modelClassName() { return Product; } }
 */
export function Delete<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class DeleteAction extends Base {
    /** Serves `DELETE <uri>/{id}`. */
    async delete(_ctx: Context): Promise<Reply> {
      return deleteAction(controllerScope(this));
    }

    /** Called with the lookup (inside the transaction) before it runs: change it or return a new one. */
    modifyDeleteQuery(_query: FindOptions): HookResult<FindOptions> {}

    /** Called inside the transaction before the row goes; throw to keep it. */
    beforeDelete(_record: Model): void | Promise<void> {}

    /** Called inside the transaction after the row went; throwing brings it back. */
    afterDelete(_record: Model): void | Promise<void> {}
  }
  return DeleteAction;
}
