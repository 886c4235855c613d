/** Shell helpers the single-record actions share: find `{id}`, serialize, run a write in one transaction. */
import type { Context } from 'koa';
import type { Includeable, Model, Transaction } from 'sequelize';
import { compileLookup } from '../compile/lookup.js';
import { SORT_ALIAS } from '../compile/search.js';
import { findFieldOf, type RecordAction } from '../core/find-field.js';
import { lookupFor, type Scope } from '../core/record-plan.js';
import type { RelationModel } from '../core/relation-paths.js';
import { visibleRecord } from '../core/relation-policy.js';
import { pickFields } from '../core/sparse-fields.js';
import type { ActionScope } from '../resource/scope.js';
import { writeTransactionId, type Placement } from '../execute/consistent.js';
import type { CrudMethod, FieldTree } from '../types.js';
import { withRecordTag } from './record-tag.js';
import { committedStage, queryStage, rowsStage, type QueryHook } from './stages.js';
import { serializeWrites, writeTransactionOptions } from './sqlite-writes.js';
import { withholdDeepRecord } from './withheld.js';
import { changeKindOf } from '../core/live-feed.js';
import { announceChange } from '../execute/live-hub.js';
import { changeWrite, pruneChanges, takeWritten, type ChangeRow } from '../execute/live-outbox.js';
import { inWriteTransaction } from '../execute/write-transaction.js';
import { rowScopesOf } from '../resource/row-scopes.js';

export type { HookResult } from '../resource/resource.js';

/** No placement: a read runs where Sequelize sends it. */
const NOWHERE: Placement = {};

/**
 * Finds the record `ctx.params.id` names in the action's find field, after its modify-query hook
 * and the plugins, with `include`'s associations loaded, and `placement`'s transaction or useMaster (readYourWrites);
 * undefined when none.
 * @example const record = await findRecord(scope, 'read', 'active', 'modifyReadQuery');
 */
export async function findRecord(
  scope: ActionScope,
  action: RecordAction,
  visibility: Scope,
  hook: QueryHook,
  include: Includeable[] = [],
  placement: Placement = NOWHERE,
): Promise<Model | undefined> {
  const { model, config, resource } = scope;
  const id = (scope.ctx as Context & { params?: Record<string, string> }).params?.['id'] ?? '';
  const findField = findFieldOf(model, config, action);
  const lookup = findField && lookupFor(model, findField.attribute, id, visibility, resource.deletedAt);
  if (lookup === undefined) return undefined;
  const query = { ...compileLookup(lookup, scope.transaction), ...(include.length > 0 && { include }) };
  const staged = await queryStage(scope, action, hook, query);
  return (await model.findOne(placement === NOWHERE ? staged : { ...staged, ...placement })) ?? undefined;
}

/**
 * A record as a reply shows it: the model method the action's config names, minus hidden fields,
 * those of included associations too.
 * @example serialize(scope, record, scope.config.read.method)
 */
export function serialize(scope: ActionScope, record: Model, method: string): Record<string, unknown> {
  return serializerFor(scope, method)(record);
}

/**
 * `serialize` for many records of one request: the serializer is looked up per record, the
 * policy (with its relations) once. A stored JSON value deeper than `global.max_depth`, the record's or an included
 * record's, is withheld (null, noted in `meta.withheld`).
 * @example const rows = records.map(serializerFor(scope, scope.config.search.method));
 */
export function serializerFor(scope: ActionScope, method: string): (record: Model) => Record<string, unknown> {
  const model = scope.model as unknown as RelationModel;
  const { policy } = scope.resource;
  const max = scope.config.global.max_depth;
  return (record) => {
    // The values a page selected only to sort by (`SORT_ALIAS`) are not the record's.
    for (const key of Object.keys(record.dataValues as object))
      if (key.startsWith(SORT_ALIAS)) delete (record.dataValues as Record<string, unknown>)[key];
    // Before the serializer: toJSON clones every value recursively, included records' too.
    withholdDeepRecord(scope.ctx, scope.model, record, max);
    const serializer = (record as unknown as Record<string, unknown>)[method];
    if (typeof serializer !== 'function')
      throw new TypeError(`The model has no method ${method} to serialize a record with`);
    return visibleRecord(model, serializer.call(record) as Record<string, unknown>, policy);
  };
}

/**
 * One record's reply: serialized (limited to a read's sparse fieldset, `fields`), through the plugins' `rows` stage,
 * with the action's status and the `ETag` of the record as the reply shows it (`rowTag`).
 * A write's record (create, update, softDelete, restore) is read back first (`readBack`), so the
 * reply holds what a read of it returns.
 * @example return recordReply(scope, 'read', record, scope.config.read);
 */
