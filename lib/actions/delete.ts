/** The delete action as a mixin: `DELETE <uri>/{id}`. */
import type { Context } from 'koa';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { Reply } from '../types.js';
import { findRecord, inTransaction, type HookResult } from './records.js';

/**
 * Adds `DELETE <uri>/{id}`: removes the row (a `paranoid` model soft-deletes, as Sequelize does),
 * 200 with `data: null`; hooks `modifyDeleteQuery`, `beforeDelete` and `afterDelete`.
 * @example class Products extends Delete(BaseController) { modelClassName() { return Product; } }
 */
export function Delete<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class DeleteAction extends Base {
    /** Serves `DELETE <uri>/{id}`; a row soft-deleted by a plain deleted-at column can be deleted for good. */
    async delete(_ctx: Context): Promise<Reply> {
      return inTransaction(this, async (transaction) => {
        const record = await findRecord(this, this.config.delete, 'any', (query) => this.modifyDeleteQuery(query));
        if (record === undefined) return this.answerNotFound();
        await this.beforeDelete(record);
        await record.destroy({ transaction });
        await this.afterDelete(record);
        return this.answerSuccess(null, this.config.delete.http_status);
      });
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
