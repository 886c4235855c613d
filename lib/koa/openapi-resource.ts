/** openApiResource: a resource as `crud` registers it, described for `openApiDocument`. */
import type { Context } from 'koa';
import { DEFAULT_CONFIG, unsafeResolveConfig } from '../core/config.js';
import type { FastCrudConfig } from '../types.js';
import type { BaseController } from '../controller/base-controller.js';
import type { OpenApiResource } from '../openapi/document.js';
import type { CrudOptions } from './crud.js';
import type { ControllerClass } from './route-middleware.js';

/**
 * Describes a resource for the OpenAPI document with the same arguments as `crud`: it makes one
 * controller (with no request) to read its model and field policy. An app that uses
 * `createFastCrud` takes the `openApiResource` it returns, so the document sees the same defaults.
 * @example openApiDocument({ info, resources: [openApiResource('products', ProductController, { moduleName: 'shop' })] })
 */
export function openApiResource(uri: string, Controller: ControllerClass, options: Omit<CrudOptions, 'can'> = {}): OpenApiResource {
  return describeResource(uri, Controller, options, DEFAULT_CONFIG);
}

/** openApiResource over a resolved base configuration (createFastCrud's). */
export function describeResource(uri: string, Controller: ControllerClass, options: Omit<CrudOptions, 'can'>, base: FastCrudConfig): OpenApiResource {
  const config = unsafeResolveConfig(options.config, base);
  const controller = new Controller({} as Context, config) as BaseController;
  const termKey = controller.termFields.length > 0 ? controller.termKey : undefined;
  return { ...options, uri, Controller, model: controller.modelClassName(), policy: controller.policy(), config, termKey };
}
