/** openApiResource: a resource as `crud` registers it, described for `openApiDocument`. */
import type { Context } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import { formatConfigError, resolveConfig } from '../core/config.js';
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
  const config = resolveConfig(options.config);
  if (E.isLeft(config)) throw new RangeError(formatConfigError(config.left));
  const controller = new Controller({} as Context, config.right) as BaseController;
  const model = controller.modelClassName();
  return { ...options, uri, Controller, model, policy: controller.policy(), config: config.right };
}
