/** planRoutes: the spec's route-registration rules as a pure function from a controller to route values. */
import type { CrudMethod, PlanOptions, RouteDef, RouteEntry } from '../types.js';
import { routeTable } from './route-table.js';

/**
 * What routes can be planned for: a class whose prototype may carry controller methods, or a
 * value that lists its actions (a `resource()`).
 */
export type ControllerShape = { readonly prototype: object } | { readonly actions: readonly CrudMethod[] };

/**
 * Plans the routes `crud` registers for a controller, in table order (spec rules 1–6).
 * Pure: it reads the class's prototype chain and returns new values. `optionsPermission`
 * (the `options.permission` setting) gives the options route a permission, which the spec leaves without one.
 * @example planRoutes(ProductController, { uri: 'products', moduleName: 'shop', only: ['read'] })
 *   // [{ verb: 'get', path: 'products/{id:uuid}', method: 'read', permission: 'view', ability: 'shop.access.view' }]
 * With `batch` (a resource declared `batch: true`), the batch routes of the kept update, delete, softDelete and
 * restore are planned too, before the `{id}` routes (see `BATCH_ROUTE_TABLE`); `only`/`except` name their single
 * action. With `live` (a resource declared `live: true`), the change feed `GET <uri>/changes` is planned too (see
 * `LIVE_ROUTE`), named `changes` by `only`/`except`; with `aggregate` (a resource declared `aggregate`), the
 * aggregates route `GET <uri>/aggregate` (see `AGGREGATE_ROUTE`), named `aggregate`.
 * @example planRoutes(resource, { uri: 'tags', moduleName: 'shop', only: ['options'], optionsPermission: 'search' })
 *   // [{ verb: 'get', path: 'tags/options', method: 'options', permission: 'search', ability: 'shop.access.search' }]
 */
export function planRoutes(Controller: ControllerShape, options: PlanOptions): RouteDef[] {
  const uri = trimSlashes(options.uri);
  const keep = methodFilter(options);
  const table = routeTable(options.batch === true, options.live === true, options.aggregate === true);
  return table
    .filter((entry) => (DECLARED.has(entry.method) || hasMethod(Controller, entry.method)) && keep(entry.method))
    .map((row): RouteDef => {
      const entry =
        row.method === 'options' && options.optionsPermission != null
          ? { ...row, permission: options.optionsPermission }
          : row;
      return {
        verb: entry.verb,
        path: joinPath(uri, entry.suffix),
        method: entry.method,
        permission: entry.permission,
        ability: abilityOf(options.moduleName, entry),
        ...(entry.batch && { batch: true }),
      };
    });
}

/** The routes a declaration adds (`live`, `aggregate`), which no controller method serves. */
const DECLARED: ReadonlySet<CrudMethod> = new Set(['changes', 'aggregate']);

/** The ability guarding an entry: `<moduleName>.access.<permission>`, or null (spec rule 6). */
export function abilityOf(moduleName: string | null | undefined, entry: Pick<RouteEntry, 'permission'>): string | null {
  return moduleName == null || entry.permission === null ? null : `${moduleName}.access.${entry.permission}`;
}

function methodFilter({ only = [], except = [] }: PlanOptions): (method: CrudMethod) => boolean {
  return only.length > 0 ? (method) => only.includes(method) : (method) => !except.includes(method);
}

function hasMethod(target: ControllerShape, method: CrudMethod): boolean {
  if ('actions' in target) return target.actions.includes(method);
  // Property lookup walks the prototype chain, so inherited and mixed-in actions count.
  return typeof (target.prototype as Record<string, unknown>)[method] === 'function';
}

function trimSlashes(uri: string): string {
  return uri.replace(/^\/+|\/+$/g, '');
}

function joinPath(uri: string, suffix: string): string {
  return uri === '' ? suffix.replace(/^\//, '') : uri + suffix;
}
