/** Configuration: the spec's defaults, and the one check that merges and validates what users pass. */
import * as E from 'fp-ts/lib/Either.js';
import type { ConfigError, FastCrudConfig, SearchCount } from '../types.js';
import { isPlainIdentifier } from './columns.js';
import { isHttpStatus } from './http-status.js';
import { isSerializedOrigin } from './cross-origin.js';

/**
 * The spec's defaults (`toolkit.fast-crud.*` without the prefix).
 * @example DEFAULT_CONFIG.options.default_value // 'id'
 */
export const DEFAULT_CONFIG: FastCrudConfig = deepFreeze({
  global: {
    validation: { http_status: 400 },
    find_field: 'id',
    find_field_is_uuid: true,
    body_limit: 1_048_576,
    max_depth: 64,
    max_url_length: 8192,
    timeout_ms: 10_000,
  },
  options: { http_status: 200, default_value: 'id', permission: null, value_columns: null, max_limit: 100 },
  search: {
    http_status: 200,
    method: 'toJSON',
    per_page: 40,
    max_per_page: 500,
    count: 'exact',
    count_threshold: 100_000,
    max_unpaginated: 10_000,
    strict_params: true,
    cursor_secret: null,
  },
  create: { http_status: 201, method: 'toJSON' },
  read: { http_status: 200, method: 'toJSON', find_field: null },
  update: { http_status: 200, method: 'toJSON', find_field: null, require_if_match: false },
  delete: { http_status: 200, find_field: null, require_if_match: false },
  soft_delete: {
    http_status: 200,
    method: 'toJSON',
    find_field: null,
    deleted_at_field: 'deleted_at',
    deleted_by_field: 'deleted_by',
  },
  restore: { http_status: 200, method: 'toJSON', find_field: null, require_if_match: false },
  export_csv: { http_status: 200, batch_size: 1000, use_master: false },
  cors: { origins: [], credentials: false, max_age: 600 },
  batch: { max_records: 1000 },
  live: {
    retention_s: 86_400,
    heartbeat_s: 15,
    max_buffered_events: 1000,
    max_subscribers: 10_000,
    poll_ms: 1000,
    retry_ms: 3000,
  },
  aggregate: { max_groups: 1000 },
});

/**
 * Merges a partial configuration over the defaults (or another resolved configuration) and checks every key it sets:
 * unknown keys, wrong types, an `http_status` outside the status enumeration, or a column
 * name that is not a plain identifier give a Left naming the key and the value.
 * A new key slots in by adding it, with its default, to `FastCrudConfig` and `DEFAULT_CONFIG`.
 * @example resolveConfig({ options: { http_status: 999 } })
 *   // left({ _tag: 'invalidConfig', key: 'options.http_status', value: 999, expected: 'an HTTP status code' })
 */
export function resolveConfig(
  input: unknown = {},
  base: FastCrudConfig = DEFAULT_CONFIG,
): E.Either<ConfigError, FastCrudConfig> {
  const merged = mergeNode(DEFAULT_CONFIG as unknown as Node, base as unknown as Node, input, []);
  return E.map((node: Node) => deepFreeze(node) as unknown as FastCrudConfig)(merged);
}

/**
 * `resolveConfig` for registration time: throws a RangeError with `formatConfigError`'s sentence.
 * @example unsafeResolveConfig({ options: { http_status: 999 } })
 *   // throws 'koa-fast-crud config: options.http_status must be …'
 */
export function unsafeResolveConfig(input: unknown, base: FastCrudConfig = DEFAULT_CONFIG): FastCrudConfig {
  const resolved = resolveConfig(input, base);
  if (E.isLeft(resolved)) throw new RangeError(formatConfigError(resolved.left));
  return resolved.right;
}

/**
 * A readable sentence for a configuration error.
 * @example
 * formatConfigError({ _tag: 'invalidConfig', key: 'options.http_status', value: 999, expected: 'an HTTP status code' })
 *   // 'koa-fast-crud config: options.http_status must be an HTTP status code, got 999'
 */
export function formatConfigError(error: ConfigError): string {
  return (
    `koa-fast-crud config: ${error.key === '' ? 'the configuration' : error.key} must be ${error.expected}, got ` +
    `${JSON.stringify(error.value) ?? String(error.value)}`
  );
}

