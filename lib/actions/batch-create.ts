/** Create many: `POST <uri>` with a JSON array of objects, every record created in one transaction. */
import { noteWritten } from '../execute/live-outbox.js';
import * as E from 'fp-ts/lib/Either.js';
import type { Model, ModelStatic, Transaction } from 'sequelize';
import { batchItems, itemFailures } from '../core/batch-plan.js';
import { replyForError } from '../core/error-reply.js';
import { outsideDeadline } from '../execute/deadline.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';
import type { FailItem, Reply } from '../types.js';
import { inBatch, itemError, manyReply, writesOneByOne } from './batch-records.js';
import { writableFields } from './body-data.js';
import { checkReferences } from './references.js';
import { dataStage } from './stages.js';

/**
 * Create many when the resource declares batch routes and the body of `POST <uri>` is an array: its reply; undefined
 * for any other body, which create serves (it reads the same body again, read once per request).
 * @example const many = await createManyIfArray(scope); if (many !== undefined) return many;
 */
export async function createManyIfArray(scope: ActionScope): Promise<Reply | undefined> {
  if (!scope.resource.batch) return undefined;
  const { value, form } = await outsideDeadline(() => scope.readBody(scope.ctx, scope.config.global.body_limit));
  return Array.isArray(value) ? createManyAction(scope, value, form) : undefined;
}

/** Thrown inside the first attempt when the one multi-row INSERT is refused: the retry finds the item. */
class BulkInsertRefused extends Error {
  override readonly name = 'FastCrudBulkInsertRefused';
}

/**
 * Serves `POST <uri>` with an array body: at most `batch.max_records` items (`tooManyRows`), at least one
 * (`emptyPayload`), each checked as create checks its body, with create's hooks per item (`beforeCreateFill`,
 * then in the transaction `beforeCreate` for every item, the inserts, `afterCreate` for every record); 201 with the
 * created records in request order. Any failing item fails the whole request and nothing is written; its fail items
 * name their fields after the item's index (`1.price`), a database constraint's too (`1.sku`). The records go in one
 * multi-row INSERT unless the model has Sequelize instance hooks; when the database refuses it, the batch is rolled
 * back and run again one INSERT per item, which finds the item to name.
 * @example const reply = await createManyAction(scope, [{ name: 'Kite' }, { name: 'Ball' }], false);
 */
export async function createManyAction(scope: ActionScope, body: readonly unknown[], form: boolean): Promise<Reply> {
  const items = batchItems(body, scope.config.batch.max_records);
  if (E.isLeft(items)) return scope.answers.answerFail([items.left]);
  const failures: FailItem[] = [];
  const fields: Record<string, unknown>[] = [];
  for (const [index, item] of items.right.entries()) {
    const checked = await writableFields(scope, 'create', item, form, { relations: 'refuse' });
    if (E.isLeft(checked)) failures.push(...itemFailures(index, checked.left));
    else fields.push(checked.right);
  }
  if (failures.length > 0) return scope.answers.answerFail(failures);
  const filled: Record<string, unknown>[] = [];
  for (const data of fields) filled.push((await scope.hook('beforeCreateFill', data)) ?? data);
  const bulk = !writesOneByOne(scope.model);
  try {
    return await inBatch(scope, 'create', (transaction) => createAll(scope, filled, bulk, transaction));
  } catch (thrown) {
    if (!(thrown instanceof BulkInsertRefused)) throw thrown;
    return inBatch(scope, 'create', (transaction) => createAll(scope, filled, false, transaction));
  }
}

async function createAll(
  scope: ActionScope,
  filled: readonly Record<string, unknown>[],
  bulk: boolean,
  transaction: Transaction,
): Promise<Reply> {
  const { model } = scope;
  const scopes = await rowScopesOf(scope, 'create');
  const rows: Record<string, unknown>[] = [];
  for (const [index, data] of filled.entries()) {
    try {
      const staged = await dataStage(scope, 'create', (await scope.hook('beforeCreate', data)) ?? data);
      await checkReferences(model, staged, scopes, transaction);
      rows.push(staged);
    } catch (thrown) {
      itemError(scope, index, thrown);
    }
  }
  let created: Model[];
  if (bulk) {
    try {
      created = await model.bulkCreate(rows, { transaction, validate: true });
    } catch (thrown) {
      // A row failed validation, or the database refused one, which one it does not say: the retry inserts them one
      // by one.
      if (isAggregate(thrown) || replyForError(thrown).status < 500) throw new BulkInsertRefused('A row was refused');
      throw thrown;
    }
  } else {
    created = [];
    for (const [index, data] of rows.entries()) {
      created.push(await model.create(data, { transaction }).catch((e: unknown) => itemError(scope, index, e)));
    }
  }
  noteWritten(transaction, created);
  for (const [index, record] of created.entries()) {
    await Promise.resolve(scope.hook('afterCreate', record)).catch((e: unknown) => itemError(scope, index, e));
  }
  return manyReply(scope, 'create', created, scope.config.create, bulk && returnsWholeRows(model));
}

/**
 * True when a multi-row INSERT gives back every column as a read would: PostgreSQL's `RETURNING *` (Sequelize's
 * default there), on a model without a default scope that a read would apply.
 */
function returnsWholeRows(model: ModelStatic<Model>): boolean {
  const scope = (model.options as { defaultScope?: object }).defaultScope ?? {};
  return model.sequelize!.getDialect() === 'postgres' && Object.keys(scope).length === 0;
}

/** Sequelize's AggregateError: `bulkCreate` validated each row and some failed. */
function isAggregate(thrown: unknown): boolean {
  return (
    thrown instanceof Error &&
    thrown.name === 'AggregateError' &&
    Array.isArray((thrown as { errors?: unknown }).errors)
  );
}
