/** The create action as a mixin: `POST <uri>` with a JSON body. */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import type { Reply } from '../types.js';
import { bodyData } from './body-data.js';
import { inTransaction, serialize, type HookResult } from './records.js';

/**
 * Adds `POST <uri>`: fillable fields of the body, validated by the model, written in one
 * transaction; hooks `beforeCreateFill`, `beforeCreate` and `afterCreate`.
 * @example class Products extends Create(BaseController) { modelClassName() { return Product; } }
 */
export function Create<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class CreateAction extends Base {
    /** Serves `POST <uri>`: 201 with the created record. */
    async create(_ctx: Context): Promise<Reply> {
      const body = await bodyData(this);
      if (E.isLeft(body)) return body.left;
      const filled = (await this.beforeCreateFill(body.right)) ?? body.right;
      return inTransaction(this, async (transaction) => {
        const data = (await this.beforeCreate(filled)) ?? filled;
        const record = await this.modelClassName().create(data, { transaction });
        await this.afterCreate(record);
        return this.answerSuccess(serialize(this, record, this.config.create.method), this.config.create.http_status);
      });
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
     * @example async afterCreate(record) { await AuditLog.create({ action: 'create' }, { transaction: this.transaction }); }
     */
    afterCreate(_record: Model): void | Promise<void> {}
  }
  return CreateAction;
}
