/** The options action as a mixin: `{label, value}` pairs for select boxes (spec options rules 1–9). */
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions, Model, ModelStatic } from 'sequelize';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { buildOptionsQuery, formatOptions, undeclaredValueColumn, type OptionItem } from '../core/options-query.js';
import { singleParam } from '../core/query-params.js';
import type { OptionsError, Reply } from '../types.js';
import type { HookResult } from './records.js';

/**
 * Adds `GET <uri>/options` to a controller, with the hooks `modifyOptionsQuery` and `afterOptions`.
 * @example class Categories extends Options(BaseController) { modelClassName() { return Category; } }
 */
export function Options<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class OptionsAction extends Base {
    /** Serves `GET <uri>/options?label=<column>&value=<column>`. */
    async options(ctx: Context): Promise<Reply> {
      const model = this.modelClassName();
      const label = singleParam(ctx.query['label']);
      const value = singleParam(ctx.query['value']);
      const planned = buildOptionsQuery(model, label, value, this.config, this.policy().visible);
      if (E.isLeft(planned)) return this.answerOptionsError(planned.left);
      const undeclared = undeclaredValueColumn(model, value, this.config);
      if (undeclared !== undefined && !(await tableHasColumn(model, undeclared))) {
        return this.answerOptionsError({ _tag: 'columnNotFound', field: undeclared });
      }
      const query = (await this.modifyOptionsQuery(planned.right)) ?? planned.right;
      const rows = formatOptions((await model.findAll(query)) as unknown as Record<string, unknown>[]);
      const items = (await this.afterOptions(rows)) ?? rows;
      return this.answerSuccess(items, this.config.options.http_status);
    }

    /**
     * Called with the planned find options before they run: change them in place or return new ones.
     * @example modifyOptionsQuery(query) { return { ...query, where: { ...query.where, active: true } }; }
     */
    modifyOptionsQuery(_query: FindOptions): HookResult<FindOptions> {}

    /**
     * Called with the formatted items before the response: change them in place or return new ones.
     * @example afterOptions(items) { return items.map((i) => ({ ...i, label: String(i.label).toUpperCase() })); }
     */
    afterOptions(_items: OptionItem[]): HookResult<OptionItem[]> {}

    /** The spec's answer for a planning error, at the validation status. */
    answerOptionsError(optionsError: OptionsError): Reply {
      const status = this.config.global.validation.http_status;
      return optionsError._tag === 'required'
        ? this.answerRequired(optionsError.field, status)
        : this.answerColumnNotFound(optionsError.field, status);
    }
  }
  return OptionsAction;
}

async function tableHasColumn(model: ModelStatic<Model>, column: string): Promise<boolean> {
  const columns = await model.sequelize!.getQueryInterface().describeTable(model.getTableName());
  return Object.hasOwn(columns, column);
}
