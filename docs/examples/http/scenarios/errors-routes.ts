/** What notFound() and @koa/router answer when no koa-fast-crud route matches, for docs/guide/errors.md. */
import type { Step } from '../exchange.js';

export default [
  { title: 'A path no route has: `routeNotFound`', request: 'GET /api/suppliers' },
  { title: 'An `{id}` that is not a UUID: the route does not match', request: 'GET /api/products/BK-001' },
  { title: 'A method the path does not have: `methodNotAllowed`, with `Allow`', request: 'DELETE /api/categories' },
] satisfies Step[];
