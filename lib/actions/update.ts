/** The update action as a mixin: `PUT|PATCH|POST <uri>/{id}` with a JSON body. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { Reply } from '../types.js';
import { bodyData } from './body-data.js';
import { findRecord, inTransaction, serialize, type HookResult } from './records.js';

/**
 * Adds `PUT|PATCH|POST <uri>/{id}`: a partial update of fillable fields in one transaction;
 * hooks `beforeUpdateFill`, `modifyUpdateQuery`, `beforeUpdate` and `afterUpdate`.
 * @example class Products extends Update(BaseController) { modelClassName() { return Product; } }
 */
export function Update<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class UpdateAction extends Base {
    /** Serves `PUT|PATCH|POST <uri>/{id}`: 200 with the updated record, 404 when missing or soft-deleted. */
    async update(_ctx: Context): Promise<Reply> {
      const body = await bodyData(this);
      if (E.isLeft(body)) return body.left;
      const filled = (await this.beforeUpdateFill(body.right)) ?? body.right;
      return inTransaction(this, async (transaction) => {
        const record = await findRecord(this, this.config.update, 'active', (query) => this.modifyUpdateQuery(query));
        if (record === undefined) return this.answerNotFound();
        const data = (await this.beforeUpdate(record, filled)) ?? filled;
        await record.update(data, { transaction });
        await this.afterUpdate(record);
        return this.answerSuccess(serialize(this, record, this.config.update.method), this.config.update.http_status);
      });
    }

    /** Called with the client's fillable fields before anything else: return the fields to use. */
    beforeUpdateFill(_data: Record<string, unknown>): HookResult<Record<string, unknown>> {}

    /** Called with the lookup (inside the transaction) before it runs: change it or return a new one. */
    modifyUpdateQuery(_query: FindOptions): HookResult<FindOptions> {}

    /**
     * Called inside the transaction with the record and the fields about to be written.
     * @example beforeUpdate(record, data) { if (record.get('locked')) this.ctx.throw(409, 'The record is locked'); }
     */
    beforeUpdate(_record: Model, _data: Record<string, unknown>): HookResult<Record<string, unknown>> {}

    /** Called inside the transaction with the updated record; throwing rolls the update back. */
    afterUpdate(_record: Model): void | Promise<void> {}
  }
  return UpdateAction;
}
