/**
 * Two router layers per run of consecutive `crud` calls: they find the resources a request path can
 * reach in a map and run each one's routes on a small router of its own, so @koa/router tests two
 * layers for any number of resources, through its public API only. A path that only literal routes of
 * one resource can match (a search's `/products`) is answered by the run itself, with that router's layers.
 */
import Router, { type Layer, type RouterContext } from '@koa/router';
import type { Middleware, Next } from 'koa';

/** One route as the resource's own router registers it: `router[verb](path, middleware)`. */
export interface DispatchRoute {
  readonly verb: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';
  /** The route's path without the router's prefix, as `compilePath` gives it (`/products/:id`). */
  readonly path: string;
  readonly middleware: Middleware;
}

/** The name of the crud layer's wildcard: never seen by a route (removed from `ctx.params` first). */
const REST = 'fastCrudPath';

/** The path of a run's second layer: anything below the router's prefix. */
const WILDCARD = `/*${REST}`;

/** The paths of the two layers of a run of `crud` calls: the router's root, and anything below it. */
export const RUN_PATTERNS: readonly string[] = ['/', WILDCARD];

/** How many routers of a resource (one per prefix its layers are seen under) a run keeps. */
const MAX_PREFIXES = 16;

/** A uri path made of plain characters only: a request path can reach it only by starting with it. */
const LITERAL = /^(\/[A-Za-z0-9_.~-]+)+$/;

/** One resource of a run: the path its routes start with, and its routes. */
interface Member {
  /** Its place in the run, the order of registration. */
  readonly order: number;
  readonly routes: readonly DispatchRoute[];
  /** Its router per prefix, made at its first request under that prefix. */
  readonly routers: Map<string, ResourceRouter>;
  /**
   * The places in `routes` of the routes at each path (folded as the router compares paths) that no route with a
   * parameter can match, such as the search's `/products`: the run answers such a path without the member's router.
   */
  readonly literal: ReadonlyMap<string, readonly number[]>;
}

/** The resources of consecutive `crud` calls on one router, served by the same two layers. */
export interface Run {
  /** The router whose stack holds the run's layers. */
  readonly owner: Router;
  /** Registered on both layers with `router.all`. */
  readonly middleware: Middleware;
  /** Adds a resource whose routes start with `base` ('' at the root) to the run. */
  add(base: string, routes: readonly DispatchRoute[]): void;
}

/** Marks the run middleware, so the next `crud` call finds the run it may join at the end of `router.stack`. */
const RUN = Symbol('fastCrudRun');

/**
 * The `settle` of the resource router a request is about to enter, on the request's context: set just before that
 * router's middleware is called, and read by its `enter`, which @koa/router runs synchronously within that call. Not a
 * WeakMap keyed by the context: an entry per request costs V8's garbage collector an ephemeron to trace each time,
 * measured at 2 µs per entry alone and about 3 to 9 % of a PostgreSQL search's CPU (the performance page).
 */
const SETTLE = Symbol('fastCrudSettle');

/** A request's context as the dispatcher hands `settle` to a resource router's `enter`. */
type SettlingContext = RouterContext & { [SETTLE]?: () => void };

/**
 * The run a `crud` call on `router` joins: the one whose layers are the last of `router.stack`, so
 * that every route keeps its place in the registration order; undefined after a route of the app.
 * @example const run = runAtEnd(router) ?? newRun(router);
 */
export function runAtEnd(router: Router): Run | undefined {
  const middleware: unknown = router.stack.at(-1)?.stack.at(-1);
  if (typeof middleware !== 'function' || !(RUN in middleware)) return undefined;
  const run = (middleware as { [RUN]: Run })[RUN];
  return run.owner === router ? run : undefined;
}

