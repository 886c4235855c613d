/**
 * Shell helpers the batch actions share: the records a filter matches, locked, within `batch.max_records`; one reply
 * for many records; a failure that rolls the batch back and answers a reply.
 */
import * as E from 'fp-ts/lib/Either.js';
import { Op, type FindOptions, type Model, type ModelStatic, type Transaction } from 'sequelize';
import { compileSearch } from '../compile/search.js';
import { filterProblem, itemFailures, matchProblem, planFilterProblem } from '../core/batch-plan.js';
import { errorFieldsOf } from '../core/constraint-fields.js';
import { replyForError } from '../core/error-reply.js';
import { fail } from '../core/jsend.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';
import type { CrudMethod, Reply } from '../types.js';
import { inTransaction, serializerFor } from './records.js';
import { parseQuery, planSearchRequest, relationSettings } from './search.js';
import { queryStage, rowsStage, type QueryHook } from './stages.js';

/** Thrown inside a batch's transaction to roll it back and answer `reply` (see `inBatch`). */
export class BatchFailure extends Error {
  override readonly name = 'FastCrudBatchFailure';
  constructor(readonly reply: Reply) {
    super('A batch item failed');
  }
}

/**
 * Runs a batch in one write transaction (`inTransaction`): a `BatchFailure` thrown inside rolls every write back and
 * its reply is answered; anything else thrown goes to the error exit, rolled back too.
 * `action` names the write to the plugins' `committed` stage, as the single action's.
 * @example return inBatch(scope, 'update', async (transaction) => { … });
 */
export async function inBatch(
  scope: ActionScope,
  action: CrudMethod,
  work: (transaction: Transaction) => Promise<Reply>,
): Promise<Reply> {
  try {
    return await inTransaction(scope, action, work);
  } catch (thrown) {
    if (thrown instanceof BatchFailure) return thrown.reply;
    throw thrown;
  }
}

/**
 * Rethrows what item `index` of a batch threw as a `BatchFailure` whose fail items name their fields after the index
 * (`1.sku`), when the error exit would answer it as a client's fault (a 4xx fail: validation, a unique or foreign-key
 * clash, a hook's `ctx.throw(409)`); anything else is rethrown as it is.
 * @example try { await model.create(data, { transaction }); } catch (thrown) { itemError(scope, 1, thrown); }
 */
export function itemError(scope: ActionScope, index: number, thrown: unknown): never {
  if (thrown instanceof BatchFailure) throw thrown;
  const fields = errorFieldsOf(scope.model.getAttributes(), scope.resource.policy.visible);
  const reply = replyForError(thrown, scope.config.global.validation.http_status, fields);
  if (reply.status >= 500 || reply.body.status !== 'fail') throw thrown;
  throw new BatchFailure(fail(reply.status, itemFailures(index, reply.body.data)));
}

/**
 * The fail reply of a batch `PATCH` or `DELETE` whose query string is malformed or names no filter; undefined when
 * it may go on. Checked before the body is read.
 * @example const refused = batchQueryProblem(scope); if (refused) return refused;
 */
export function batchQueryProblem(scope: ActionScope): Reply | undefined {
  const parsed = parseQuery(scope.ctx.querystring);
  if (E.isLeft(parsed)) return scope.answers.answerFail([parsed.left]);
  const missing = filterProblem(parsed.right);
  return missing === undefined ? undefined : scope.answers.answerFail([missing]);
}

/** Which records a batch acts on: those search would list, only active ones, or only soft-deleted ones. */
export type BatchVisibility = 'search' | 'active' | 'trashed';

/**
 * The records the request's `filter[...]` matches, as search matches them (its filter language, field policy,
 * `modifyFilters`, the plugins and the row scopes), narrowed to `visibility`, after the action's modify-query hook;
 * read inside the batch's transaction and locked (`FOR UPDATE`), in primary-key order; with `keysOnly`, only their
 * primary keys are read. Left the fail reply: a bad filter, or a `tooManyRows` match past `batch.max_records`.
 * @example const found = await matchingRecords(scope, 'update', 'active', 'modifyUpdateQuery');
 */
