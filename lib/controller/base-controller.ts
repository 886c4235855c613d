/** BaseController: what every action needs — the request, the configuration, the model, the field policy and JSend answers. */
import type { Context } from 'koa';
import type { Model, ModelStatic, Transaction } from 'sequelize';
import { DEFAULT_CONFIG } from '../core/config.js';
import { resolvePolicy } from '../core/field-policy.js';
import { statusOf } from '../core/error-codes.js';
import { fail, failItemOf, success } from '../core/jsend.js';
import type { FailItem, FastCrudConfig, FieldPolicy, Reply } from '../types.js';

/** A constructor, possibly abstract: what action mixins extend. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the mixin pattern requires `any[]` here
export type AbstractConstructor<T = object> = abstract new (...args: any[]) => T;

/**
 * The root of every controller: `crud` makes one per request with the request's context and the
 * resolved configuration. Subclasses name their model and may declare a field policy; action
 * mixins add the routes.
 * @example class Products extends Options(BaseController) { modelClassName() { return Product; } }
 */
export abstract class BaseController {
  /** Never serialized, filtered, sorted or used as an options label or value (e.g. `password`). */
  hidden: readonly string[] = [];
  /** Attributes a request body may write; undefined: all but the primary key, timestamps and soft-delete columns. */
  fillable: readonly string[] | undefined = undefined;
  /** Columns `sort` may name; undefined: every attribute not hidden. */
  sortable: readonly string[] | undefined = undefined;
  /** Columns `filter` may name; undefined: every attribute not hidden. */
  filterable: readonly string[] | undefined = undefined;
  /** Columns `filter[term]` searches, case-insensitively, any of which may match. */
  termFields: readonly string[] = [];
  /** The filter key of the term search. */
  termKey = 'term';
  /** The transaction of the write under way, for hooks that write too; undefined outside writes. */
  transaction: Transaction | undefined = undefined;

  constructor(
    /** The request this instance serves. */
    readonly ctx: Context,
    /** The resolved configuration of the `crud` call that registered this controller. */
    readonly config: FastCrudConfig = DEFAULT_CONFIG,
  ) {}

  /** The Sequelize model this controller serves (spec: the controller's model class). */
  abstract modelClassName(): ModelStatic<Model>;

  #policy: FieldPolicy | undefined;

  /**
   * The field policy of this controller's model, from its declarations; resolved once per request.
   * @example this.policy().fillable.has('price') // true
   */
  policy(): FieldPolicy {
    return (this.#policy ??= resolvePolicy(this.modelClassName(), this, this.config));
  }

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
  answerRequired(field: string, status = statusOf('required', this.config.global.validation.http_status)): Reply {
    return fail(status, [failItemOf({ _tag: 'required', field })]);
  }

  /**
   * A JSend fail reply saying a column the client named does not exist (or may not be used).
   * @example this.answerColumnNotFound('colour') // 400, [{ field: 'colour', error: 'columnNotFound', … }]
   */
  answerColumnNotFound(field: string, status = statusOf('columnNotFound', this.config.global.validation.http_status)): Reply {
    return fail(status, [failItemOf({ _tag: 'columnNotFound', field })]);
  }

  /**
   * A JSend fail reply listing what is wrong with the request, at the validation status unless told.
   * @example this.answerFail([{ field: 'page', error: 'invalidValue', message: 'page must be a positive integer' }])
   */
  answerFail(items: readonly FailItem[], status = this.config.global.validation.http_status): Reply {
    return fail(status, items);
  }

  /**
   * A 404 JSend fail for a record the `{id}` does not find.
   * @example this.answerNotFound() // 404, [{ field: 'id', error: 'recordNotFound', … }]
   */
  answerNotFound(field = 'id'): Reply {
    return fail(statusOf('recordNotFound'), [{ field, error: 'recordNotFound', message: 'The record was not found' }]);
  }
}
