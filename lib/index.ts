/** koa-fast-crud: a complete, safe REST API over a Sequelize model for Koa. Public API: re-exports only. */
export type * from './types.js';
export { ROUTE_TABLE, CRUD_METHODS } from './core/route-table.js';
export { planRoutes, abilityOf, type ControllerShape } from './core/plan-routes.js';
export { parseSort, processSort } from './core/sort-parser.js';
export { buildOptionsQuery, undeclaredValueColumn, formatOptions, type OptionItem } from './core/options-query.js';
export { isPlainIdentifier, findColumn, type ResolvedColumn } from './core/columns.js';
export { DEFAULT_CONFIG, resolveConfig, formatConfigError } from './core/config.js';
export { HttpStatus, isHttpStatus } from './core/http-status.js';
export { compilePath, isUuid, type CompiledPath } from './core/route-path.js';
export { success, fail, error, failItemOf } from './core/jsend.js';
export { replyForError } from './core/error-reply.js';
export { singleParam } from './core/query-params.js';
export { BaseController, type AbstractConstructor } from './controller/base-controller.js';
export { CrudController } from './controller/crud-controller.js';
export { Options, type HookResult } from './actions/options.js';
export { crud, createFastCrud, type CrudOptions, type FastCrudDefaults } from './koa/crud.js';
export { routeMiddleware, type ControllerClass, type RouteRuntime } from './koa/route-middleware.js';