type Node = Readonly<Record<string, unknown>>;

/** The longest delay Node's timers keep (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

const SEARCH_COUNTS: readonly SearchCount[] = ['exact', 'none', 'estimate'];

/** Checks `input` against the shape of `schema` (DEFAULT_CONFIG's node) and merges it over `base`. */
function mergeNode(schema: Node, base: Node, input: unknown, path: readonly string[]): E.Either<ConfigError, Node> {
  if (input === undefined) return E.right(base);
  if (!isPlainObject(input)) return invalid(path, input, 'an object');
  return Object.entries(input).reduce<E.Either<ConfigError, Node>>(
    (merged, [key, value]) =>
      E.chain((node: Node) =>
        E.map((checked: unknown) => ({ ...node, [key]: checked }))(mergeKey(schema, base, key, value, [...path, key])),
      )(merged),
    E.right(base),
  );
}

function mergeKey(
  schema: Node,
  base: Node,
  key: string,
  value: unknown,
  path: readonly string[],
): E.Either<ConfigError, unknown> {
  if (!Object.hasOwn(schema, key))
    return invalid(path, value, `one of the known keys (${Object.keys(schema).join(', ')})`);
  const shape = schema[key];
  if (isPlainObject(shape)) return mergeNode(shape, base[key] as Node, value, path);
  if (value === undefined) return E.right(base[key]);
  return checkLeaf(key, shape, value, path);
}

/** Leaves whose value is null or a list of plain identifiers (their default is null, so their type is named here). */
const LIST_KEYS: ReadonlySet<string> = new Set(['options.value_columns']);

function checkLeaf(
  key: string,
  fallback: unknown,
  value: unknown,
  path: readonly string[],
): E.Either<ConfigError, unknown> {
  if (key === 'http_status') return isHttpStatus(value) ? E.right(value) : invalid(path, value, 'an HTTP status code');
  if (key === 'count')
    return SEARCH_COUNTS.includes(value as SearchCount)
      ? E.right(value)
      : invalid(path, value, `one of ${SEARCH_COUNTS.join(', ')}`);
  if (path.join('.') === 'cors.origins') {
    return isOriginList(value)
      ? E.right([...value])
      : invalid(path, value, "a list of origins such as 'https://admin.example.com'");
  }
  if (path.join('.') === 'search.cursor_secret')
    return value === null || (typeof value === 'string' && value.length >= 32)
      ? E.right(value)
      : invalid(path, value, 'null or a string of at least 32 characters');
  if (LIST_KEYS.has(path.join('.')))
    return value === null || isIdentifierList(value)
      ? E.right(value === null ? null : [...value])
      : invalid(path, value, 'null or a list of plain identifiers');
  if (typeof fallback === 'string' || fallback === null) {
    if (value === null && fallback === null) return E.right(value);
    return typeof value === 'string' && isPlainIdentifier(value)
      ? E.right(value)
      : invalid(path, value, 'a plain identifier');
  }
  if (key === 'heartbeat_s')
    return Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= MAX_TIMER_MS / 1000
      ? E.right(value)
      : invalid(path, value, `a positive integer up to ${Math.floor(MAX_TIMER_MS / 1000)}`);
  if (key === 'timeout_ms' || key === 'poll_ms')
    return Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= MAX_TIMER_MS
      ? E.right(value)
      : invalid(path, value, `a positive integer up to ${MAX_TIMER_MS}`);
  if (typeof fallback === 'number') {
    return Number.isSafeInteger(value) && (value as number) > 0
      ? E.right(value)
      : invalid(path, value, 'a positive integer');
  }
  return typeof value === typeof fallback ? E.right(value) : invalid(path, value, `a ${typeof fallback}`);
}

function isOriginList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && isSerializedOrigin(item));
}

function isIdentifierList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && isPlainIdentifier(item));
}

function invalid(path: readonly string[], value: unknown, expected: string): E.Either<ConfigError, never> {
  return E.left({ _tag: 'invalidConfig', key: path.join('.'), value, expected });
}

function isPlainObject(value: unknown): value is Node {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function deepFreeze<T extends object>(value: T): T {
  Object.values(value as Readonly<Record<string, unknown>>).forEach(
    (child) => typeof child === 'object' && child !== null && deepFreeze(child),
  );
  return Object.freeze(value);
}
