/** openApiResource: a resource as `crud` registers it, described for `openApiDocument`. */
import type { Context } from 'koa';
import { unsafeResolveConfig } from '../core/config.js';
import type { BaseController } from '../controller/base-controller.js';
import type { OpenApiResource } from '../openapi/document.js';
import type { CrudOptions } from './crud.js';
import type { ControllerClass } from './route-middleware.js';

/**
 * Describes a resource for the OpenAPI document with the same arguments as `crud`: it makes one
 * controller (with no request) to read its model and field policy.
 * @example openApiDocument({ info, resources: [openApiResource('products', ProductController, { moduleName: 'shop' })] })
 */
export function openApiResource(uri: string, Controller: ControllerClass, options: Omit<CrudOptions, 'can'> = {}): OpenApiResource {
  const config = unsafeResolveConfig(options.config);
  const controller = new Controller({} as Context, config) as BaseController;
  return { ...options, uri, Controller, model: controller.modelClassName(), policy: controller.policy(), config };
}
