/** Update many: `PATCH <uri>?filter[...]` with one JSON object, applied to every matching record in one transaction. */
import { noteWritten } from '../execute/live-outbox.js';
import * as E from 'fp-ts/lib/Either.js';
import type { Model, ModelStatic, Transaction } from 'sequelize';
import { dataKey, groupByData } from '../core/batch-plan.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { batchQueryProblem, inBatch, manyReply, matchingRecords, writesOneByOne } from './batch-records.js';
import { bodyData } from './body-data.js';
import {
  batchPrecondition,
  conditionalHeaders,
  hasPrecondition,
  ifMatchRequired,
  sentVersion,
  withoutVersion,
  type RecordExpectation,
} from './preconditions.js';
import { checkReferences } from './references.js';
import { dataStage } from './stages.js';

/**
 * Serves `PATCH <uri>?filter[...]` (a resource with `batch: true`): the body is checked once as update checks it,
 * then applied to every active record the filter matches (at most `batch.max_records`, locked), with update's hooks
 * per record — `beforeUpdateFill` once, `modifyUpdateQuery` on the match, then `beforeUpdate` for every record, the
 * writes, and `afterUpdate` for every record — in one transaction; 200 with the updated records. Records given the
 * same data share one UPDATE statement unless the model has Sequelize instance hooks; without a `beforeUpdate` or
 * `afterUpdate` hook the match reads only keys and every record gets the one staged data, in one statement (which
 * also stamps `updatedAt` on a record it leaves as it was). No filter: `filterRequired`. Preconditions per record,
 * after the locked match and before any write (`batchPrecondition`): `If-Match` (412), the body's `version` (409,
 * compared, never written); 428 without `If-Match` when `update.require_if_match` is on.
 * @example const reply = await updateManyAction(resourceScope(bound, ctx, readBody));
 */
export async function updateManyAction(scope: ActionScope): Promise<Reply> {
  const refused = batchQueryProblem(scope) ?? ifMatchRequired(scope, 'update');
  if (refused !== undefined) return refused;
  let expected: RecordExpectation = { headers: conditionalHeaders(scope), versionSent: false };
  const body = await bodyData(scope, 'update', {
    relations: 'refuse',
    onPayload: (payload) => {
      expected = { ...expected, ...sentVersion(scope.model, payload) };
    },
  });
  if (E.isLeft(body)) return body.left;
  const fields = withoutVersion(scope.model, body.right);
  const filled = (await scope.hook('beforeUpdateFill', fields)) ?? fields;
  return inBatch(scope, 'update', async (transaction) => {
    const perRecord = scope.hasHook('beforeUpdate') || scope.hasHook('afterUpdate') || writesOneByOne(scope.model);
    // A precondition is checked on whole records: the match then reads them whole, even on the one-statement path.
    // A live resource's event names each record by its find field and row scopes: read whole too.
    const keysOnly = !perRecord && !hasPrecondition(expected) && !scope.resource.live;
    const found = await matchingRecords(scope, 'update', 'active', 'modifyUpdateQuery', keysOnly);
    if (E.isLeft(found)) return found.left;
    const records = found.right;
    const stale = await batchPrecondition(scope, records, expected);
    if (stale !== undefined) return stale;
    const scopes = await rowScopesOf(scope, 'update');
    if (!perRecord) {
      // No hook sees a record: the data is the same for every one, staged and checked once, written in one statement.
      const data = await dataStage(scope, 'update', filled);
      await checkReferences(scope.model, data, scopes, transaction);
      const key = scope.model.primaryKeyAttributes[0]!;
      const ids = records.map((record) => record.get(key));
      if (ids.length > 0) await scope.model.update(data, { where: { [key]: ids }, transaction });
      noteWritten(transaction, records);
      return manyReply(scope, 'update', records, scope.config.update);
    }
    const checked = new Set<string>();
    const writes: (readonly [Model, Record<string, unknown>])[] = [];
    for (const record of records) {
      const data = await dataStage(scope, 'update', (await scope.hook('beforeUpdate', record, filled)) ?? filled);
      // Equal data refers to the same related rows: checked once.
      const key = dataKey(data);
      if (key === undefined || !checked.has(key)) await checkReferences(scope.model, data, scopes, transaction);
      if (key !== undefined) checked.add(key);
      writes.push([record, data]);
    }
    await writeUpdates(scope.model, writes, transaction);
    noteWritten(transaction, records);
    for (const record of records) await scope.hook('afterUpdate', record);
    return manyReply(scope, 'update', records, scope.config.update);
  });
}

/**
 * Writes each record's data, as `record.update(data)` would: a record the data does not change is not written. Records
 * given equal data share one `Model.update` (validated once, by Sequelize); a model whose writes must go one by one
 * (see `writesOneByOne`) saves each record.
 */
async function writeUpdates(
  model: ModelStatic<Model>,
  writes: readonly (readonly [Model, Record<string, unknown>])[],
  transaction: Transaction,
): Promise<void> {
  for (const [record, data] of writes) record.set(data);
  const changed = writes.filter(([record]) => record.changed() !== false);
  if (writesOneByOne(model)) {
    for (const [record] of changed) await record.save({ transaction });
    return;
  }
  const key = model.primaryKeyAttributes[0]!;
  const groups = groupByData(
    changed.map(([record, data]) => [record.get(key), data] as const),
    dataKey,
  );
  for (const { data, ids } of groups) await model.update(data, { where: { [key]: ids }, transaction });
}
