/** Route paths: the spec's `{id:uuid}` notation compiled to a @koa/router path and its constraints. */

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):uuid\}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A planned path as @koa/router takes it, with the parameters that must hold UUIDs. */
export interface CompiledPath {
  /** Leading slash, `:name` parameters. */
  readonly path: string;
  readonly uuidParams: readonly string[];
}

/**
 * Compiles a planned path to a @koa/router path; @koa/router 15 takes no inline regexps,
 * so the uuid constraint comes back as data for the route's matcher to check.
 * @example compilePath('products/{id:uuid}/restore') // { path: '/products/:id/restore', uuidParams: ['id'] }
 */
export function compilePath(planned: string): CompiledPath {
  return {
    path: `/${planned.replace(PLACEHOLDER, ':$1')}`,
    uuidParams: [...planned.matchAll(PLACEHOLDER)].map((match) => match[1] as string),
  };
}

/**
 * True for a UUID in its canonical 8-4-4-4-12 hex form, any version, either case.
 * @example isUuid('0b6f1a36-8d3c-4c5e-9d43-6d0f3e2b1a7c') // true
 * @example isUuid('not-a-uuid') // false
 */
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}
