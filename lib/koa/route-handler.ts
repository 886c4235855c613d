/**
 * The handler behind a resource's routes: a `resource()` runs the action table, a class makes one controller per
 * request.
 */
import type { Context } from 'koa';
import type { Model, ModelStatic } from 'sequelize';
import { errorFieldsOf, type ErrorFields } from '../core/constraint-fields.js';
import { watchQueries } from '../execute/deadline.js';
import { unsafeBindResource } from '../resource/bind.js';
import { registerRowScopes } from '../resource/row-scopes.js';
import { outboxModel } from '../execute/live-outbox.js';
import { resourceOfController, servesModel, type ControllerClass } from '../resource/controller-resource.js';
import { isResource, type Resource } from '../resource/resource.js';
import { attachResource, controllerScope, resourceScope, type ActionScope } from '../resource/scope.js';
import type { BaseController } from '../controller/base-controller.js';
import { createManyIfArray } from '../actions/batch-create.js';
import { changesAction } from '../actions/changes.js';
import { aggregateAction } from '../actions/aggregate.js';
import { planRoutes } from '../core/plan-routes.js';
import type { CrudMethod, CrudPlugin, FastCrudConfig, Reply, RouteDef } from '../types.js';
import { ACTIONS, BATCH_ACTIONS } from './action-table.js';
import { readBody } from './body.js';

/** What `crud` registers: a `resource()` value or a controller class (SPEC.md's form). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a resource of any model
export type CrudTarget = ControllerClass | Resource<any>;

/**
 * Serves one action of a registered resource for one request (`batch`: its batch route); `fields` are its model's
 * columns and visible attributes, for the error exit to name constraint fields (absent without a model).
 */
export type RouteHandler = ((ctx: Context, method: CrudMethod, batch?: boolean) => Promise<Reply | undefined>) & {
  readonly fields?: ErrorFields;
};

/**
 * The handler of a registered target, its resource bound and checked once here, its Sequelize
 * instance watched for the requests' deadlines (`watchQueries`), its plugins' row scopes
 * registered for its model (`registerRowScopes`), the outbox model defined on it for a live resource (`outboxModel`):
 * throws (see
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
    if (bound.live) outboxModel(bound.model.sequelize!);
    // Not an async function: most actions' promise is handed on as it is rather than wrapped in another.
    const serve = (ctx: Context, method: CrudMethod, batch = false): Promise<Reply | undefined> => {
      const scope = resourceScope(bound, ctx, readBody);
      if (batch) return batchAction(scope, method);
      if (method !== 'create') return ACTIONS[method](scope);
      return createManyIfArray(scope).then((many) => many ?? ACTIONS.create(scope));
    };
    return Object.assign(serve, { fields: errorFields(bound.model, bound.policy.visible) });
  }
  if (servesModel(target)) {
    const bound = unsafeBindResource(resourceOfController(target, config), config, plugins, methods, label);
    watchQueries(bound.model.sequelize!);
    registerRowScopes(bound);
    if (bound.live) outboxModel(bound.model.sequelize!);
    const serve = async (ctx: Context, method: CrudMethod, batch = false) => {
      const controller = attachResource(new target(ctx, config) as BaseController, bound);
      if (method === 'changes') return changesAction(controllerScope(controller));
      if (method === 'aggregate') return aggregateAction(controllerScope(controller));
      if (!batch && method !== 'create') return call(controller, method, ctx);
      const scope = controllerScope(controller);
      if (batch) return batchAction(scope, method);
      return (await createManyIfArray(scope)) ?? call(controller, method, ctx);
    };
    return Object.assign(serve, { fields: errorFields(bound.model, bound.policy.visible) });
  }
  const Controller = target as ControllerClass;
  return async (ctx, method) => call(new Controller(ctx, config), method, ctx);
}

/**
 * True when a target declares batch routes: a resource's `batch: true`, a controller class's `batch = true` field
 * (read from one instance made without a request, as its other declarations are).
 * @example declaresBatch(resource(Product, { policy, batch: true }), config) // true
 */
export function declaresBatch(target: CrudTarget, config: FastCrudConfig): boolean {
  if (isResource(target)) return target.spec.batch === true;
  return servesModel(target) && resourceOfController(target, config).spec.batch === true;
}

/**
 * True when a target declares the change feed: a resource's `live: true`, a controller class's `live = true` field.
 * @example declaresLive(resource(Product, { policy, live: true }), config) // true
 */
export function declaresLive(target: CrudTarget, config: FastCrudConfig): boolean {
  if (isResource(target)) return target.spec.live === true;
  return servesModel(target) && resourceOfController(target, config).spec.live === true;
}

/**
 * True when a target declares the aggregates route: a resource's `aggregate`, a controller class's `aggregate` field.
 * @example declaresAggregate(resource(Product, { policy, aggregate: true }), config) // true
 */
export function declaresAggregate(target: CrudTarget, config: FastCrudConfig): boolean {
  const declared = isResource(target)
    ? target.spec.aggregate
    : servesModel(target)
      ? resourceOfController(target, config).spec.aggregate
      : undefined;
  return declared !== undefined && (declared as unknown) !== false;
}

/**
 * The routes `crud` plans for a target (`planRoutes`), with the opt-in routes it declares (`declaresBatch`,
 * `declaresLive`, `declaresAggregate`) and the configured options permission: what `crud` registers and what
 * `openApiResource` describes.
 * @example targetRoutes(resource(Product, { policy, batch: true }), 'products', { moduleName: 'shop' }, config)
 */
export function targetRoutes(
  target: CrudTarget,
  uri: string,
  options: {
    readonly moduleName?: string | null;
    readonly except?: readonly CrudMethod[];
    readonly only?: readonly CrudMethod[];
  },
  config: FastCrudConfig,
): RouteDef[] {
  return planRoutes(target, {
    ...options,
    uri,
    optionsPermission: config.options.permission,
    batch: declaresBatch(target, config),
    live: declaresLive(target, config),
    aggregate: declaresAggregate(target, config),
  });
}

/** The batch action of a batch route's method (update, delete, softDelete or restore). */
function batchAction(scope: ActionScope, method: CrudMethod): Promise<Reply | undefined> {
  const action = BATCH_ACTIONS[method];
  if (action === undefined) throw new TypeError(`No batch action serves ${method}`);
  return action(scope);
}

/** Each column of the model with its attribute (and each attribute with itself), and the visible attributes. */
function errorFields(model: ModelStatic<Model>, visible: ReadonlySet<string>): ErrorFields {
  return errorFieldsOf(model.getAttributes(), visible);
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
