/** BaseController: what every action needs — the request, the configuration, the model and JSend answers. */
import type { Context } from 'koa';
import type { Model, ModelStatic } from 'sequelize';
import { DEFAULT_CONFIG } from '../core/config.js';
import { fail, failItemOf, success } from '../core/jsend.js';
import type { FastCrudConfig, Reply } from '../types.js';

/** A constructor, possibly abstract: what action mixins extend. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the mixin pattern requires `any[]` here
export type AbstractConstructor<T = object> = abstract new (...args: any[]) => T;

/**
 * The root of every controller: `crud` makes one per request with the request's context and the
 * resolved configuration. Subclasses name their model; action mixins add the routes.
 * @example class Products extends Options(BaseController) { modelClassName() { return Product; } }
 */
export abstract class BaseController {
  constructor(
    /** The request this instance serves. */
    readonly ctx: Context,
    /** The resolved configuration of the `crud` call that registered this controller. */
    readonly config: FastCrudConfig = DEFAULT_CONFIG,
  ) {}

  /** The Sequelize model this controller serves (spec: the controller's model class). */
  abstract modelClassName(): ModelStatic<Model>;

  /**
   * A JSend success reply.
   * @example this.answerSuccess(rows, 200, { count: 2 })
   */
  answerSuccess(data: unknown, code = 200, meta: Readonly<Record<string, unknown>> = {}): Reply {
    return success(data, code, meta);
  }

  /**
   * A JSend fail reply saying a required field is missing.
   * @example this.answerRequired('label') // 400, [{ field: 'label', error: 'required', … }]
   */
  answerRequired(field: string, status = this.config.global.validation.http_status): Reply {
    return fail(status, [failItemOf({ _tag: 'required', field })]);
  }

  /**
   * A JSend fail reply saying a column the client named does not exist (or may not be used).
   * @example this.answerColumnNotFound('colour') // 400, [{ field: 'colour', error: 'columnNotFound', … }]
   */
  answerColumnNotFound(field: string, status = this.config.global.validation.http_status): Reply {
    return fail(status, [failItemOf({ _tag: 'columnNotFound', field })]);
  }
}
