/** How the routes match, for docs/guide/routes.md. */
import type { Step } from '../exchange.js';

export default [
  {
    title: 'An {id} that is not a UUID matches no route: no controller code runs, and the demo’s notFound() answers a JSend 404',
    request: 'GET /api/products/not-a-uuid',
  },
  {
    title: 'A UUID that names no row reaches the action: a JSend 404',
    request: 'GET /api/products/00000000-0000-5000-8000-000000000000',
  },
  {
    title: '/export-csv is the export, not a record whose id is “export-csv”',
    request: 'GET /api/products/export-csv?filter[price][lt]=20&sort=price',
  },
  {
    title: 'A verb the path has no route for: 405 with Allow, as JSend because the demo mounts notFound()',
    request: 'PATCH /api/categories',
  },
] satisfies Step[];
