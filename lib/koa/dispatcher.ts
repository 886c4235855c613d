/**
 * One router layer per `crud` call: it matches the resource's paths by their shape and runs the
 * resource's routes on a small router of its own, so @koa/router tests one layer per resource.
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

/** The dispatcher's layer paths, and the middleware to register on each with `router.all`. */
export interface Dispatcher {
  /** `<uri>` and any path below it (`/products{/*fastCrudPath}`). */
  readonly patterns: readonly string[];
  readonly middleware: Middleware;
}

/** The name of the pattern's wildcard: never seen by a route (removed from `ctx.params` first). */
const REST = 'fastCrudPath';

/** How many resource routers (one per prefix the layer is seen under) a dispatcher keeps. */
const MAX_PREFIXES = 16;

/**
 * The layer paths of a resource whose routes sit at `base` (the uri's path, '' for the root), and
 * below it when `nested`. A resource at the root gets its root path as a layer of its own, so that
 * a prefix (`/api`, or `/api/` with `strict`) applies to it as to any root route. One wildcard, not
 * a segment per level: @koa/router's regular expression for a path with optional segments has a
 * branch per combination, and it tests every layer's on every request.
 * @example dispatchPatterns('/products', true) // ['/products{/*fastCrudPath}']
 * @example dispatchPatterns('', true) // ['/', '/*fastCrudPath']
 */
export function dispatchPatterns(base: string, nested: boolean): string[] {
  if (base !== '') return [nested ? `${base}{/*${REST}}` : base];
  return nested ? ['/', `/*${REST}`] : ['/'];
}

/** The prefix a dispatcher layer has when it runs: its path without the pattern it was registered with. */
function prefixOf(layerPath: string, patterns: readonly string[]): string | undefined {
  const pattern = patterns.find((candidate) => candidate !== '/' && layerPath.endsWith(candidate));
  if (pattern !== undefined) return layerPath.slice(0, layerPath.length - pattern.length);
  // The root layer: '/', '<prefix>', or '<prefix>/' with `strict`.
  return patterns[0] === '/' ? layerPath.replace(/\/$/, '') : undefined;
}

/**
 * The dispatcher of one resource: `router.all(pattern, middleware)` registers it for each pattern. The patterns
 * match every path of the resource's routes (and any other path below its uri); the middleware
 * runs the request through a router that holds exactly those routes, one layer per verb and path
 * under the prefix the layer has when it runs (`router.prefix` later, or a parent router's
 * `use(path, child.routes())`), so matching, `ctx.params`, `ctx._matchedRoute`, `ctx.routerPath`
 * and `router.param` handlers are @koa/router's own. It puts that router's matched layers in its
 * own place in `ctx.matched`, so `allowedMethods()` and `notFound()` answer 405, 501, OPTIONS and
 * `Allow` from the routes as if they were on the app's router, and sets `ctx.routeMatched` from them.
 * @example const { patterns, middleware } = dispatcher('/products', routes, router); for (const p of patterns) router.all(p, middleware);
 */
export function dispatcher(base: string, routes: readonly DispatchRoute[], owner: Router): Dispatcher {
  const patterns = dispatchPatterns(base, routes.some((route) => route.path.slice(base.length).split('/').some(Boolean)));
  const routers = new Map<string, ResourceRouter>();
  const routerFor = (layerPath: string): ResourceRouter | undefined => {
    const prefix = prefixOf(layerPath, patterns);
    if (prefix === undefined) return undefined;
    let found = routers.get(prefix);
    if (found !== undefined) return found;
    if (routers.size >= MAX_PREFIXES) routers.delete(routers.keys().next().value!);
    found = resourceRouter(prefix, routes, owner);
    routers.set(prefix, found);
    return found;
  };
  const middleware = function fastCrudDispatch(ctx: RouterContext, next: Next): Promise<unknown> {
    const own = typeof ctx.routerPath === 'string' ? routerFor(ctx.routerPath) : undefined;
    const matched = ctx.matched ?? [];
    const at = matched.findIndex((layer) => layer.path === ctx.routerPath && layer.stack.includes(middleware));
    if (own === undefined || at < 0) return next();
    own.adopt(owner, ctx.router);
    const outer = ctx.router;
    const head = matched.slice(0, at);
    const tail = matched.slice(at + 1);
    // @koa/router appends the layers it matches to this array; `settle` puts them in place of this layer.
    ctx.matched = [...head];
    ctx.params = withoutRest(ctx.params);
    ctx.request.params = ctx.params;
    let settled = false;
    // Runs before any code of the resource's routes, when the request leaves them, and when they return.
    const settle = () => {
      if (settled) return;
      settled = true;
      const mine = (ctx.matched ?? []).slice(head.length).filter((layer) => layer !== own.entry);
      ctx.matched = [...head, ...mine, ...tail];
      ctx.router = outer;
      ctx.routeMatched = ctx.matched.some((layer) => layer.methods.includes(ctx.method));
      if (!mine.some((layer) => layer.methods.includes(ctx.method))) ctx._matchedRoute = undefined;
    };
    own.settle.set(ctx, settle);
    const done = own.middleware(ctx, () => (settle(), next()));
    settle();
    return Promise.resolve(done);
  } as Middleware;
  return { patterns, middleware };
}

/** The router of one resource under one prefix, and what connects it to a request. */
interface ResourceRouter {
  readonly middleware: Middleware;
  /** The layer of `enter`, the first this router runs: not one of the resource's routes. */
  readonly entry: Layer | undefined;
  /** The `settle` of each request in flight, for `enter`. */
  readonly settle: WeakMap<object, () => void>;
  /** Registers the `router.param` handlers of the app's routers that this router does not have yet. */
  adopt(owner: Router, current: Router | undefined): void;
}

function resourceRouter(prefix: string, routes: readonly DispatchRoute[], owner: Router): ResourceRouter {
  const router = new Router({ ...owner.opts, prefix: prefix === '' ? undefined : prefix });
  const settle = new WeakMap<object, () => void>();
  router.use(function fastCrudEnter(ctx: RouterContext, next: Next) {
    settle.get(ctx)?.();
    return next();
  });
  const entry = router.stack[0];
  for (const route of routes) router[route.verb](route.path, route.middleware);
  const adopted = new Set<unknown>();
  const adopt = (from: Router) => {
    for (const [name, handlers] of Object.entries(from.params)) {
      for (const handler of Array.isArray(handlers) ? handlers : [handlers]) {
        if (adopted.has(handler)) continue;
        adopted.add(handler);
        router.param(name, handler);
      }
    }
  };
  return {
    middleware: router.routes() as Middleware,
    entry,
    settle,
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
