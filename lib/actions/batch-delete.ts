/**
 * Delete, soft delete and restore many: `DELETE <uri>?filter[...]`, `DELETE <uri>/soft?filter[...]` and
 * `PATCH <uri>/restore?filter[...]`, each over every matching record in one transaction.
 */
import { noteWritten } from '../execute/live-outbox.js';
import * as E from 'fp-ts/lib/Either.js';
import { findFieldOf } from '../core/find-field.js';
import type { ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { batchQueryProblem, inBatch, manyReply, matchingRecords } from './batch-records.js';
import { batchPrecondition, conditionalHeaders, ifMatchRequired } from './preconditions.js';
import { restoreRecord, softDeleteRecord, softDeleteUserId } from './soft-delete.js';

/**
 * Serves `DELETE <uri>?filter[...]` (a resource with `batch: true`): every record the filter matches as search
 * matches it (at most `batch.max_records`, locked) goes as delete removes one, with `modifyDeleteQuery` on the match
 * and `beforeDelete`/`afterDelete` around each record, in one transaction; 200 with the deleted records' find-field
 * values. No filter: `filterRequired`. `If-Match` is checked on every matched record before any write (412, nothing
 * deleted; see `batchPrecondition`), and is required (428) when `delete.require_if_match` is on.
 * @example const reply = await deleteManyAction(resourceScope(bound, ctx, readBody));
 */
export async function deleteManyAction(scope: ActionScope): Promise<Reply> {
  const refused = batchQueryProblem(scope) ?? ifMatchRequired(scope, 'delete');
  if (refused !== undefined) return refused;
  const findField = findFieldOf(scope.model, scope.config, 'delete');
  return inBatch(scope, 'delete', async (transaction) => {
    const found = await matchingRecords(scope, 'delete', 'search', 'modifyDeleteQuery');
    if (E.isLeft(found)) return found.left;
    const stale = await batchPrecondition(scope, found.right, {
      headers: conditionalHeaders(scope),
      versionSent: false,
    });
    if (stale !== undefined) return stale;
    const values: unknown[] = [];
    for (const record of found.right) {
      await scope.hook('beforeDelete', record);
      values.push(findField === undefined ? null : record.get(findField.attribute));
      await record.destroy({ transaction });
      noteWritten(transaction, [record]);
      await scope.hook('afterDelete', record);
    }
    return scope.answers.answerSuccess(values, scope.config.delete.http_status);
  });
}

/**
 * Serves `DELETE <uri>/soft?filter[...]`: every active record the filter matches is soft-deleted as softDelete marks
 * one (deleted-at now, deleted-by the user), with `modifySoftDeleteQuery` on the match and
 * `beforeSoftDelete`/`afterSoftDelete` around each record, in one transaction; 200 with the records. `If-Match` as
 * delete many checks it (`delete.require_if_match`).
 * @example const reply = await softDeleteManyAction(resourceScope(bound, ctx, readBody));
 */
export async function softDeleteManyAction(scope: ActionScope): Promise<Reply> {
  const { deletedAt } = scope.resource;
  if (deletedAt === undefined) return scope.answers.answerColumnNotFound(scope.config.soft_delete.deleted_at_field);
  const refused = batchQueryProblem(scope) ?? ifMatchRequired(scope, 'softDelete');
  if (refused !== undefined) return refused;
  return inBatch(scope, 'softDelete', async (transaction) => {
    const found = await matchingRecords(scope, 'softDelete', 'active', 'modifySoftDeleteQuery');
    if (E.isLeft(found)) return found.left;
    const stale = await batchPrecondition(scope, found.right, {
      headers: conditionalHeaders(scope),
      versionSent: false,
    });
    if (stale !== undefined) return stale;
    // The user is asked once, after the first record's beforeSoftDelete, as softDelete asks it.
    let asked: Promise<unknown> | undefined;
    const user = () => (asked ??= softDeleteUserId(scope));
    const now = new Date();
    for (const record of found.right) await softDeleteRecord(scope, record, transaction, user, now);
    return manyReply(scope, 'softDelete', found.right, scope.config.soft_delete);
  });
}

/**
 * Serves `PATCH <uri>/restore?filter[...]`: every soft-deleted record the filter matches is restored as restore
 * restores one, with `modifyRestoreQuery` on the match and `beforeRestore`/`afterRestore` around each record, in one
 * transaction; 200 with the records. `If-Match` as delete many checks it (`restore.require_if_match`).
 * @example const reply = await restoreManyAction(resourceScope(bound, ctx, readBody));
 */
export async function restoreManyAction(scope: ActionScope): Promise<Reply> {
  const { deletedAt } = scope.resource;
  if (deletedAt === undefined) return scope.answers.answerColumnNotFound(scope.config.soft_delete.deleted_at_field);
  const refused = batchQueryProblem(scope) ?? ifMatchRequired(scope, 'restore');
  if (refused !== undefined) return refused;
  return inBatch(scope, 'restore', async (transaction) => {
    const found = await matchingRecords(scope, 'restore', 'trashed', 'modifyRestoreQuery');
    if (E.isLeft(found)) return found.left;
    const stale = await batchPrecondition(scope, found.right, {
      headers: conditionalHeaders(scope),
      versionSent: false,
    });
    if (stale !== undefined) return stale;
    for (const record of found.right) await restoreRecord(scope, record, transaction);
    return manyReply(scope, 'restore', found.right, scope.config.restore);
  });
}
