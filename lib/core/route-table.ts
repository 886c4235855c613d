/** The spec's route table: every route `crud` may register, in registration order. */
import type { CrudMethod, RouteEntry } from '../types.js';

/**
 * The twelve standard CRUD routes, in the order they are registered.
 * `options` must come before `/{id:uuid}` routes and carries no permission.
 * @example ROUTE_TABLE[1] // { verb: 'get', suffix: '/options', method: 'options', permission: null }
 */
export const ROUTE_TABLE: readonly RouteEntry[] = Object.freeze(
  [
    { verb: 'get', suffix: '', method: 'search', permission: 'search' },
    { verb: 'get', suffix: '/options', method: 'options', permission: null },
    { verb: 'post', suffix: '', method: 'create', permission: 'create' },
    { verb: 'get', suffix: '/export-csv', method: 'exportCsv', permission: 'exportCsv' },
    { verb: 'get', suffix: '/{id:uuid}', method: 'read', permission: 'view' },
    { verb: 'put', suffix: '/{id:uuid}', method: 'update', permission: 'update' },
    { verb: 'patch', suffix: '/{id:uuid}', method: 'update', permission: 'update' },
    { verb: 'post', suffix: '/{id:uuid}', method: 'update', permission: 'update' },
    { verb: 'delete', suffix: '/{id:uuid}', method: 'delete', permission: 'delete' },
    { verb: 'delete', suffix: '/{id:uuid}/soft', method: 'softDelete', permission: 'delete' },
    { verb: 'patch', suffix: '/{id:uuid}/restore', method: 'restore', permission: 'restore' },
    { verb: 'put', suffix: '/{id:uuid}/restore', method: 'restore', permission: 'restore' },
  ].map((entry) => Object.freeze(entry as RouteEntry)),
);

/** Every controller method name the route table knows, each once, in table order. */
export const CRUD_METHODS: readonly CrudMethod[] = Object.freeze([...new Set(ROUTE_TABLE.map((e) => e.method))]);
