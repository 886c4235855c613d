/** The read action: `GET <uri>/{id}`, as a lifecycle and as a mixin. */
import type { Context } from 'koa';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { findRecord, recordReply } from './records.js';

/**
 * Serves `GET <uri>/{id}`: the record, or 404 when it is missing or soft-deleted; hooks
 * `modifyReadQuery` and `afterRead`.
 * @example const reply = await readAction(resourceScope(bound, ctx));
 */
export async function readAction(scope: ActionScope): Promise<Reply> {
  const record = await findRecord(scope, 'read', 'active', 'modifyReadQuery');
  if (record === undefined) return scope.answers.answerNotFound();
  await scope.hook('afterRead', record);
  return recordReply(scope, 'read', record, scope.config.read);
}

/**
 * Adds `GET <uri>/{id}` and its hooks to a controller class.
 * @example class Products extends Read(BaseController) { modelClassName() { return Product; } }
 */
export function Read<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class ReadAction extends Base {
    /** Serves `GET <uri>/{id}`. */
    async read(_ctx: Context): Promise<Reply> {
      return readAction(controllerScope(this));
    }

    /**
     * Called with the lookup before it runs: change it in place or return a new one.
     * @example modifyReadQuery(query) { return { ...query, include: [{ association: 'category' }] }; }
     */
    modifyReadQuery(_query: FindOptions): HookResult<FindOptions> {}

    /** Called with the found record before the response. */
    afterRead(_record: Model): void | Promise<void> {}
  }
  return ReadAction;
}