/**
 * A run of `crud` calls: `router.all(pattern, run.middleware)` for each of `RUN_PATTERNS` registers
 * it. The layers match every path under the router's prefix; the middleware finds the resources a
 * request path can reach by the literal start of their paths (a map, whatever their number), and
 * runs the request through a router that holds exactly one resource's routes, one layer per verb
 * and path, under the prefix the layer has when it runs (`router.prefix` later, or a parent
 * router's `use(path, child.routes())`), so matching, `ctx.params`, `ctx._matchedRoute`,
 * `ctx.routerPath` and `router.param` handlers are @koa/router's own. It puts those routers'
 * matched layers in its own place in `ctx.matched`, so `allowedMethods()` and `notFound()` answer
 * 405, 501, OPTIONS and `Allow` from the routes as if they were on the app's router, and sets
 * `ctx.routeMatched` from them. When one resource is reachable, the prefix has no parameter and the path is
 * one of its literal paths (`literalPaths`), the run sets what that router would and calls the route itself
 * (`serveLiteral`): a second @koa/router dispatch (its host check, matching of every layer, `compose` and
 * closures) per search, for nothing.
 * @example const run = newRun(router); for (const path of RUN_PATTERNS) router.all(path, run.middleware);
 */
export function newRun(owner: Router): Run {
  const members: Member[] = [];
  const byBase = new Map<string, Member[]>();
  const anywhere: Member[] = [];
  const sensitive = owner.opts.sensitive === true;
  const fold = (path: string) => (sensitive ? path : path.toLowerCase());
  const reachable = (relative: string): Member[] => {
    const found = anywhere.length === 0 ? [] : [...anywhere];
    for (let end = relative.indexOf('/', 1); ; end = relative.indexOf('/', end + 1)) {
      const hit = byBase.get(fold(end < 0 ? relative : relative.slice(0, end)));
      if (hit !== undefined) found.push(...hit);
      if (end < 0) break;
    }
    return found.length < 2 ? found : found.sort((a, b) => a.order - b.order);
  };
  const routerOf = (member: Member, prefix: string): ResourceRouter => {
    let found = member.routers.get(prefix);
    if (found !== undefined) return found;
    if (member.routers.size >= MAX_PREFIXES) member.routers.delete(member.routers.keys().next().value!);
    found = resourceRouter(prefix, member.routes, owner);
    member.routers.set(prefix, found);
    return found;
  };
  // What each layer path the run's layers are seen under says: below the prefix or at it, and the prefix.
  // `literal`: below a prefix without parameters, where a path of literal routes needs no router of the resource.
  const layers = new Map<string, { readonly below: boolean; readonly prefix: string; readonly literal: boolean }>();
  const layerOf = (layerPath: string) => {
    let found = layers.get(layerPath);
    if (found !== undefined) return found;
    const below = layerPath.endsWith(WILDCARD);
    const prefix = layerPath.slice(0, below ? layerPath.length - WILDCARD.length : undefined).replace(/\/$/, '');
    if (layers.size >= 2 * MAX_PREFIXES) layers.clear();
    layers.set(layerPath, (found = { below, prefix, literal: below && (prefix === '' || LITERAL.test(prefix)) }));
    return found;
  };
  const middleware = function fastCrudDispatch(ctx: RouterContext, next: Next): Promise<unknown> {
    const layerPath = ctx.routerPath ?? '';
    const matched = ctx.matched ?? [];
    const at = matched.findIndex((layer) => layer.path === layerPath && layer.stack.includes(middleware));
    if (at < 0) return next();
    const { below, prefix, literal } = layerOf(layerPath);
    // The part of the path below the prefix, as sent: the wildcard's capture (none for the root layer).
    const relative = below ? `/${ctx.captures?.at(-1) ?? ''}` : '';
    const members = reachable(relative);
    const head = matched.slice(0, at);
    const tail = matched.slice(at + 1);
    if (literal && members.length === 1 && plainOptions(owner.opts)) {
      const served = serveLiteral(ctx, next, members[0]!, fold(relative), () => routerOf(members[0]!, prefix), {
        head,
        tail,
      });
      if (served !== undefined) return served;
    }
    const routers = members.map((member) => routerOf(member, prefix));
    const outer = ctx.router;
    for (const router of routers) router.adopt(owner, outer);
    const mine: Layer[] = [];
    // @koa/router appends the layers it matches to this array; `settle` moves them to this layer's place.
    ctx.matched = [...head];
    let seen = head.length;
    ctx.params = withoutRest(ctx.params);
    ctx.request.params = ctx.params;
    // Runs before any code of a resource's routes, and when the request leaves them.
    const settle = () => {
      const appended = (ctx.matched ?? []).slice(seen);
      mine.push(...appended.filter((layer) => !routers.some((router) => router.entry === layer)));
      ctx.matched = [...head, ...mine, ...tail];
      seen = ctx.matched.length;
      ctx.router = outer;
      ctx.routeMatched = ctx.matched.some((layer) => layer.methods.includes(ctx.method));
      if (!mine.some((layer) => layer.methods.includes(ctx.method))) ctx._matchedRoute = undefined;
    };
    const dispatch = (index: number): Promise<unknown> => {
      const router = routers[index];
      if (router === undefined) return (settle(), next());
      (ctx as SettlingContext)[SETTLE] = settle;
      // The router calls `enter` first, or this `next` when no route of its own matches: `settle` runs either way.
      return Promise.resolve(router.middleware(ctx, () => (settle(), dispatch(index + 1))));
    };
    return dispatch(0);
  } as Middleware;
  const run: Run = {
    owner,
    middleware,
    add: (base, routes) => {
      const member: Member = { order: members.length, routes, routers: new Map(), literal: literalPaths(routes, fold) };
      members.push(member);
      if (!LITERAL.test(base)) anywhere.push(member);
      else byBase.set(fold(base), [...(byBase.get(fold(base)) ?? []), member]);
    },
  };
  Object.assign(middleware, { [RUN]: run });
  return run;
}

