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

/**
 * The batch routes `resource(Model, { batch: true })` adds, each under its single action's method
 * and permission: `PATCH <uri>` (update), `DELETE <uri>` (delete), `DELETE <uri>/soft` (softDelete)
 * and `PATCH <uri>/restore` (restore). Create many is `POST <uri>` itself, with an array body. They
 * are planned after export-csv and before the `{id}` routes, so that `/soft` and `/restore` are never
 * taken for an `{id}` when the find field is not a UUID.
 * @example BATCH_ROUTE_TABLE[0] // { verb: 'patch', suffix: '', method: 'update', permission: 'update', batch: true }
 */
export const BATCH_ROUTE_TABLE: readonly RouteEntry[] = Object.freeze(
  [
    { verb: 'patch', suffix: '', method: 'update', permission: 'update', batch: true },
    { verb: 'delete', suffix: '', method: 'delete', permission: 'delete', batch: true },
    { verb: 'delete', suffix: '/soft', method: 'softDelete', permission: 'delete', batch: true },
    { verb: 'patch', suffix: '/restore', method: 'restore', permission: 'restore', batch: true },
  ].map((entry) => Object.freeze(entry as RouteEntry)),
);

/**
 * The change feed's route, which `resource(Model, { live: true })` adds: `GET <uri>/changes`, a stream of Server-Sent
 * Events, guarded by search's permission. Planned before the `{id}` routes, so that `changes` is never taken for an
 * `{id}`.
 * @example LIVE_ROUTE // { verb: 'get', suffix: '/changes', method: 'changes', permission: 'search' }
 */
export const LIVE_ROUTE: RouteEntry = Object.freeze({
  verb: 'get',
  suffix: '/changes',
  method: 'changes',
  permission: 'search',
} as RouteEntry);

/**
 * The aggregates route, which `resource(Model, { aggregate: true })` adds: `GET <uri>/aggregate` (counts, sums,
 * averages, minimums and maximums by group), guarded by search's permission. Planned before the `{id}` routes, so that
 * `aggregate` is never taken for an `{id}`.
 * @example AGGREGATE_ROUTE // { verb: 'get', suffix: '/aggregate', method: 'aggregate', permission: 'search' }
 */
export const AGGREGATE_ROUTE: RouteEntry = Object.freeze({
  verb: 'get',
  suffix: '/aggregate',
  method: 'aggregate',
  permission: 'search',
} as RouteEntry);

/**
 * The route table with the batch routes, when `batch`, the change feed's, when `live`, and the aggregates route, when
 * `aggregate`, placed before the first `{id}` route; else ROUTE_TABLE itself.
 * @example routeTable(false) === ROUTE_TABLE // true
 * @example routeTable(false, true).map((entry) => entry.suffix).indexOf('/changes') // 4
 * @example routeTable(false, false, true).map((entry) => entry.suffix).indexOf('/aggregate') // 4
 */
export function routeTable(batch: boolean, live = false, aggregate = false): readonly RouteEntry[] {
  if (!batch && !live && !aggregate) return ROUTE_TABLE;
  const at = ROUTE_TABLE.findIndex((entry) => entry.suffix.startsWith('/{'));
  const added = [
    ...(batch ? BATCH_ROUTE_TABLE : []),
    ...(live ? [LIVE_ROUTE] : []),
    ...(aggregate ? [AGGREGATE_ROUTE] : []),
  ];
  return [...ROUTE_TABLE.slice(0, at), ...added, ...ROUTE_TABLE.slice(at)];
}
