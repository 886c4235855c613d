/**
 * The handler behind a resource's routes: a `resource()` runs the action table, a class makes one controller per
 * request.
 */
import type { Context } from 'koa';
import type { Model, ModelStatic } from 'sequelize';
import type { ErrorFields } from '../core/constraint-fields.js';
import { watchQueries } from '../execute/deadline.js';
import { unsafeBindResource } from '../resource/bind.js';
import { registerRowScopes } from '../resource/row-scopes.js';
import { resourceOfController, servesModel, type ControllerClass } from '../resource/controller-resource.js';
import { isResource, type Resource } from '../resource/resource.js';
import { attachResource, resourceScope } from '../resource/scope.js';
import type { CrudMethod, CrudPlugin, FastCrudConfig, Reply } from '../types.js';
import { ACTIONS } from './action-table.js';
import { readBody } from './body.js';

/** What `crud` registers: a `resource()` value or a controller class (SPEC.md's form). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a resource of any model
export type CrudTarget = ControllerClass | Resource<any>;

/**
 * Serves one action of a registered resource for one request; `fields` are its model's columns
 * and visible attributes, for the error exit to name constraint fields (absent without a model).
 */
export type RouteHandler = ((ctx: Context, method: CrudMethod) => Promise<Reply | undefined>) & {
  readonly fields?: ErrorFields;
};

/**
 * The handler of a registered target, its resource bound and checked once here, its Sequelize
 * instance watched for the requests' deadlines (`watchQueries`), its plugins' row scopes
 * registered for its model (`registerRowScopes`): throws (see
 * `unsafeBindResource`) when the declarations are wrong. A class of hand-written actions (no
 * `modelClassName()`) is only instantiated and called.
 * @example
 * const handler = unsafeRouteHandler(ProductController, config, [], ['search'], "crud('products', ProductController)");
 */
export function unsafeRouteHandler(
  target: CrudTarget,
  config: FastCrudConfig,
  plugins: readonly CrudPlugin[],
  methods: readonly CrudMethod[],
  label: string,
): RouteHandler {
  if (isResource(target)) {
    const bound = unsafeBindResource(target, config, plugins, methods, label);
    watchQueries(bound.model.sequelize!);
    registerRowScopes(bound);
    const serve = (ctx: Context, method: CrudMethod) => ACTIONS[method](resourceScope(bound, ctx, readBody));
    return Object.assign(serve, { fields: errorFields(bound.model, bound.policy.visible) });
  }
  if (servesModel(target)) {
    const bound = unsafeBindResource(resourceOfController(target, config), config, plugins, methods, label);
    watchQueries(bound.model.sequelize!);
    registerRowScopes(bound);
    const serve = async (ctx: Context, method: CrudMethod) =>
      call(attachResource(new target(ctx, config), bound), method, ctx);
    return Object.assign(serve, { fields: errorFields(bound.model, bound.policy.visible) });
  }
  const Controller = target as ControllerClass;
  return async (ctx, method) => call(new Controller(ctx, config), method, ctx);
}

/** Each column of the model with its attribute (and each attribute with itself), and the visible attributes. */
function errorFields(model: ModelStatic<Model>, visible: ReadonlySet<string>): ErrorFields {
  const columns = new Map<string, string>();
  for (const name of Object.keys(model.getAttributes())) columns.set(name, name);
  for (const [name, attribute] of Object.entries(model.getAttributes())) columns.set(attribute.field ?? name, name);
  return { columns, visible };
}

async function call(controller: object, method: CrudMethod, ctx: Context): Promise<Reply | undefined> {
  return (await (controller as Record<CrudMethod, (ctx: Context) => unknown>)[method](ctx)) as Reply | undefined;
}

/**
 * How errors name a target: `ProductController`, or `resource(Product)`.
 * @example targetName(resource(Product, spec)) // 'resource(Product)'
 */
export function targetName(target: CrudTarget): string {
  return isResource(target) ? `resource(${target.name})` : target.name || 'an anonymous controller class';
}
