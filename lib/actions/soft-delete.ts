/** The softDelete and restore actions as mixins: `DELETE <uri>/{id}/soft` and `PATCH|PUT <uri>/{id}/restore`. */
import type { Context } from 'koa';
import type { FindOptions, Model } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { findColumn } from '../core/columns.js';
import type { Reply } from '../types.js';
import { deletedAtOf, findRecord, inTransaction, serialize, type HookResult } from './records.js';

/** The soft-delete columns of the controller's model (attribute names), or undefined when it has no deleted-at column. */
function softDeleteColumns(controller: BaseController): { deletedAt: string; deletedBy: string | undefined; paranoid: boolean } | undefined {
  const model = controller.modelClassName();
  const deletedAt = deletedAtOf(controller);
  if (deletedAt === undefined) return undefined;
  const deletedBy = findColumn(model, controller.config.soft_delete.deleted_by_field)?.attribute;
  return { deletedAt, deletedBy, paranoid: (model as unknown as { options: { paranoid?: boolean } }).options.paranoid === true };
}

/**
 * Adds `DELETE <uri>/{id}/soft`: sets the deleted-at column to now and, when the model has it,
 * the deleted-by column to `softDeleteUserId(ctx)`; hooks `modifySoftDeleteQuery`,
 * `beforeSoftDelete` and `afterSoftDelete`. Works with a plain column and with `paranoid` models.
 * @example class Products extends SoftDelete(BaseController) { modelClassName() { return Product; } }
 */
export function SoftDelete<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class SoftDeleteAction extends Base {
    /** Serves `DELETE <uri>/{id}/soft`: 200 with the record; 404 when missing or already soft-deleted. */
    async softDelete(ctx: Context): Promise<Reply> {
      const columns = softDeleteColumns(this);
      if (columns === undefined) return this.answerColumnNotFound(this.config.soft_delete.deleted_at_field);
      const { deletedAt, deletedBy, paranoid } = columns;
      return inTransaction(this, async (transaction) => {
        const record = await findRecord(this, this.config.soft_delete, 'active', (query) => this.modifySoftDeleteQuery(query));
        if (record === undefined) return this.answerNotFound();
        await this.beforeSoftDelete(record);
        const marks = deletedBy === undefined ? {} : { [deletedBy]: await this.softDeleteUserId(ctx) };
        // A paranoid model owns its deleted-at column: Sequelize's destroy() sets it. record.update()
        // saves only the keys it is given, so a plain model's marks go in one call.
        if (paranoid) await record.set(marks).save({ transaction }).then(() => record.destroy({ transaction }));
        else await record.update({ ...marks, [deletedAt]: new Date() }, { transaction });
        await this.afterSoftDelete(record);
        return this.answerSuccess(serialize(this, record, this.config.soft_delete.method), this.config.soft_delete.http_status);
      });
    }

    /**
     * Who is soft-deleting, for the deleted-by column.
     * @example softDeleteUserId(ctx) { return ctx.state.session.userId; }
     */
    softDeleteUserId(ctx: Context): unknown {
      return (ctx.state as { user?: { id?: unknown } }).user?.id ?? null;
    }

    /** Called with the lookup (inside the transaction) before it runs: change it or return a new one. */
    modifySoftDeleteQuery(_query: FindOptions): HookResult<FindOptions> {}

    /** Called inside the transaction before the row is marked; throw to keep it. */
    beforeSoftDelete(_record: Model): void | Promise<void> {}

    /** Called inside the transaction after the row was marked; throwing undoes the mark. */
    afterSoftDelete(_record: Model): void | Promise<void> {}
  }
  return SoftDeleteAction;
}

/**
 * Adds `PATCH|PUT <uri>/{id}/restore`: finds only soft-deleted records and clears the deleted-at
 * and deleted-by columns; hooks `modifyRestoreQuery`, `beforeRestore` and `afterRestore`.
 * @example class Products extends Restore(BaseController) { modelClassName() { return Product; } }
 */
export function Restore<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class RestoreAction extends Base {
    /** Serves `PATCH|PUT <uri>/{id}/restore`: 200 with the record; 404 unless it is soft-deleted. */
    async restore(_ctx: Context): Promise<Reply> {
      const columns = softDeleteColumns(this);
      if (columns === undefined) return this.answerColumnNotFound(this.config.soft_delete.deleted_at_field);
      const { deletedAt, deletedBy, paranoid } = columns;
      return inTransaction(this, async (transaction) => {
        const record = await findRecord(this, this.config.restore, 'trashed', (query) => this.modifyRestoreQuery(query));
        if (record === undefined) return this.answerNotFound();
        await this.beforeRestore(record);
        // A paranoid model clears its own deleted-at column in restore(); the deleted-by column is ours.
        // record.update() saves only the keys it is given, so a plain model's marks go in one call.
        const marks = deletedBy === undefined ? {} : { [deletedBy]: null };
        if (paranoid) await record.set(marks).save({ transaction }).then(() => record.restore({ transaction }));
        else await record.update({ ...marks, [deletedAt]: null }, { transaction });
        await this.afterRestore(record);
        return this.answerSuccess(serialize(this, record, this.config.restore.method), this.config.restore.http_status);
      });
    }

    /** Called with the lookup (inside the transaction) before it runs: change it or return a new one. */
    modifyRestoreQuery(_query: FindOptions): HookResult<FindOptions> {}

    /** Called inside the transaction before the marks are cleared. */
    beforeRestore(_record: Model): void | Promise<void> {}

    /** Called inside the transaction after the marks were cleared; throwing undoes the restore. */
    afterRestore(_record: Model): void | Promise<void> {}
  }
  return RestoreAction;
}