/** The router options under which a resource's router does nothing for a literal route but match it and run it. */
function plainOptions(opts: Router['opts']): boolean {
  return opts.exclusive !== true && opts.host === undefined && opts.routerPath === undefined;
}

/**
 * The places of a resource's routes by path, for the paths made of literal segments only that no route with a
 * parameter can match (`/products`, not `/products/options`, which `/products/:id` matches too). A route path of
 * another shape than literal and `:name` segments (a wildcard, an optional part) may match anything: then none.
 * @example literalPaths(routes, fold).get('/products') // [0, 1]: the search and the create
 */
function literalPaths(
  routes: readonly DispatchRoute[],
  fold: (path: string) => string,
): ReadonlyMap<string, readonly number[]> {
  const found = new Map<string, number[]>();
  const patterns: (string | null)[][] = [];
  for (const [index, route] of routes.entries()) {
    if (LITERAL.test(route.path)) {
      const key = fold(route.path);
      found.set(key, [...(found.get(key) ?? []), index]);
      continue;
    }
    const segments = route.path.split('/').slice(1);
    // A whole-segment parameter (null) matches any segment; anything else of this route is not understood here.
    if (!segments.every((segment) => PARAM.test(segment) || LITERAL.test(`/${segment}`))) return new Map();
    patterns.push(segments.map((segment) => (PARAM.test(segment) ? null : fold(segment))));
  }
  for (const key of [...found.keys()]) {
    const segments = key.split('/').slice(1);
    const reached = patterns.some(
      (pattern) =>
        pattern.length === segments.length && pattern.every((part, i) => part === null || part === segments[i]),
    );
    if (reached) found.delete(key);
  }
  return found;
}

