/** The class form as a resource: a controller's declarations read once, into the value `resource()` makes. */
import type { Context } from 'koa';
import type { Model } from 'sequelize';
import type { BaseController } from '../controller/base-controller.js';
import type { ControllerShape } from '../core/plan-routes.js';
import { CRUD_METHODS } from '../core/route-table.js';
import type { FastCrudConfig } from '../types.js';
import type { Resource, ResourceSpec } from './resource.js';

/** A controller class `crud` can instantiate: one instance per request. */
export type ControllerClass = new (ctx: Context, config: FastCrudConfig) => object;

/** What the class form declares beside BaseController's fields: the export's columns and file name. */
interface ExportDeclarations {
  readonly csvColumns?: Readonly<Record<string, string>> | undefined;
  readonly csvFileName?: string | undefined;
}

/**
 * True for a controller class that serves a model (it has `modelClassName()`), as opposed to a
 * class of hand-written actions.
 * @example servesModel(CategoryController) // true
 */
export function servesModel(
  Controller: ControllerShape,
): Controller is ControllerClass & { prototype: BaseController } {
  return (
    'prototype' in Controller &&
    typeof (Controller.prototype as { modelClassName?: unknown }).modelClassName === 'function'
  );
}

/**
 * The resource a controller class declares: its model, field policy, term search, export
 * settings and validation schemas, read from one instance made without a request. Its hooks stay the instance methods
 * of
 * each request's controller. Declarations are read once, so they must not depend on the request.
 * @example unsafeBindResource(resourceOfController(ProductController, config), config, [], ['read'], label)
 */
export function resourceOfController(
  Controller: ControllerClass & { prototype: BaseController },
  config: FastCrudConfig,
): Resource {
  return resourceOfInstance(
    new Controller({ state: {}, query: {}, params: {}, get: () => '' } as unknown as Context, config) as BaseController,
  );
}

/**
 * The resource one controller instance declares. Declarations may depend on the request (staff
 * see more columns): `controllerScope` binds such a variant once and reuses it.
 * @example resourceOfInstance(this).spec.policy.hidden // ['passwordHash']
 */
export function resourceOfInstance(controller: BaseController): Resource {
  const declared = controller as BaseController & ExportDeclarations;
  const spec: ResourceSpec<Model> = {
    // An undeclared fillable stays undefined, so that registration refuses create and update without it.
    policy: {
      fillable: declared.fillable as readonly string[] | 'all',
      hidden: declared.hidden,
      sortable: declared.sortable,
      filterable: declared.filterable,
    },
    search: { termFields: declared.termFields, termKey: declared.termKey, fullText: declared.fullText },
    csv: { columns: declared.csvColumns, fileName: declared.csvFileName },
    validate: { create: declared.createValidateRules, update: declared.updateValidateRules },
    ...(declared.relations !== undefined && { relations: declared.relations }),
    ...(declared.batch === true && { batch: true }),
    ...(declared.live === true && { live: true }),
    ...(declared.aggregate !== false && { aggregate: declared.aggregate }),
  };
  const prototype = Object.getPrototypeOf(controller) as Record<string, unknown>;
  const actions = CRUD_METHODS.filter((method) => typeof prototype[method] === 'function');
  const name = controller.constructor.name;
  return Object.freeze({ kind: 'resource', name, model: controller.modelClassName(), spec, actions });
}
