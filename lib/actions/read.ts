/** The read action as a mixin: `GET <uri>/{id}`. */
import type { Context } from 'koa';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { Reply } from '../types.js';
import { findRecord, serialize, type HookResult } from './records.js';

/**
 * Adds `GET <uri>/{id}`: the record, or 404 when it is missing or soft-deleted; hooks
 * `modifyReadQuery` and `afterRead`.
 * @example class Products extends Read(BaseController) { modelClassName() { return Product; } }
 */
export function Read<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class ReadAction extends Base {
    /** Serves `GET <uri>/{id}`. */
    async read(_ctx: Context): Promise<Reply> {
      const record = await findRecord(this, this.config.read, 'active', (query) => this.modifyReadQuery(query));
      if (record === undefined) return this.answerNotFound();
      await this.afterRead(record);
      return this.answerSuccess(serialize(this, record, this.config.read.method), this.config.read.http_status);
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
