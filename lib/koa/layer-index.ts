/**
 * An index of a router's layers by the literal start of their paths, so `router.match` tests only
 * the layers a request path can reach instead of every layer in `router.stack`.
 */
import type Router from '@koa/router';
import { literalHead, type Layer } from './literal-head.js';

/** What @koa/router's `match` returns (its typings do not export the type). */
type MatchResult = ReturnType<Router['match']>;

/** One trie node: the stack positions of the `crud` layers whose head ends here, and the next characters. */
interface Node {
  readonly layers: number[];
  readonly next: Map<number, Node>;
}

/** The index of one router's stack as it was when built, and what tells whether the stack changed since. */
interface Index {
  readonly stack: readonly Layer[];
  /** `pathChanges` when built. */
  readonly changes: number;
  /** Positions of the layers not indexed (not added by `crud`, or with an empty head): tested for every path. */
  readonly always: readonly number[];
  readonly root: Node;
}

/** The layers `crud` registered: the only ones whose head is known to bound what they match (see `withLiteralHead`). */
const ours = new WeakSet<Layer>();

/** Counts every change of an indexed layer's path (`setPrefix` assigns it), so an index knows when it is stale. */
let pathChanges = 0;

/**
 * Marks a layer as registered by `crud`, so the router's index may skip it for paths that cannot
 * start with its literal head. Its `path` becomes an accessor that counts changes, so a prefix set
 * later (`router.prefix`) rebuilds the index; it reads and writes as the plain property did.
 * @example indexLayer(withLiteralHead(router.register('/products', ['get'], middleware) as Layer))
 */
export function indexLayer(layer: Layer): Layer {
  let path = layer.path;
  Object.defineProperty(layer, 'path', {
    get: () => path,
    set: (value: typeof path) => {
      path = value;
      pathChanges += 1;
    },
    enumerable: true,
    configurable: true,
  });
  ours.add(layer);
  return layer;
}

function build(stack: readonly Layer[]): Index {
  const root: Node = { layers: [], next: new Map() };
  const always: number[] = [];
  stack.forEach((layer, position) => {
    const head = ours.has(layer) && typeof layer.path === 'string' ? literalHead(layer.path) : '';
    if (head === '') {
      always.push(position);
      return;
    }
    let node = root;
    for (let i = 0; i < head.length; i += 1) {
      const code = head.charCodeAt(i);
      let child = node.next.get(code);
      if (child === undefined) node.next.set(code, (child = { layers: [], next: new Map() }));
      node = child;
    }
    node.layers.push(position);
  });
  return { stack: [...stack], changes: pathChanges, always, root };
}

/** True while the router's stack holds the same layers, in the same order, with the same paths as when indexed. */
function fresh(index: Index, stack: readonly Layer[]): boolean {
  if (stack.length !== index.stack.length || pathChanges !== index.changes) return false;
  for (let i = 0; i < stack.length; i += 1) if (stack[i] !== index.stack[i]) return false;
  return true;
}

/**
 * The stack positions of the layers that may match `path`, in stack order: every layer not indexed,
 * and each indexed layer whose head `path` may start with. A path character c follows a head
 * character h when c === h or (c | 32) === h, the test `cannotStartWith` makes, so no layer that
 * could match is left out.
 */
function candidates(index: Index, path: string): number[] {
  const found = [...index.always];
  let frontier: Node[] = [index.root];
  for (let i = 0; i < path.length && frontier.length > 0; i += 1) {
    const code = path.charCodeAt(i);
    const folded = code | 32;
    const next: Node[] = [];
    for (const node of frontier) {
      const exact = node.next.get(code);
      if (exact !== undefined) next.push(exact);
      const other = folded === code ? undefined : node.next.get(folded);
      if (other !== undefined) next.push(other);
    }
    for (const node of next) for (const position of node.layers) found.push(position);
    frontier = next;
  }
  return found.sort((a, b) => a - b);
}

/** Routers whose `match` is already indexed. */
const indexed = new WeakSet<Router>();

/**
 * Gives a router a `match` that tests only the layers a path can reach: the layers `crud` added
 * whose literal head the path may start with, and every other layer. The result is the one
 * @koa/router's own `match` gives (the same layers in stack order, the same `route`), because it
 * is that `match`, run over those layers; the index is rebuilt whenever `router.stack` or a
 * layer's path changes (a route added later, `router.prefix`).
 * @example indexRouter(router) // after crud(router, …)
 */
export function indexRouter(router: Router): void {
  if (indexed.has(router)) return;
  indexed.add(router);
  const original = router.match;
  // The original `match` reads only `this.stack`; it runs on a view of the router whose stack is the candidates.
  const view = Object.create(router) as Router & { stack: Layer[] };
  let index: Index | undefined;
  router.match = function indexedMatch(this: Router, path: string, method: string): MatchResult {
    if (this !== router) return original.call(this, path, method);
    if (index === undefined || !fresh(index, router.stack)) index = build(router.stack);
    const positions = candidates(index, path);
    const stack = index.stack;
    view.stack = positions.map((position) => stack[position]!);
    return original.call(view, path, method);
  };
}