/** A route path segment that is one parameter and nothing else. */
const PARAM = /^:[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Serves a request whose path below the prefix is one of `member`'s literal paths, as the member's router would:
 * the same layers (its routes' own, from that router's stack) go in the run's place in `ctx.matched`, and the route
 * of the request's method runs with the context @koa/router gives it (`params`, `captures`, `routerPath`,
 * `_matchedRoute`). Undefined, for the member's router to serve it, when no route or more than one takes the method,
 * or when a route's layer holds more than its own middleware.
 */
function serveLiteral(
  ctx: RouterContext,
  next: Next,
  member: Member,
  path: string,
  router: () => ResourceRouter,
  around: { readonly head: readonly Layer[]; readonly tail: readonly Layer[] },
): Promise<unknown> | undefined {
  const places = member.literal.get(path);
  if (places === undefined) return undefined;
  const { layers } = router();
  let chosen: Layer | undefined;
  for (const place of places) {
    const layer = layers[place]!;
    if (!layer.methods.includes(ctx.method)) continue;
    if (chosen !== undefined || layer.stack.length !== 1) return undefined;
    chosen = layer;
  }
  if (chosen === undefined || typeof chosen.path !== 'string') return undefined;
  ctx.matched = [...around.head, ...places.map((place) => layers[place]!), ...around.tail];
  ctx.routeMatched = true;
  // A new object, as each layer @koa/router runs gives one.
  const params = withoutRest(ctx.params);
  ctx.params = params === ctx.params ? { ...params } : params;
  ctx.request.params = ctx.params;
  ctx.captures = [];
  ctx.routerPath = chosen.path;
  ctx.routerName = chosen.name || undefined;
  ctx._matchedRoute = chosen.path;
  if (chosen.name) ctx._matchedRouteName = chosen.name;
  // A throw propagates to the koa-compose of the run's layer, which rejects with it as the member's router's would.
  return Promise.resolve(chosen.stack[0]!(ctx, next));
}

/** The router of one resource under one prefix, and what connects it to a request. */
interface ResourceRouter {
  /** The layers of the resource's routes, in the order of its routes. */
  readonly layers: readonly Layer[];
  readonly middleware: Middleware;
  /** The layer of `enter`, the first this router runs: not one of the resource's routes. */
  readonly entry: Layer | undefined;
  /** Registers the `router.param` handlers of the app's routers that this router does not have yet. */
  adopt(owner: Router, current: Router | undefined): void;
}

function resourceRouter(prefix: string, routes: readonly DispatchRoute[], owner: Router): ResourceRouter {
  const router = new Router({ ...owner.opts, prefix: prefix === '' ? undefined : prefix });
  router.use(function fastCrudEnter(ctx: RouterContext, next: Next) {
    const settle = (ctx as SettlingContext)[SETTLE];
    // Taken once: a later router's enter never runs this request's settle of another router.
    (ctx as SettlingContext)[SETTLE] = undefined;
    settle?.();
    return next();
  });
  const entry = router.stack[0];
  for (const route of routes) router[route.verb](route.path, route.middleware);
  const adopted = new Set<unknown>();
  const adopt = (from: Router) => {
    if (isEmpty(from.params)) return;
    for (const [name, handlers] of Object.entries(from.params)) {
      for (const handler of Array.isArray(handlers) ? handlers : [handlers]) {
        if (adopted.has(handler)) continue;
        adopted.add(handler);
        router.param(name, handler);
      }
    }
  };
  return {
    layers: router.stack.slice(1),
    middleware: router.routes() as Middleware,
    entry,
    adopt: (ownerRouter, current) => {
      adopt(ownerRouter);
      if (current !== undefined && current !== ownerRouter) adopt(current);
    },
  };
}

function withoutRest(params: Record<string, string>): Record<string, string> {
  if (!(REST in params)) return params;
  const { [REST]: _rest, ...others } = params;
  return others;
}

/** True when an object has no enumerable key (no `router.param` handler), without making the list of its keys. */
function isEmpty(object: object): boolean {
  for (const _key in object) return false;
  return true;
}
