/** The create action: `POST <uri>` with a JSON body, as a lifecycle and as a mixin. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { findFieldOf } from '../core/find-field.js';
import { withHeader } from '../core/jsend.js';
import { recordLocation } from '../core/record-location.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import { bodyData } from './body-data.js';
import { checkReferences } from './references.js';
import { inTransaction, recordReply } from './records.js';
import { relationalFailReply, relationalStep } from './relation-writes.js';
import { dataStage } from './stages.js';
import { noteWritten } from '../execute/live-outbox.js';

/**
 * Serves `POST <uri>`: fillable fields of the body, validated by the model, written in one
 * transaction with the associations the body writes (`relationalStep`); hooks `beforeCreateFill`,
 * `beforeCreate` and `afterCreate`; 201 with the record, and a `Location` header naming its read URL
 * when `crud` registered read.
 * @example const reply = await createAction(resourceScope(bound, ctx));
 */
export async function createAction(scope: ActionScope): Promise<Reply> {
  const body = await bodyData(scope, 'create');
  if (E.isLeft(body)) return body.left;
  const filled = (await scope.hook('beforeCreateFill', body.right)) ?? body.right;
  const written = await inTransaction(scope, 'create', async (transaction) => {
    const staged = await dataStage(scope, 'create', (await scope.hook('beforeCreate', filled)) ?? filled);
    const { data, write } = await relationalStep(scope, 'create', staged, transaction);
    await checkReferences(scope.model, data, await rowScopesOf(scope, 'create'), transaction);
    const created = await scope.model.create(data, { transaction });
    noteWritten(transaction, [created]);
    await write(created);
    await scope.hook('afterCreate', created);
    return { record: created, reply: await recordReply(scope, 'create', created, scope.config.create) };
  }).catch(relationalFailReply);
  if (!('record' in written)) return written;
  const { record, reply } = written;
  const location = reply.status < 300 ? locationOf(scope, record) : undefined;
  return location === undefined ? reply : withHeader(reply, 'Location', location);
}

/**
 * The created record's read URL, when `crud` registered read for the resource: the path the
 * create was posted to (so the router's prefix and any mount are kept), then the value of read's
 * find field.
 */
function locationOf(scope: ActionScope, record: Model): string | undefined {
  if (!scope.resource.routed.includes('read')) return undefined;
  const findField = findFieldOf(scope.model, scope.config, 'read');
  if (findField === undefined) return undefined;
  const collection = new URL(scope.ctx.originalUrl, 'http://localhost').pathname;
  return recordLocation(collection, record.get(findField.attribute));
}

/**
 * Adds `POST <uri>` and its hooks to a controller class.
 * @example class Products extends Create(BaseController) { modelClassName() { return Product; } }
 */
export function Create<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class CreateAction extends Base {
    /** Serves `POST <uri>`: 201 with the created record and its read URL in `Location`. */
    async create(_ctx: Context): Promise<Reply> {
      return createAction(controllerScope(this));
    }

    /**
     * Called with the client's fillable fields before anything else: return the fields to use.
     * @example beforeCreateFill(data) { return { ...data, slug: slugify(String(data.name)) }; }
     */
    beforeCreateFill(_data: Record<string, unknown>): HookResult<Record<string, unknown>> {}

    /**
     * Called inside the transaction (`this.transaction`) just before the insert.
     * @example beforeCreate(data) { return { ...data, ownerId: this.ctx.state.user.id }; }
     */
    beforeCreate(_data: Record<string, unknown>): HookResult<Record<string, unknown>> {}

    /**
     * Called inside the transaction with the created record; throwing rolls the insert back.
     * @example
     * async afterCreate(record) {
     *   await AuditLog.create({ action: 'create' }, { transaction: this.transaction });
     * }
     */
    afterCreate(_record: Model): void | Promise<void> {}
  }
  return CreateAction;
}
