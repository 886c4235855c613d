/**
 * BaseController: what every action needs — the request, the configuration, the model, the field policy and JSend
 * answers.
 */
import type { AggregateDeclaration } from '../core/aggregate-policy.js';
import type { Context } from 'koa';
import type { Model, ModelStatic, Transaction } from 'sequelize';
import { DEFAULT_CONFIG } from '../core/config.js';
import type { StandardSchemaV1 } from '../core/standard-schema.js';
import type { FullTextOption } from '../core/full-text.js';
import { readBody } from '../koa/body.js';
import { attachBodyReader, controllerScope, jsendAnswers } from '../resource/scope.js';
import type { FailItem, FastCrudConfig, FieldPolicy, Reply } from '../types.js';
import type { TypedController } from './typed-hooks.js';
import type { RelationDeclarations } from '../core/relation-policy.js';

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
  /**
   * Attributes a request body may write, or `'all'`: every attribute but the primary key, timestamps and
   * soft-delete columns. Required when the controller has create or update: `crud` refuses it undeclared.
   */
  fillable: readonly string[] | 'all' | undefined = undefined;
  /** Columns `sort` may name; undefined: every attribute not hidden. */
  sortable: readonly string[] | undefined = undefined;
  /** Columns `filter` may name; undefined: every attribute not hidden. */
  filterable: readonly string[] | undefined = undefined;
  /** Columns `filter[term]` searches, case-insensitively, any of which may match. */
  termFields: readonly string[] = [];
  /** The filter key of the term search. */
  termKey = 'term';
  /**
   * True, or `{ language }`: the term search finds words in a full-text index (made by `fullTextIndex`) instead of
   * LIKE's "contains" (`search.fullText` of `resource()`). Default false.
   */
  fullText: FullTextOption = false;
  /**
   * The Standard Schema (zod, valibot, arktype …) a create body must pass; its output is what gets
   * written, limited to fillable fields. Read once when `crud` registers the class, like the other declarations.
   */
  createValidateRules: StandardSchemaV1 | undefined = undefined;
  /** The Standard Schema an update body must pass (a partial one: the client sends only what changes). */
  updateValidateRules: StandardSchemaV1 | undefined = undefined;
  /**
   * Association paths clients may filter, sort (belongs-to, has-one) and include through; a path not
   * listed is closed. Undefined: none.
   * @example override relations = { category: { include: true, filterable: ['name'] }, tags: { include: true } };
   */
  relations: RelationDeclarations | undefined = undefined;
  /**
   * True: the batch routes too (create many with an array body; update, delete, soft delete and restore by filter),
   * as `resource(Model, { batch: true })`. Read once when `crud` registers the class.
   * @example override batch = true;
   */
  batch = false;
  /**
   * True: the change feed too (`GET <uri>/changes`, Server-Sent Events of every committed write), as
   * `resource(Model, { live: true })`. Read once when `crud` registers the class.
   * @example override live = true;
   */
  live = false;
  /**
   * True: the aggregates route too (`GET <uri>/aggregate`, counts and sums by group), as
   * `resource(Model, { aggregate: true })`; an object narrows the columns (`{ groupBy: ['status'], sum: ['price'] }`).
   * Read once when `crud` registers the class.
   * @example override aggregate = true;
   */
  aggregate: AggregateDeclaration | false = false;
  /** The transaction of the write under way, for hooks that write too; undefined outside writes. */
  transaction: Transaction | undefined = undefined;

  constructor(
    /** The request this instance serves. */
    readonly ctx: Context,
    /** The resolved configuration of the `crud` call that registered this controller. */
    readonly config: FastCrudConfig = DEFAULT_CONFIG,
  ) {
    // The Koa layer reads bodies; the actions mixed in get its reader through their scope.
    attachBodyReader(this, readBody);
  }

  /** The Sequelize model this controller serves (spec: the controller's model class). */
  abstract modelClassName(): ModelStatic<Model>;

  /**
   * This class with `modelClassName()` answering `model`, so hooks are typed by the model:
   * `beforeCreate(data: WriteData<Product>)`, `afterRead(record: Product)`.
   * @example class ProductController extends CrudController.for(Product) { override hidden = ['secret'] as const; }
   */
  static for<M extends Model, C extends AbstractConstructor<BaseController>>(
    this: C,
    model: ModelStatic<M>,
  ): (abstract new (ctx: Context, config?: FastCrudConfig) => TypedController<InstanceType<C>, M>) &
    Omit<C, 'prototype'> {
    abstract class ForModel extends this {
      override modelClassName(): ModelStatic<M> {
        return model;
      }
    }
    return ForModel as never;
  }

  /**
   * The field policy of this controller's model, from its declarations; resolved once per class and configuration.
   * @example this.policy().fillable.has('price') // true
   */
  policy(): FieldPolicy {
    return controllerScope(this).resource.policy;
  }

  /**
   * A JSend success reply.
   * @example this.answerSuccess(rows, 200, { count: 2 })
   */
  answerSuccess(data: unknown, code = 200, meta: Readonly<Record<string, unknown>> = {}): Reply {
    return jsendAnswers(this.config).answerSuccess(data, code, meta);
  }

  /**
   * A JSend fail reply saying a required field is missing.
   * @example this.answerRequired('label') // 400, [{ field: 'label', error: 'required', … }]
   */
  answerRequired(field: string, status = this.config.global.validation.http_status): Reply {
    return jsendAnswers(this.config).answerRequired(field, status);
  }

  /**
   * A JSend fail reply saying a column the client named does not exist (or may not be used).
   * @example this.answerColumnNotFound('colour') // 400, [{ field: 'colour', error: 'columnNotFound', … }]
   */
  answerColumnNotFound(field: string, status = this.config.global.validation.http_status): Reply {
    return jsendAnswers(this.config).answerColumnNotFound(field, status);
  }

  /**
   * A JSend fail reply listing what is wrong with the request, at the validation status unless told.
   * @example this.answerFail([{ field: 'page', error: 'invalidValue', message: 'page must be a positive integer' }])
   */
  answerFail(items: readonly FailItem[], status = this.config.global.validation.http_status): Reply {
    return jsendAnswers(this.config).answerFail(items, status);
  }

  /**
   * A 404 JSend fail for a record the `{id}` does not find.
   * @example this.answerNotFound() // 404, [{ field: 'id', error: 'recordNotFound', … }]
   */
  answerNotFound(field = 'id'): Reply {
    return jsendAnswers(this.config).answerNotFound(field);
  }
}
