/**
 * koa-fast-crud: a complete, safe REST API over a Sequelize model for Koa. Public API: re-exports only,
 * what README and the guides use; the pure planners and parsers are in `koa-fast-crud/core`.
 * @module koa-fast-crud
 */
export { crud, createFastCrud, type CrudOptions, type FastCrud, type FastCrudDefaults } from './koa/crud.js';
export type { CrudTarget } from './koa/route-handler.js';
export type { ControllerClass } from './resource/controller-resource.js';
export { notFound } from './koa/not-found.js';
export { openApiResource } from './koa/openapi-resource.js';
export { fullTextIndex, type FullTextIndex } from './execute/full-text-index.js';
export { openApiDocument, type OpenApiOptions, type OpenApiResource } from './openapi/document.js';
export {
  resource,
  type Resource,
  type ResourceSpec,
  type ResourcePolicy,
  type ResourceValidation,
  type ResourceHooks,
  type HookContext,
  type HookResult,
  type WriteData,
  type AttributeName,
} from './resource/resource.js';
export { BaseController, type AbstractConstructor } from './controller/base-controller.js';
export { CrudController } from './controller/crud-controller.js';
export type { Query } from './controller/typed-hooks.js';
export { Search } from './actions/search.js';
export { Options } from './actions/options.js';
export { Create } from './actions/create.js';
export { Read } from './actions/read.js';
export { Update } from './actions/update.js';
export { Delete } from './actions/delete.js';
export { SoftDelete, Restore } from './actions/soft-delete.js';
export { ExportCsv } from './actions/export-csv.js';
export { tenantScope } from './plugins/tenant-scope.js';
export { readYourWrites, type ReadYourWritesOptions } from './plugins/read-your-writes.js';
export { DEFAULT_CONFIG, resolveConfig, formatConfigError } from './core/config.js';
export { clientError } from './core/error-reply.js';
export { ERROR_TABLE } from './core/error-codes.js';
export type { OptionItem } from './core/options-query.js';
export type {
  FastCrudConfig,
  FastCrudConfigInput,
  CrudPlugin,
  PluginContext,
  Can,
  CrudMethod,
  RouteDef,
  Reply,
  FailItem,
  ErrorCode,
} from './types.js';
