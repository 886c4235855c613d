/**
 * The softDelete and restore actions: `DELETE <uri>/{id}/soft` and `PATCH|PUT <uri>/{id}/restore`, as lifecycles and
 * mixins.
 */
import { noteWritten } from '../execute/live-outbox.js';
import type { Context } from 'koa';
import type { FindOptions, Model, Transaction } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { conditionalHeaders, ifMatchRequired, recordPrecondition, refusedReply } from './preconditions.js';
import { findRecord, inTransaction, recordReply } from './records.js';

/**
 * Serves `DELETE <uri>/{id}/soft`: sets the deleted-at column to now and, when the model has it,
 * the deleted-by column to `softDeleteUserId`; 200 with the record, 404 when missing or already
 * soft-deleted, the spec's `columnNotFound` when the model has no deleted-at column. Hooks
 * `modifySoftDeleteQuery`, `beforeSoftDelete` and `afterSoftDelete`. Works with a plain column and
 * with `paranoid` models. `If-Match` is checked after the locked lookup (412), and required when
 * `delete.require_if_match` is on (428).
 * @example const reply = await softDeleteAction(resourceScope(bound, ctx));
 */
export async function softDeleteAction(scope: ActionScope): Promise<Reply> {
  const { deletedAt } = scope.resource;
  if (deletedAt === undefined) return scope.answers.answerColumnNotFound(scope.config.soft_delete.deleted_at_field);
  const required = ifMatchRequired(scope, 'softDelete');
  if (required !== undefined) return required;
  return inTransaction(scope, 'softDelete', async (transaction) => {
    const record = await findRecord(scope, 'softDelete', 'active', 'modifySoftDeleteQuery');
    if (record === undefined) return scope.answers.answerNotFound();
    const refused = await recordPrecondition(scope, record, { headers: conditionalHeaders(scope), versionSent: false });
    if (refused !== undefined) return refusedReply(refused);
    await softDeleteRecord(scope, record, transaction, () => softDeleteUserId(scope), new Date());
    return recordReply(scope, 'softDelete', record, scope.config.soft_delete);
  });
}

/**
 * Serves `PATCH|PUT <uri>/{id}/restore`: finds only soft-deleted records and clears the
 * deleted-at and deleted-by columns; 200 with the record, 404 unless it is soft-deleted. Hooks
 * `modifyRestoreQuery`, `beforeRestore` and `afterRestore`. `If-Match` is checked after the locked lookup (412), and
 * required when `restore.require_if_match` is on (428).
 * @example const reply = await restoreAction(resourceScope(bound, ctx));
 */
export async function restoreAction(scope: ActionScope): Promise<Reply> {
  const { deletedAt } = scope.resource;
  if (deletedAt === undefined) return scope.answers.answerColumnNotFound(scope.config.soft_delete.deleted_at_field);
  const required = ifMatchRequired(scope, 'restore');
  if (required !== undefined) return required;
  return inTransaction(scope, 'restore', async (transaction) => {
    const record = await findRecord(scope, 'restore', 'trashed', 'modifyRestoreQuery');
    if (record === undefined) return scope.answers.answerNotFound();
    const refused = await recordPrecondition(scope, record, { headers: conditionalHeaders(scope), versionSent: false });
    if (refused !== undefined) return refusedReply(refused);
    await restoreRecord(scope, record, transaction);
    return recordReply(scope, 'restore', record, scope.config.restore);
  });
}

/**
 * Who is soft-deleting: the hook's answer, or `ctx.state.user?.id`, or null.
 * @example record.set(deletedBy, await softDeleteUserId(scope));
 */
export async function softDeleteUserId(scope: ActionScope): Promise<unknown> {
  if (scope.hasHook('softDeleteUserId')) return scope.hook('softDeleteUserId');
  return (scope.ctx.state as { user?: { id?: unknown } }).user?.id ?? null;
}

/**
 * Adds `DELETE <uri>/{id}/soft` and its hooks to a controller class.
 * @example class Products extends SoftDelete(BaseController) { modelClassName() { return Product; } }
 */
