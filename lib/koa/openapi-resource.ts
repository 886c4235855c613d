/** openApiResource: a resource as `crud` registers it, described for `openApiDocument`. */
import { DEFAULT_CONFIG, unsafeResolveConfig } from '../core/config.js';
import { planRoutes } from '../core/plan-routes.js';
import type { OpenApiResource } from '../openapi/document.js';
import { unsafeBindResource } from '../resource/bind.js';
import { resourceOfController } from '../resource/controller-resource.js';
import { isResource } from '../resource/resource.js';
import type { CrudPlugin, FastCrudConfig } from '../types.js';
import type { CrudOptions } from './crud.js';
import { targetName, type CrudTarget } from './route-handler.js';

/**
 * Describes a resource for the OpenAPI document with the same arguments as `crud`, through the
 * same binding: a class is read once without a request. An app that uses `createFastCrud` takes
 * the `openApiResource` it returns, so the document sees the same defaults.
 * @example openApiDocument({ info, resources: [openApiResource('products', products, { moduleName: 'shop' })] })
 */
export function openApiResource(
  uri: string,
  target: CrudTarget,
  options: Omit<CrudOptions, 'can'> = {},
): OpenApiResource {
  return describeResource(uri, target, options, DEFAULT_CONFIG, []);
}

/** openApiResource over a resolved base configuration and app plugins (createFastCrud's). */
export function describeResource(
  uri: string,
  target: CrudTarget,
  options: Omit<CrudOptions, 'can'>,
  base: FastCrudConfig,
  plugins: readonly CrudPlugin[],
): OpenApiResource {
  const config = unsafeResolveConfig(options.config, base);
  const resource = isResource(target)
    ? target
    : resourceOfController(target as Parameters<typeof resourceOfController>[0], config);
  const batch = resource.spec.batch === true;
  const live = resource.spec.live === true;
  const aggregate = resource.spec.aggregate !== undefined && (resource.spec.aggregate as unknown) !== false;
  // Checked for the actions the document describes, as `crud` checks those it registers.
  const methods = [
    ...new Set(
      planRoutes(target, {
        ...options,
        uri,
        optionsPermission: config.options.permission,
        batch,
        live,
        aggregate,
      }).map((def) => def.method),
    ),
  ];
  const bound = unsafeBindResource(
    resource,
    config,
    [...(options.plugins ?? []), ...plugins],
    methods,
    `openApiResource('${uri}', ${targetName(target)})`,
  );
  const termKey = bound.termFields.length > 0 ? bound.termKey : undefined;
  const { moduleName, only, except } = options;
  return {
    uri,
    moduleName,
    only,
    except,
    batch,
    live,
    aggregate,
    ...(bound.aggregate !== undefined && { aggregatePolicy: bound.aggregate }),
    Controller: target,
    model: bound.model,
    policy: bound.policy,
    config,
    termKey,
    fullText: termKey !== undefined && bound.fullText !== undefined,
  };
}
