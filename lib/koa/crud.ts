/** crud and createFastCrud: apply route plans to a @koa/router instance. */
import type Router from '@koa/router';
import { DEFAULT_CONFIG, unsafeResolveConfig } from '../core/config.js';
import { planRoutes } from '../core/plan-routes.js';
import { compilePath } from '../core/route-path.js';
import type { Can, FastCrudConfig, FastCrudConfigInput, RouteDef } from '../types.js';
import { describeResource, type openApiResource } from './openapi-resource.js';
import { routeMiddleware, type ControllerClass } from './route-middleware.js';

/** Options of one `crud` call. */
export interface CrudOptions {
  /** Module name for abilities `<moduleName>.access.<permission>`; null or absent: no checks. */
  readonly moduleName?: string | null;
  /** Controller method names not to register (ignored when `only` is non-empty). */
  readonly except?: readonly string[];
  /** When non-empty, only these controller method names are registered. */
  readonly only?: readonly string[];
  /** The ability check; required when `moduleName` is set. */
  readonly can?: Can;
  /** Configuration merged over the defaults (and over `createFastCrud`'s). */
  readonly config?: FastCrudConfigInput;
}

/**
 * Registers the planned CRUD routes of a controller on a router and returns the plan.
 * Throws at registration on invalid configuration, or on a `moduleName` without `can`.
 * @example crud(router, 'products', ProductController, { moduleName: 'shop', can: (ctx, ability) => ctx.state.user?.can(ability) })
 */
export function crud(router: Router, uri: string, Controller: ControllerClass, options: CrudOptions = {}): RouteDef[] {
  return register(router, uri, Controller, options, DEFAULT_CONFIG);
}

/** Defaults shared by every `crud` call of an app. */
export interface FastCrudDefaults {
  /** The ability check for every resource whose `crud` call names a `moduleName` and no `can` of its own. */
  readonly can?: Can;
  /** Configuration merged over the defaults for every resource; a `crud` call's `config` is merged over it. */
  readonly config?: FastCrudConfigInput;
}

/** What `createFastCrud` returns. */
export interface FastCrud {
  /** `crud` with the app's defaults bound: same arguments, its own options win over the defaults. */
  readonly crud: typeof crud;
  /** `openApiResource` over the same configuration, so the document shows the statuses and `{id}` format the routes use. */
  readonly openApiResource: typeof openApiResource;
}

/**
 * Binds `can` and configuration once for an app with many resources; per-call options override them.
 * Describe the same resources for OpenAPI with the `openApiResource` it returns.
 * The configuration is validated here, once.
 * @example const { crud } = createFastCrud({ can, config: { options: { default_value: 'external_id' } } });
 */
export function createFastCrud(defaults: FastCrudDefaults = {}): FastCrud {
  const base = unsafeResolveConfig(defaults.config, DEFAULT_CONFIG);
  return {
    crud: (router, uri, Controller, options = {}) =>
      register(router, uri, Controller, { ...options, can: options.can ?? defaults.can }, base),
    openApiResource: (uri, Controller, options = {}) => describeResource(uri, Controller, options, base),
  };
}

function register(
  router: Router,
  uri: string,
  Controller: ControllerClass,
  options: CrudOptions,
  base: FastCrudConfig,
): RouteDef[] {
  const config = unsafeResolveConfig(options.config, base);
  if (options.moduleName != null && options.can === undefined) {
    throw new TypeError(
      `crud('${uri}'): moduleName '${options.moduleName}' guards routes with abilities, so pass can: (ctx, ability) => boolean ` +
        `(in the crud options or createFastCrud({ can })), or leave moduleName out for no permission checks`,
    );
  }
  const plan = planRoutes(Controller, { ...options, uri });
  for (const def of plan) {
    const { path, uuidParams } = compilePath(def.path);
    const constrained = config.global.find_field_is_uuid ? uuidParams : [];
    router[def.verb](path, routeMiddleware(def, { Controller, config, can: options.can, uuidParams: constrained }));
  }
  return plan;
}