export function SoftDelete<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class SoftDeleteAction extends Base {
    /** Serves `DELETE <uri>/{id}/soft`. */
    async softDelete(_ctx: Context): Promise<Reply> {
      return softDeleteAction(controllerScope(this));
    }

    /**
     * Who is soft-deleting, for the deleted-by column.
     * @example softDeleteUserId(ctx) { return ctx.state.session.userId; }
     */
    softDeleteUserId(ctx: Context): unknown {
      return (ctx.state as { user?: { id?: unknown } }).user?.id ?? null;
    }

    /** Called with the lookup (inside the transaction) before it runs: change it or return a new one. */
    modifySoftDeleteQuery(_query: FindOptions): HookResult<FindOptions> {}

    /** Called inside the transaction before the row is marked; throw to keep it. */
    beforeSoftDelete(_record: Model): void | Promise<void> {}

    /** Called inside the transaction after the row was marked; throwing undoes the mark. */
    afterSoftDelete(_record: Model): void | Promise<void> {}
  }
  return SoftDeleteAction;
}

/**
 * Adds `PATCH|PUT <uri>/{id}/restore` and its hooks to a controller class.
 * @example class Products extends Restore(BaseController) { modelClassName() { return Product; } }
 */
export function Restore<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class RestoreAction extends Base {
    /** Serves `PATCH|PUT <uri>/{id}/restore`. */
    async restore(_ctx: Context): Promise<Reply> {
      return restoreAction(controllerScope(this));
    }

    /** Called with the lookup (inside the transaction) before it runs: change it or return a new one. */
    modifyRestoreQuery(_query: FindOptions): HookResult<FindOptions> {}

    /** Called inside the transaction before the marks are cleared. */
    beforeRestore(_record: Model): void | Promise<void> {}

    /** Called inside the transaction after the marks were cleared; throwing undoes the restore. */
    afterRestore(_record: Model): void | Promise<void> {}
  }
  return RestoreAction;
}

/**
 * Soft-deletes one found record, between the `beforeSoftDelete` and `afterSoftDelete` hooks: deleted-by the value
 * `user()` gives after `beforeSoftDelete` (asked only when the resource has the column), deleted-at `now`.
 * softDelete and soft delete many do it alike.
 * @example await softDeleteRecord(scope, record, transaction, () => softDeleteUserId(scope), new Date());
 */
export async function softDeleteRecord(
  scope: ActionScope,
  record: Model,
  transaction: Transaction,
  user: () => Promise<unknown>,
  now: Date,
): Promise<void> {
  const { deletedAt, deletedBy, paranoid } = scope.resource;
  await scope.hook('beforeSoftDelete', record);
  // save() writes every change, the hook's included; a paranoid model's destroy() sets its own deleted-at column.
  if (deletedBy !== undefined) record.set(deletedBy, await user());
  if (!paranoid) record.set(deletedAt!, now);
  await record.save({ transaction });
  if (paranoid) await record.destroy({ transaction });
  noteWritten(transaction, [record]);
  await scope.hook('afterSoftDelete', record);
}

/**
 * Restores one found record, between the `beforeRestore` and `afterRestore` hooks: deleted-at and deleted-by cleared.
 * restore and restore many do it alike.
 * @example await restoreRecord(scope, record, transaction);
 */
export async function restoreRecord(scope: ActionScope, record: Model, transaction: Transaction): Promise<void> {
  const { deletedAt, deletedBy, paranoid } = scope.resource;
  await scope.hook('beforeRestore', record);
  // A paranoid model clears its own deleted-at column in restore(); save() writes every other change, the hook's
  // included.
  if (paranoid) await record.restore({ transaction });
  else record.set(deletedAt!, null);
  if (deletedBy !== undefined) record.set(deletedBy, null);
  await record.save({ transaction });
  noteWritten(transaction, [record]);
  await scope.hook('afterRestore', record);
}
