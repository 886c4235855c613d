/** groupRoutes: a route plan folded into one entry per distinct path, for one router layer each. */
import type { RouteDef, Verb } from '../types.js';

/** The routes of a plan that share one path, with their verbs in plan order. */
export interface RouteGroup {
  /** The planned path, as in `RouteDef.path`. */
  readonly path: string;
  /** The verbs served on this path, in plan order, each once. */
  readonly verbs: readonly Verb[];
  /** The route of each verb. */
  readonly routes: readonly RouteDef[];
}

/**
 * Groups a route plan by path, keeping the order in which each path first appears. Routes of
 * different paths never match the same request path unless one has a parameter (`/options` and
 * `/{id:uuid}`), and first appearance keeps those in plan order, so one layer per group routes
 * every request as one layer per route did. Pure.
 * @example groupRoutes(planRoutes(Controller, { uri: 'products', only: ['search', 'create', 'options'] }))
 *   // [{ path: 'products', verbs: ['get', 'post'], routes: [search, create] }, { path: 'products/options', verbs:
 *   // ['get'], routes: [options] }]
 */
export function groupRoutes(plan: readonly RouteDef[]): RouteGroup[] {
  const paths = [...new Set(plan.map((def) => def.path))];
  return paths.map((path) => {
    const routes = plan.filter((def) => def.path === path);
    return { path, verbs: routes.map((def) => def.verb), routes };
  });
}