export async function recordReply(
  scope: ActionScope,
  action: RecordAction | 'create',
  record: Model,
  settings: { method: string; http_status: number },
  fields?: FieldTree,
) {
  const shown = action === 'read' ? record : await readBack(scope, record);
  const serialized = serialize(scope, shown, settings.method);
  const [row] = await rowsStage(scope, action, [fields === undefined ? serialized : pickFields(serialized, fields)]);
  return withRecordTag(scope, scope.answers.answerSuccess(row, settings.http_status), row);
}

/**
 * A written record as the database now holds it: read again by its primary key, inside the write's
 * transaction, as a read finds it (the model's default scope applies; soft-deleted rows too). The
 * driver, not the value sent, decides each value: a DECIMAL is the text PostgreSQL returns on every
 * read, a DATETIME is MariaDB's stored precision, a default or a trigger's value is filled in.
 * The written record when the default scope no longer finds it, or when the model has no primary key.
 * @example const fresh = await readBack(scope, record);
 */
export async function readBack(scope: ActionScope, record: Model): Promise<Model> {
  const where = record.where() as Record<string, unknown>;
  // No primary key, or one not known yet: nothing names the row alone.
  if (Object.keys(where).length === 0 || Object.values(where).some((value) => value === undefined || value === null))
    return record;
  return (await scope.model.findOne({ where, transaction: scope.transaction ?? null, paranoid: false })) ?? record;
}

/**
 * The change feed's event of a live resource's write, to write last in its transaction: the find-field values of the
 * records the action noted (`noteWritten`), and for each the values its model's row scopes name. Undefined when it
 * noted none (a 404, a failed precondition).
 */
async function changeOf(
  scope: ActionScope,
  action: CrudMethod,
  transaction: Transaction,
): Promise<ChangeRow | undefined> {
  const records = takeWritten(transaction);
  const kind = changeKindOf(action);
  if (records.length === 0 || kind === undefined) return undefined;
  const findField = findFieldOf(scope.model, scope.config, 'read');
  const key = findField?.attribute ?? scope.model.primaryKeyAttribute;
  const attributes = ((await rowScopesOf(scope, action)).get(scope.model) ?? []).map((rowScope) => rowScope.attribute);
  const scopes =
    attributes.length === 0
      ? null
      : records.map((record) => Object.fromEntries(attributes.map((name) => [name, record.get(name)])));
  const ids = records.map((record) => String(record.get(key)));
  return { resource: scope.model.name, kind, ids, scopes };
}

/**
 * Runs a write in one transaction, exposed to hooks as the scope's (and controller's)
 * `transaction`; anything thrown inside rolls the whole write back. On SQLite the writes of one
 * database run one at a time (`serializeWrites`), so a burst of requests queues instead of failing,
 * each as `BEGIN IMMEDIATE` (`writeTransactionOptions`). Once it committed, the plugins' `committed`
 * stage hears of it as `action` (with the transaction's id on PostgreSQL with read replicas, asked before
 * the commit and only when a plugin has that stage): a batch write names its own action the same way. A live
 * resource's write also writes its change event last in the transaction (`changeOf`), on PostgreSQL in the COMMIT's
 * round trip (`inWriteTransaction`), announced once it committed.
 * @example return inTransaction(scope, 'update', async (transaction) => { … })
 */
export async function inTransaction<T>(
  scope: ActionScope,
  action: CrudMethod,
  work: (transaction: Transaction) => Promise<T>,
): Promise<T> {
  const sequelize = scope.model.sequelize!;
  const notify = scope.resource.plugins.some((plugin) => plugin.committed !== undefined);
  let transactionId: string | undefined;
  let changed = false;
  const result = await serializeWrites(sequelize, () =>
    inWriteTransaction(sequelize, writeTransactionOptions(sequelize), scope.resource.live, async (transaction) => {
      scope.transaction = transaction;
      try {
        const value = await work(transaction);
        const change = scope.resource.live ? await changeOf(scope, action, transaction) : undefined;
        if (notify) transactionId = await writeTransactionId(sequelize, transaction);
        changed = change !== undefined;
        return { value, last: change === undefined ? undefined : changeWrite(sequelize, change) };
      } finally {
        scope.transaction = undefined;
      }
    }),
  );
  if (changed) {
    announceChange(sequelize);
    pruneChanges(sequelize, scope.config.live.retention_s);
  }
  if (notify) await committedStage(scope, action, { transactionId, committedAt: Date.now() });
  return result;
}