export async function matchingRecords(
  scope: ActionScope,
  action: 'update' | 'delete' | 'softDelete' | 'restore',
  visibility: BatchVisibility,
  hook: QueryHook,
  keysOnly = false,
): Promise<E.Either<Reply, Model[]>> {
  const { model, resource, config } = scope;
  const planned = await planSearchRequest(scope, false);
  if (E.isLeft(planned)) return planned;
  const unfiltered = planFilterProblem(planned.right);
  if (unfiltered !== undefined) return E.left(scope.answers.answerFail([unfiltered]));
  const settings = relationSettings(scope, await rowScopesOf(scope, action));
  const deletedAt = visibility === 'trashed' ? undefined : resource.deletedAt;
  const compiled = compileSearch(model, { ...planned.right, order: [], include: undefined }, deletedAt, settings);
  const query = await queryStage(scope, action, hook, visible(compiled, visibility, resource.deletedAt));
  const max = config.batch.max_records;
  const transaction = scope.transaction ?? null;
  const keys = model.primaryKeyAttributes;
  const order: FindOptions['order'] = keys.map((key) => [key, 'ASC']);
  const joins = query.include !== undefined && (!Array.isArray(query.include) || query.include.length > 0);
  let records: Model[];
  if (!joins || keys.length !== 1) {
    const attributes = keysOnly && query.attributes === undefined ? { attributes: [...keys] } : {};
    records = await model.findAll({ ...query, ...attributes, order, limit: max + 1, transaction, lock: true });
  } else {
    // A join cannot be locked on every database: the matching keys first, then their rows, locked.
    const key = keys[0]!;
    const found = await model.findAll({ ...query, attributes: [key], order, limit: max + 1, transaction });
    if (found.length > max) return E.left(scope.answers.answerFail([matchProblem(found.length, max)!]));
    const where = { [key]: { [Op.in]: found.map((record) => record.get(key)) } };
    const attributes = keysOnly ? { attributes: [...keys] } : {};
    records = await model.findAll({ where, ...attributes, paranoid: false, order, transaction, lock: true });
  }
  const tooMany = matchProblem(records.length, max);
  return tooMany === undefined ? E.right(records) : E.left(scope.answers.answerFail([tooMany]));
}

/** The compiled search kept to the records a batch acts on (search's own rule for `'search'`). */
function visible(query: FindOptions, visibility: BatchVisibility, deletedAt: string | undefined): FindOptions {
  if (visibility === 'search' || deletedAt === undefined) return query;
  const { paranoid: _paranoid, ...rest } = query;
  const marker = visibility === 'active' ? { [deletedAt]: null } : { [deletedAt]: { [Op.ne]: null } };
  return {
    ...rest,
    where: { [Op.and]: [query.where ?? {}, marker] },
    ...(visibility === 'trashed' && { paranoid: false }),
  };
}

/**
 * The reply of a batch that wrote `records`: each read back as a read shows it (one query; not when `fresh`, records
 * the database just returned whole), serialized with the action's method, through the plugins' `rows` stage, in the
 * order given.
 * @example return manyReply(scope, 'update', records, scope.config.update);
 */
export async function manyReply(
  scope: ActionScope,
  action: 'create' | 'update' | 'softDelete' | 'restore',
  records: readonly Model[],
  settings: { method: string; http_status: number },
  fresh = false,
): Promise<Reply> {
  const shown = fresh ? [...records] : await readBackAll(scope, records);
  const rows = await rowsStage(scope, action, shown.map(serializerFor(scope, settings.method)));
  return scope.answers.answerSuccess(rows, settings.http_status);
}

/**
 * Written records as the database now holds them, read again by primary key in one query inside the write's
 * transaction (the default scope applies, soft-deleted rows too); a record the read does not find stays as written.
 */
async function readBackAll(scope: ActionScope, records: readonly Model[]): Promise<Model[]> {
  const model = scope.model;
  const [key, ...more] = model.primaryKeyAttributes;
  if (key === undefined || more.length > 0 || records.length === 0) return [...records];
  const ids = records.map((record) => record.get(key));
  if (ids.some((id) => id === undefined || id === null)) return [...records];
  const found = await model.findAll({
    where: { [key]: { [Op.in]: ids } },
    transaction: scope.transaction ?? null,
    paranoid: false,
  });
  const byId = new Map(found.map((record) => [String(record.get(key)), record]));
  return records.map((record) => byId.get(String(record.get(key))) ?? record);
}

/** The Sequelize hooks that run per instance on a write: with any of them, a batch writes record by record. */
const INSTANCE_HOOKS = [
  'beforeValidate',
  'afterValidate',
  'beforeCreate',
  'afterCreate',
  'beforeUpdate',
  'afterUpdate',
  'beforeSave',
  'afterSave',
] as const;

/**
 * True when the model's writes must go record by record to keep Sequelize's semantics: it has instance hooks (its own
 * or the Sequelize instance's), a version column, or a primary key that is not one column.
 * @example if (writesOneByOne(scope.model)) await record.save({ transaction });
 */
export function writesOneByOne(model: ModelStatic<Model>): boolean {
  const hooked = INSTANCE_HOOKS.some((name) => model.hasHook(name) || model.sequelize!.hasHook(name));
  const versioned = Boolean((model.options as { version?: unknown }).version);
  return hooked || versioned || model.primaryKeyAttributes.length !== 1;
}
