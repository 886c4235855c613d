/** crud and createFastCrud: apply route plans to a @koa/router instance. */
import type Router from '@koa/router';
import { DEFAULT_CONFIG, unsafeResolveConfig } from '../core/config.js';
import { groupRoutes } from '../core/route-groups.js';
import { compilePath } from '../core/route-path.js';
import type { Can, CrudMethod, CrudPlugin, FastCrudConfig, FastCrudConfigInput, RouteDef } from '../types.js';
import { describeResource, type openApiResource } from './openapi-resource.js';
import { targetName, targetRoutes, unsafeRouteHandler, type CrudTarget } from './route-handler.js';
import { preflight } from './cors.js';
import { newRun, runAtEnd, RUN_PATTERNS, type DispatchRoute } from './dispatcher.js';
import { routeMiddleware } from './route-middleware.js';

/** Options of one `crud` call. */
export interface CrudOptions {
  /** Module name for abilities `<moduleName>.access.<permission>`; null or absent: no checks. */
  readonly moduleName?: string | null;
  /** Controller method names not to register (ignored when `only` is non-empty). */
  readonly except?: readonly CrudMethod[];
  /** When non-empty, only these controller method names are registered. */
  readonly only?: readonly CrudMethod[];
  /** The ability check; required when `moduleName` is set. */
  readonly can?: Can;
  /** Configuration merged over the defaults (and over `createFastCrud`'s). */
  readonly config?: FastCrudConfigInput;
  /** Plugins for this resource, after its own and before `createFastCrud`'s. */
  readonly plugins?: readonly CrudPlugin[];
}

/**
 * Registers the planned CRUD routes of a resource (a `resource()` value, or a controller class)
 * on a router and returns the plan. Throws at registration on invalid configuration, a
 * `moduleName` without `can`, or declarations that do not fit the model (unknown names, a find
 * field a uuid route cannot reach, an uninitialised model), naming the nearest valid name.
 * @example
 * crud(router, 'products', products, { moduleName: 'shop', can: (ctx, ability) => ctx.state.user?.can(ability) })
 * @example crud(router, 'categories', CategoryController)
 */
export function crud(router: Router, uri: string, target: CrudTarget, options: CrudOptions = {}): RouteDef[] {
  return register(router, uri, target, options, DEFAULT_CONFIG, []);
}

/** Defaults shared by every `crud` call of an app. */
export interface FastCrudDefaults {
  /** The ability check for every resource whose `crud` call names a `moduleName` and no `can` of its own. */
  readonly can?: Can;
  /** Configuration merged over the defaults for every resource; a `crud` call's `config` is merged over it. */
  readonly config?: FastCrudConfigInput;
  /** Plugins for every resource, after each resource's and each `crud` call's own. */
  readonly plugins?: readonly CrudPlugin[];
}

/** What `createFastCrud` returns. */
export interface FastCrud {
  /** `crud` with the app's defaults bound: same arguments, its own options win over the defaults. */
  readonly crud: typeof crud;
  /**
   * `openApiResource` over the same configuration, so the document shows the statuses and `{id}` format the routes use.
   */
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
  const plugins = defaults.plugins ?? [];
  return {
    crud: (router, uri, target, options = {}) =>
      register(router, uri, target, { ...options, can: options.can ?? defaults.can }, base, plugins),
    openApiResource: (uri, target, options = {}) => describeResource(uri, target, options, base, plugins),
  };
}

function register(
  router: Router,
  uri: string,
  target: CrudTarget,
  options: CrudOptions,
  base: FastCrudConfig,
  appPlugins: readonly CrudPlugin[],
): RouteDef[] {
  const config = unsafeResolveConfig(options.config, base);
  const label = `crud('${uri}', ${targetName(target)})`;
  if (options.moduleName != null && options.can === undefined) {
    throw new TypeError(
      `${label}: moduleName '${options.moduleName}' guards routes with abilities, ` +
        'so pass can: (ctx, ability) => boolean ' +
        `(in the crud options or createFastCrud({ can })), or leave moduleName out for no permission checks`,
    );
  }
  const plan = targetRoutes(target, uri, options, config);
  const handler = unsafeRouteHandler(
    target,
    config,
    [...(options.plugins ?? []), ...appPlugins],
    [...new Set(plan.map((def) => def.method))],
    label,
  );
  const constrained = (uuidParams: readonly string[]) => (config.global.find_field_is_uuid ? uuidParams : []);
  // With trusted origins, each path also answers their CORS preflights (OPTIONS), after its own verbs.
  const cors = config.cors.origins.length > 0;
  const routes = groupRoutes(plan).flatMap((group): DispatchRoute[] => {
    const { path, uuidParams } = compilePath(group.path);
    const runtime = { handler, config, can: options.can, uuidParams: constrained(uuidParams) };
    const served = group.routes.map((def): DispatchRoute => ({
      verb: def.verb,
      path,
      middleware: routeMiddleware(def, runtime),
    }));
    if (!cors) return served;
    const methods = group.verbs.map((verb) => verb.toUpperCase());
    return [...served, { verb: 'options', path, middleware: preflight(methods, config.cors) }];
  });
  // Consecutive crud calls share two layers on the app's router; a router of the resource's own runs its routes.
  const joined = runAtEnd(router);
  const run = joined ?? newRun(router);
  run.add(basePath(uri), routes);
  if (joined === undefined) for (const pattern of RUN_PATTERNS) router.all(pattern, run.middleware);
  return plan;
}

/** The path every route of `uri` starts with: '/products' for 'products/', '' for the root. */
function basePath(uri: string): string {
  const trimmed = uri.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `/${trimmed}`;
}
