/** A cheap first test for a router layer: the literal start of its path, compared before its regexp. */
import type Router from '@koa/router';

/** A @koa/router layer, as `router.stack` holds it. */
export type Layer = Router['stack'][number];

/** Characters copied verbatim into a path-to-regexp v8 pattern, with the same meaning in a request path. */
const PLAIN = /^[A-Za-z0-9/_.~-]*/;

/**
 * The literal start of a layer path, lower-cased: every path the layer matches begins with it,
 * ignoring ASCII case. It stops at the first parameter, group or any character outside
 * `A-Z a-z 0-9 / _ . ~ -`.
 * @example literalHead('/api/Products/:id') // '/api/products/'
 */
export function literalHead(path: string): string {
  return (PLAIN.exec(path)?.[0] ?? '').toLowerCase();
}

/**
 * True when `path` cannot start with `head` (lower-cased), whatever the ASCII case of its letters.
 * Compares from the end of the head, where the paths of sibling resources differ.
 * @example cannotStartWith('/api/orders/options', '/api/products') // true
 */
export function cannotStartWith(path: string, head: string): boolean {
  if (path.length < head.length) return true;
  for (let index = head.length - 1; index >= 0; index -= 1) {
    const wanted = head.charCodeAt(index);
    const got = path.charCodeAt(index);
    // `got | 32` folds A-Z onto a-z; anything else that folds equal is left to the regexp.
    if (got !== wanted && (got | 32) !== wanted) return true;
  }
  return false;
}

/**
 * Gives a registered layer a `match` that rejects a request path not starting with the layer
 * path's literal head before running the layer's regexp; any other path gets the regexp's answer,
 * so the layer matches exactly what it matched. The head follows `layer.path`, so a prefix set
 * later (`router.prefix`, nesting with `router.use`) is taken into account.
 * @example withLiteralHead(router.register('/products/options', ['get'], middleware) as Layer)
 */
export function withLiteralHead(layer: Layer): Layer {
  // Read from the path the layer had when last called; a clone made by router.use shares these
  // and reads them again when its path differs.
  let headOf: unknown;
  let head = '';
  layer.match = function matchAfterHead(this: Layer, path: string): boolean {
    if (this.path !== headOf) {
      headOf = this.path;
      head = typeof this.path === 'string' ? literalHead(this.path) : '';
    }
    return !cannotStartWith(path, head) && this.regexp.test(path);
  };
  return layer;
}
