/** Create many: `POST <uri>` with a JSON array of objects, every record created in one transaction. */
import { noteWritten } from '../execute/live-outbox.js';
import * as E from 'fp-ts/lib/Either.js';
import type { Model, Transaction } from 'sequelize';
import { batchItems, itemFailures } from '../core/batch-plan.js';
import { replyForError } from '../core/error-reply.js';
import { outsideDeadline } from '../execute/deadline.js';
import { stateOf, type CreateManyPath } from '../execute/state.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';
import type { FailItem, Reply } from '../types.js';
import { inBatch, itemError, manyReply, writesOneByOne } from './batch-records.js';
import { writableFields } from './body-data.js';
import { checkReferences } from './references.js';
import { dataStage, rowsStage } from './stages.js';
import { insertPlan, insertStatement } from './batch-insert.js';

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

/**
 * Serves `POST <uri>` with an array body: at most `batch.max_records` items (`tooManyRows`), at least one
 * (`emptyPayload`), each checked as create checks its body, with create's hooks per item (`beforeCreateFill`,
 * then in the transaction `beforeCreate` for every item, the inserts, `afterCreate` for every record); 201 with the
 * created records in request order. Any failing item fails the whole request and nothing is written; its fail items
 * name their fields after the item's index (`1.price`), a database constraint's too (`1.sku`). The records go in one
 * multi-row INSERT unless the model has Sequelize instance hooks; when the database refuses it, that INSERT is rolled
 * back to a savepoint and the items go one INSERT each, which finds the item to name (every hook runs once per item).
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
  // Without the hook there is nothing to wait for per item (a thousand awaits are a thousand promises).
  const filling = scope.hasHook('beforeCreateFill');
  const filled: Record<string, unknown>[] = [];
  for (const data of fields) filled.push(filling ? ((await scope.hook('beforeCreateFill', data)) ?? data) : data);
  return inBatch(scope, 'create', (transaction) => createAll(scope, filled, transaction));
}

/**
 * In the batch's transaction: `beforeCreate` and the plugins' data stage for every item (once each), the references
 * checked, then the inserts: one statement (`insertStatement`, when `insertPlan` allows it), else `bulkCreate`
 * (no Sequelize instance hooks), each under a savepoint; when the database refuses it, the savepoint is rolled back
 * and the items go one INSERT each, which finds the item to name. Then `afterCreate` for every record, and the reply.
 */
async function createAll(
  scope: ActionScope,
  filled: readonly Record<string, unknown>[],
  transaction: Transaction,
): Promise<Reply> {
  const { model } = scope;
  const scopes = await rowScopesOf(scope, 'create');
  // Each step only when it can do something: no hook, no plugin's data stage, no row scope, no await per item.
  const hooked = scope.hasHook('beforeCreate');
  const staging = scope.resource.plugins.some((plugin) => plugin.data !== undefined);
  const rows: Record<string, unknown>[] = [];
  for (const [index, data] of filled.entries()) {
    try {
      let staged = hooked ? ((await scope.hook('beforeCreate', data)) ?? data) : data;
      if (staging) staged = await dataStage(scope, 'create', staged);
      if (scopes.size > 0) await checkReferences(model, staged, scopes, transaction);
      rows.push(staged);
    } catch (thrown) {
      itemError(scope, index, thrown);
    }
  }
  const observer = stateOf(model.sequelize!).observer;
  const plan = writesOneByOne(model) ? undefined : insertPlan(scope);
  let path: CreateManyPath = 'one by one';
  let written: { records: Model[]; rows?: Record<string, unknown>[] } | undefined;
  if (plan?.path === 'raw' && observer?.forceCreateMany?.(scope.ctx) !== 'instances') {
    path = 'statement';
    written = await underSavepoint(scope, transaction, (savepoint) =>
      insertStatement(scope, plan, rows, savepoint, refused),
    );
  } else if (plan !== undefined) {
    path = 'instances';
    written = await underSavepoint(scope, transaction, async (savepoint) => {
      try {
        return { records: await model.bulkCreate(rows, { transaction: savepoint, validate: true }) };
      } catch (thrown) {
        // A row failed validation, or the database refused one, which one it does not say: the items go one by one.
        if (refused(thrown)) return undefined;
        throw thrown;
      }
    });
  }
  if (written === undefined) {
    path = 'one by one';
    const created: Model[] = [];
    for (const [index, data] of rows.entries()) {
      created.push(await model.create(data, { transaction }).catch((e: unknown) => itemError(scope, index, e)));
    }
    written = { records: created };
  }
  observer?.createdMany?.(scope.ctx, path);
  noteWritten(transaction, written.records);
  if (scope.hasHook('afterCreate'))
    for (const [index, record] of written.records.entries()) {
      await Promise.resolve(scope.hook('afterCreate', record)).catch((e: unknown) => itemError(scope, index, e));
    }
  if (written.rows === undefined) return manyReply(scope, 'create', written.records, scope.config.create);
  const shown = await rowsStage(scope, 'create', written.rows);
  return scope.answers.answerSuccess(shown, scope.config.create.http_status);
}

/** Thrown inside a savepoint to roll it back when its work was refused. */
class Refused extends Error {
  override readonly name = 'FastCrudRefused';
}

/**
 * Runs `work` under a savepoint of the batch's transaction: undefined (the savepoint rolled back, the transaction
 * still usable on every database) when `work` gives undefined.
 */
async function underSavepoint<T>(
  scope: ActionScope,
  transaction: Transaction,
  work: (savepoint: Transaction) => Promise<T | undefined>,
): Promise<T | undefined> {
  try {
    return await scope.model.sequelize!.transaction({ transaction }, async (savepoint) => {
      const done = await work(savepoint);
      if (done === undefined) throw new Refused('The database refused the statement');
      return done;
    });
  } catch (thrown) {
    if (thrown instanceof Refused) return undefined;
    throw thrown;
  }
}

/** True when the error exit would answer what an insert threw as a client's fault: the items then go one by one. */
function refused(thrown: unknown): boolean {
  return isAggregate(thrown) || replyForError(thrown).status < 500;
}

/** Sequelize's AggregateError: `bulkCreate` validated each row and some failed. */
function isAggregate(thrown: unknown): boolean {
  return (
    thrown instanceof Error &&
    thrown.name === 'AggregateError' &&
    Array.isArray((thrown as { errors?: unknown }).errors)
  );
}
