/** openApiResource: a resource as `crud` registers it, described for `openApiDocument`. */
import { DEFAULT_CONFIG, unsafeResolveConfig } from '../core/config.js';
import type { OpenApiResource } from '../openapi/document.js';
import { unsafeBindResource } from '../resource/bind.js';
import { resourceOfController } from '../resource/controller-resource.js';
import { isResource } from '../resource/resource.js';
import type { CrudPlugin, FastCrudConfig } from '../types.js';
import type { CrudOptions } from './crud.js';
import {
  declaresAggregate,
  declaresBatch,
  declaresLive,
  targetName,
  targetRoutes,
  type CrudTarget,
} from './route-handler.js';

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
  // Checked for the actions the document describes, as `crud` checks those it registers.
  const methods = [...new Set(targetRoutes(target, uri, options, config).map((def) => def.method))];
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
    batch: declaresBatch(target, config),
    live: declaresLive(target, config),
    aggregate: declaresAggregate(target, config),
    ...(bound.aggregate !== undefined && { aggregatePolicy: bound.aggregate }),
    Controller: target,
    model: bound.model,
    policy: bound.policy,
    config,
    termKey,
    fullText: termKey !== undefined && bound.fullText !== undefined,
  };
}
