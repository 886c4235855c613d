/**
 * The library's HTTP protocol as a client speaks it, for the data providers: query strings of
 * filters, sort and pages, JSend replies read, fails turned into field errors. No server code: it
 * runs in a browser, and its types name nothing from koa, sequelize, the DOM or Node.
 */
import { OPERATORS } from '../core/operators.js';

/**
 * A filter operator of the server's (see the filtering guide); the providers map their own to these.
 * @example const op: FilterOperator = 'gte';
 */
export type FilterOperator =
  'eq' | 'neq' | 'like' | 'gt' | 'gte' | 'lt' | 'lte' | 'gtn' | 'ltn' | 'json' | 'in' | 'nin' | 'btw' | 'nn' | 'null';

/**
 * One `filter[field][op]=value` condition; `value` is a list for `in`, `nin` and `btw`, ignored for `nn` and `null`.
 * @example { field: 'price', op: 'btw', value: [20, 40] }
 */
export interface FilterCondition {
  readonly field: string;
  readonly op: FilterOperator;
  readonly value?: unknown;
}

/**
 * A `filter[$or]` or `filter[$and]` group: items of which any (`or`) or every (`and`) must match, each item its
 * conditions and groups ANDed. The server takes groups three deep.
 * @example
 * ({ group: 'or', items: [[{ field: 'name', op: 'like', value: 'pan' }], [{ field: 'price', op: 'lt', value: 5 }]] })
 */
export interface FilterGroup {
  readonly group: 'or' | 'and';
  readonly items: readonly (readonly (FilterCondition | FilterGroup)[])[];
}

/**
 * What one search asks for, before it is written as a query string.
 * @example
 * ({
 *   conditions: [{ field: 'price', op: 'gte', value: 30 }],
 *   sort: [{ field: 'name', order: 'ASC' }],
 *   page: { page: 1, perPage: 10 },
 * })
 */
export interface SearchQuery {
  readonly conditions?: readonly FilterCondition[];
  /** `$or` and `$and` groups, ANDed with the conditions. */
  readonly groups?: readonly FilterGroup[] | undefined;
  /** The term search (`filter[<termKey>]=`), over the resource's term fields. */
  readonly term?: string | undefined;
  readonly sort?: readonly { readonly field: string; readonly order: 'ASC' | 'DESC' }[];
  /**
   * A page, a cursor page (`cursor=`: `''` for the first, then a `next` or `prev` cursor), or `'all'` for
   * `skipPagination=true`; absent: the server's default page.
   */
  readonly page?:
    | { readonly page: number; readonly perPage: number }
    | { readonly cursor: string; readonly perPage: number }
    | 'all'
    | undefined;
  /** Associations to load with each record (`include=category`). */
  readonly include?: readonly string[] | undefined;
  /** The sparse fieldset: the fields each record keeps (`fields=id,name,category.name`). */
  readonly fields?: readonly string[] | undefined;
}

/**
 * A fail item of a JSend `fail` reply, as the server writes it.
 * @example { field: 'price', error: 'schema', message: 'A price is never negative' }
 */
export interface FailItem {
  readonly field: string | null;
  readonly error: string;
  readonly message: string;
  readonly value?: unknown;
}

/**
 * The parts of a fetch `Response` the providers read; the global `Response` has them.
 * @example const reply: ResponseLike = await fetch(url);
 */
export interface ResponseLike {
  readonly status: number;
  readonly statusText?: string;
  /** The reply's headers (the global `Response` has them); the providers read `ETag`. */
  readonly headers?: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * What the providers pass to `fetch`: a method, a plain header record, a JSON body, and the
 * framework's `AbortSignal` when it gives one (typed `any` so that no DOM or Node type is needed
 * and the global `fetch` fits).
 * @example { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{"name":"Spade"}' }
 */
export interface RequestInitLike {
  method: string;
  headers: Record<string, string>;
  body?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an AbortSignal, without naming the DOM's type
  signal?: any;
}

/**
 * A reply as an `httpClient` gives it: react-admin's `fetchUtils.fetchJson` gives `{ status, json }`.
 * @example { status: 200, json: { status: 'success', data: [], meta: {} } }
 */
export interface HttpClientReply {
  readonly status: number;
  readonly json?: unknown;
  readonly body?: string;
  /** The reply's headers, as `fetchJson` gives them; the providers read `ETag`. */
  readonly headers?: { get(name: string): string | null };
}

/**
 * Options both providers take: how to reach the server and what to send with every request.
 * @example dataProvider('/api', { headers: () => ({ Authorization: `Bearer ${localStorage.getItem('token')}` }) })
 */
/**
 * What an `httpClient` is called with: a Headers object and an AbortSignal, typed loosely so as not
 * to name the DOM's types.
 */
export interface HttpClientInit {
  readonly method: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- fetchJson wants a Headers object
  readonly headers: any;
  readonly body?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an AbortSignal
  readonly signal?: any;
}

export interface ClientOptions {
  /** The fetch to call (default: the global `fetch`), for auth, retries or tests. */
  fetch?(this: void, url: string, init: RequestInitLike): Promise<ResponseLike>;
  /**
   * Instead of `fetch`: a client that resolves `{ status, json }` and may reject with `{ status, body }`
   * for a status outside 2xx, as react-admin's `fetchUtils.fetchJson` does; its fails are read all the same.
   * It gets a `Headers` object when the runtime has one (fetchJson needs it).
   */
  httpClient?(this: void, url: string, options: HttpClientInit): Promise<HttpClientReply>;
  /** Headers for every request, or a function that returns them (called per request: a token that changes). */
  headers?:
    | Readonly<Record<string, string>>
    | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>);
  /** The filter key of the term search, when a resource renames it (`search.termKey`); default `term`. */
  termKey?: string;
  /** The record's id attribute, used by getMany's `in` filter; default `id`. */
  idField?: string;
  /**
   * Statuses whose fail items become per-field form errors; default 400, 409 and 422
   * (`VALIDATION_STATUSES`). A 403 or 404 stays a message.
   */
  validationStatuses?: readonly number[];
  /**
   * Which resources have batch routes (`batch: true` on the server, see the batch-writes guide): `true` for every
   * resource, or a list of resource names. Their many-record methods send one atomic request per `batchSize` ids
   * (`PATCH <uri>?filter[<idField>][in]=…`, `DELETE <uri>?filter[<idField>][in]=…`, an array `POST <uri>`, and
   * `DELETE <uri>/soft?…`, `PATCH <uri>/restore?…` for soft delete and restore)
   * instead of one request per id. Default: none.
   */
  batch?: boolean | readonly string[];
  /**
   * The most ids (or records) one batch request carries; more are sent as several batch requests, one after the
   * other, each atomic on its own. Default 100 (`BATCH_SIZE`); keep it at most the server's `batch.max_records`.
   */
  batchSize?: number;
  /**
   * Resources whose `q` the options route answers (react-admin's autocomplete filter, Refine's `searchField`), each
   * with its label column: `{ categories: 'name' }`. Their getList with a `q`, even empty, sends
   * `GET <resource>/options?label=<column>&value=<idField>&q=…&limit=<perPage>` and the other filters as
   * `filter[...]`, and answers records `{ id, <column> }` in label order, for a resource without term fields (whose
   * `filter[term]` is a 400). Without `q` their getList searches as usual. Default: none.
   */
  autocomplete?: Readonly<Record<string, string>>;
  /**
   * Which resources' edits are conditional (see the concurrency guide): `true` for every resource, or a list of
   * resource names. The provider keeps the `ETag` of each record getOne (without `include`) and update answered, and
   * sends it back in `If-Match` when that record is updated or deleted; on a model with a version column it also sends
   * the record's `versionField` in the update's body. A write refused because the record changed since (412
   * `preconditionFailed`, 409 `staleVersion`) rejects with `conflictMessage`. Default: none.
   */
  preconditions?: boolean | readonly string[];
  /**
   * The version attribute a conditional update sends from the record it edits (Sequelize's `version: true` is
   * `version`), when that record has it; `false`: never send one. Default `version`.
   */
  versionField?: string | false;
  /** The message of a write refused because the record changed since it was read. Default `CONFLICT_MESSAGE`. */
  conflictMessage?: string;
}

/**
 * What a write refused because its record changed since it was read says unless `conflictMessage` says otherwise.
 * @example CONFLICT_MESSAGE // 'Someone else changed this record since you opened it: …'
 */
export const CONFLICT_MESSAGE =
  'Someone else changed this record since you opened it: reload it to see their changes (yours were not saved)';

/**
 * Whether a fail says the record changed since the client read it: a 412 `preconditionFailed`, or a 409
 * `staleVersion`.
 * @example isConflict(new ProtocolError(412, envelope, '')) // true
 */
export function isConflict(error: ProtocolError): boolean {
  return error.items.some((item) => item.error === 'preconditionFailed' || item.error === 'staleVersion');
}

/**
 * Whether `resource`'s edits are conditional by the client's `preconditions` option.
 * @example preconditionsFor({ preconditions: ['products'] }, 'products') // true
 */
export function preconditionsFor(options: Pick<ClientOptions, 'preconditions'>, resource: string): boolean {
  const { preconditions } = options;
  return (
    preconditions === true ||
    (Array.isArray(preconditions) && preconditions.includes(resource.replace(/^\/+|\/+$/g, '')))
  );
}

/** How many versions of one record a `TagMemory` keeps (one per content the client may still hold). */
const TAGS_PER_RECORD = 4;

/**
 * The ETags a provider was given for records, each kept with the record's content, so a write sends the ETag of the
 * very record the form shows (react-admin's `previousData`), not of a later read. Kept per resource and id, the last
 * few contents each.
 * @example memory.remember('products', record, '"nG5J…"'); memory.tagOf('products', record.id, record) // '"nG5J…"'
 */
export class TagMemory {
  readonly #tags = new Map<string, { readonly content: string; readonly etag: string }[]>();

  /** Keeps `etag` as the tag of `record` (of `resource`, with id `id`); a weak or absent tag is ignored. */
  remember(resource: string, id: unknown, record: unknown, etag: string | undefined): void {
    if (etag === undefined || etag.startsWith('W/') || !isObject(record)) return;
    const key = tagKey(resource, id);
    const content = canonicalJson(record);
    const kept = (this.#tags.get(key) ?? []).filter((entry) => entry.content !== content);
    this.#tags.set(key, [...kept.slice(1 - TAGS_PER_RECORD), { content, etag }]);
  }

  /**
   * The ETag kept for the record with that id: of the content `record` has when given (undefined when none was kept
   * for that content), else the last one kept.
   */
  tagOf(resource: string, id: unknown, record?: unknown): string | undefined {
    const kept = this.#tags.get(tagKey(resource, id)) ?? [];
    if (record === undefined || record === null) return kept.at(-1)?.etag;
    const content = isObject(record) ? canonicalJson(record) : undefined;
    return kept.find((entry) => entry.content === content)?.etag;
  }

  /** Forgets the record (deleted). */
  forget(resource: string, id: unknown): void {
    this.#tags.delete(tagKey(resource, id));
  }
}

function tagKey(resource: string, id: unknown): string {
  return `${resource.replace(/^\/+|\/+$/g, '')}\u0000${String(id)}`;
}

/** JSON with every object's keys sorted, so two copies of one record compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isObject(inner)
      ? Object.fromEntries(
          Object.keys(inner)
            .sort()
            .map((key) => [key, inner[key]]),
        )
      : inner,
  );
}

/**
 * The statuses whose fail items are form errors unless `validationStatuses` says otherwise: the
 * validation status, a conflict (`unique`, `foreignKey`), and 422 for an app that configures it.
 * @example VALIDATION_STATUSES.includes(409) // true
 */
export const VALIDATION_STATUSES: readonly number[] = Object.freeze([400, 409, 422]);

/**
 * A JSend reply that is not a success, as thrown by `request`: its status, envelope and fail items.
 * The providers turn it into their framework's error.
 * @example new ProtocolError(400, { status: 'fail', data: [...] }, 'Bad Request')
 */
export class ProtocolError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The parsed JSON body (a JSend `fail` or `error`), or undefined when it was not JSON. */
  readonly envelope: unknown;
  /** The fail items of a JSend `fail`; empty for anything else. */
  readonly items: readonly FailItem[];
  constructor(status: number, envelope: unknown, statusText: string) {
    const items = failItems(envelope);
    super(
      items.length > 0
        ? items.map((item) => item.message).join('; ')
        : (messageOf(envelope) ?? (statusText || `HTTP ${status}`)),
    );
    this.name = 'ProtocolError';
    this.status = status;
    this.envelope = envelope;
    this.items = items;
  }
}

/**
 * The fail items of a JSend `fail` body, or none.
 * @example
 * failItems({ status: 'fail', data: [{ field: 'sku', error: 'unique', message: 'sku must be unique' }] }).length // 1
 */
export function failItems(envelope: unknown): FailItem[] {
  if (!isObject(envelope) || envelope['status'] !== 'fail' || !Array.isArray(envelope['data'])) return [];
  return envelope['data'].filter((item): item is FailItem => isObject(item) && typeof item['message'] === 'string');
}

/**
 * Fail items as one message per field, for a form: `{ price: 'A price is never negative' }`.
 * Items without a field go under `root.serverError`, react-hook-form's key for a form-wide error;
 * several messages for one field are joined.
 * @example fieldErrors([{ field: null, error: 'foreignKey', message: 'A foreign key …' }])
 *   // { root: { serverError: 'A foreign key …' } }
 */
export function fieldErrors(items: readonly FailItem[]): Record<string, string | { serverError: string }> {
  const errors: Record<string, string | { serverError: string }> = {};
  for (const { field, message } of items) {
    if (field === null || field === '' || field === 'root') {
      const previous = errors['root'];
      errors['root'] = { serverError: typeof previous === 'object' ? `${previous.serverError}; ${message}` : message };
    } else {
      const previous = errors[field];
      errors[field] = typeof previous === 'string' ? `${previous}; ${message}` : message;
    }
  }
  return errors;
}

/**
 * The query string of a search, in the server's bracket syntax (without the `?`). Lists are
 * comma-separated, or repeated with `[]` when an item holds a comma. Throws for an operator the
 * server does not have, or a list given to a one-value operator: a mistake of the caller's.
 * @example
 * searchParams({
 *   conditions: [{ field: 'price', op: 'gte', value: 30 }],
 *   sort: [{ field: 'price', order: 'DESC' }],
 *   page: { page: 2, perPage: 10 },
 * })
 *   // 'filter[price][gte]=30&sort=-price&page=2&perPage=10'
 */
export function searchParams(query: SearchQuery, termKey = 'term'): string {
  const pairs: [string, string][] = [];
  for (const condition of query.conditions ?? []) pairs.push(...conditionPairs(condition));
  pairs.push(...groupPairs('filter', query.groups ?? []));
  if (query.term !== undefined && query.term.trim() !== '')
    pairs.push([`filter[${encodeURIComponent(termKey)}]`, query.term]);
  const sort = (query.sort ?? []).map(({ field, order }) => (order === 'DESC' ? `-${field}` : field));
  if (sort.length > 0) pairs.push(['sort', sort.join(',')]);
  if (query.page === 'all') pairs.push(['skipPagination', 'true']);
  else if (query.page !== undefined && 'cursor' in query.page)
    pairs.push(['perPage', String(query.page.perPage)], ['cursor', query.page.cursor]);
  else if (query.page !== undefined)
    pairs.push(['page', String(query.page.page)], ['perPage', String(query.page.perPage)]);
  if (query.include !== undefined && query.include.length > 0) pairs.push(['include', query.include.join(',')]);
  if (query.fields !== undefined && query.fields.length > 0) pairs.push(['fields', query.fields.join(',')]);
  return pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&');
}

/**
 * The pairs of the groups of one level under `prefix` (`filter`, `filter[$or][0]`). One `$or` per level is one list
 * of items, so a second `$or` of the same level goes in as an item of that level's `$and` (which means the same);
 * `$and` groups of one level are one list of items.
 */
function groupPairs(prefix: string, groups: readonly FilterGroup[]): [string, string][] {
  const [first, ...more] = groups.filter((g) => g.group === 'or');
  const and = groups.filter((g) => g.group === 'and').flatMap((g) => g.items);
  const items = { $or: first?.items ?? [], $and: [...and, ...more.map((g) => [g])] };
  return Object.entries(items).flatMap(([key, list]) =>
    list.flatMap((item, i) => {
      const at = `${prefix}[${key}][${i}]`;
      const isGroup = (node: FilterCondition | FilterGroup): node is FilterGroup => 'group' in node;
      return [
        ...item.filter((node) => !isGroup(node)).flatMap((node) => conditionPairs(node as FilterCondition, at)),
        ...groupPairs(at, item.filter(isGroup)),
      ];
    }),
  );
}

/** The `filter[...]` pairs of one condition, under `prefix` (`filter`, or a group's item). */
function conditionPairs({ field, op, value }: FilterCondition, prefix = 'filter'): [string, string][] {
  const arity = Object.hasOwn(OPERATORS, op) ? OPERATORS[op] : undefined;
  if (arity === undefined)
    throw new Error(
      `koa-fast-crud: unknown filter operator ${JSON.stringify(op)} on ${JSON.stringify(field)}; use one of ` +
        `${Object.keys(OPERATORS).join(', ')}`,
    );
  const key = `${prefix}[${encodeURIComponent(field)}][${op}]`;
  if (arity === 'none') return [[key, '1']];
  if (op === 'json') return [[key, JSON.stringify(value)]];
  if (arity === 'one') {
    if (Array.isArray(value))
      throw new Error(`koa-fast-crud: the operator ${op} on ${JSON.stringify(field)} takes one value, not a list`);
    return [[key, textOf(value)]];
  }
  const items = (Array.isArray(value) ? value : [value]).map(textOf);
  if (arity === 'two' && items.length !== 2)
    throw new Error(
      `koa-fast-crud: the operator ${op} on ${JSON.stringify(field)} takes two values, got ${items.length}`,
    );
  return items.some((item) => item.includes(',')) ? items.map((item) => [`${key}[]`, item]) : [[key, items.join(',')]];
}

/**
 * A filter value as the query string carries it: dates in ISO 8601, the rest as text.
 * @example textOf(new Date(0)) // '1970-01-01T00:00:00.000Z'
 */
export function textOf(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
    case 'symbol':
      return value.toString();
    default:
      return value === null || value === undefined ? '' : (JSON.stringify(value) ?? '');
  }
}

/**
 * Sends one request and returns the JSend envelope of a 2xx reply; throws a `ProtocolError` for
 * any other status (or a 2xx that is not JSend success).
 * @example const { data, meta } = await request(options, 'GET', '/api/products?page=1');
 */
export async function request(
  options: ClientOptions,
  method: string,
  url: string,
  body?: unknown,
  signal?: unknown,
  extraHeaders?: Readonly<Record<string, string>>,
): Promise<{
  readonly data: unknown;
  readonly meta: Readonly<Record<string, unknown>>;
  /** The reply's `ETag`, when it has one and the client may read it. */
  readonly etag?: string;
}> {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    ...(body !== undefined && { 'Content-Type': 'application/json' }),
    ...(await resolveHeaders(options)),
    ...extraHeaders,
  };
  const text = body === undefined ? undefined : JSON.stringify(body);
  const { status, envelope, statusText, etag } = options.httpClient
    ? await viaHttpClient(options, method, url, headers, text, signal)
    : await viaFetch(options, method, url, headers, text, signal);
  if (status < 200 || status >= 300 || !isObject(envelope) || envelope['status'] !== 'success')
    throw new ProtocolError(status, envelope, statusText);
  return {
    data: envelope['data'],
    meta: isObject(envelope['meta']) ? envelope['meta'] : {},
    ...(etag !== undefined && { etag }),
  };
}

/**
 * The extra headers of `options.headers`, called when it is a function; none when absent.
 * @example await resolveHeaders({ headers: async () => ({ Authorization: 'Bearer t' }) })
 *   // { Authorization: 'Bearer t' }
 */
export async function resolveHeaders(options: ClientOptions): Promise<Readonly<Record<string, string>>> {
  return (typeof options.headers === 'function' ? await options.headers() : options.headers) ?? {};
}

interface Received {
  readonly status: number;
  readonly envelope: unknown;
  readonly statusText: string;
  readonly etag?: string;
}

function etagOf(headers: ResponseLike['headers'] | undefined): { etag?: string } {
  const etag = typeof headers?.get === 'function' ? headers.get('ETag') : null;
  return etag === null || etag === undefined || etag === '' ? {} : { etag };
}

async function viaFetch(
  options: ClientOptions,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: unknown,
): Promise<Received> {
  const fetcher = options.fetch ?? (globalThis as unknown as { fetch?: NonNullable<ClientOptions['fetch']> }).fetch;
  if (fetcher === undefined) throw new Error('koa-fast-crud: no fetch: pass options.fetch or options.httpClient');
  const response = await fetcher(url, {
    method,
    headers,
    ...(body !== undefined && { body }),
    ...(signal !== undefined && signal !== null && { signal }),
  });
  const text = await response.text();
  return {
    status: response.status,
    envelope: parseJson(text),
    statusText: response.statusText ?? '',
    ...etagOf(response.headers),
  };
}

async function viaHttpClient(
  options: ClientOptions,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: unknown,
): Promise<Received> {
  const HeadersClass = (globalThis as unknown as { Headers?: new (init: Record<string, string>) => unknown }).Headers;
  const init = {
    method,
    headers: HeadersClass ? new HeadersClass(headers) : headers,
    ...(body !== undefined && { body }),
    ...(signal !== undefined && signal !== null && { signal }),
  };
  try {
    const reply = await options.httpClient!(url, init);
    return {
      status: reply.status,
      envelope: reply.json ?? (reply.body === undefined ? undefined : parseJson(reply.body)),
      statusText: '',
      ...etagOf(reply.headers),
    };
  } catch (error) {
    // fetchJson rejects a non-2xx reply with an error carrying its status and parsed body; another client may carry the
    // body's text.
    if (isObject(error) && typeof error['status'] === 'number') {
      const body = typeof error['body'] === 'string' ? parseJson(error['body']) : error['body'];
      return { status: error['status'], envelope: body, statusText: textOf(error['message']) };
    }
    throw error;
  }
}

/**
 * `<apiUrl>/<resource>` with one slash between, and an optional path and query string.
 * @example resourceUrl('/api/', 'products', '/3', 'page=1') // '/api/products/3?page=1'
 */
export function resourceUrl(apiUrl: string, resource: string, path = '', query = ''): string {
  const base = `${apiUrl.replace(/\/+$/, '')}/${resource.replace(/^\/+|\/+$/g, '')}${path}`;
  return query === '' ? base : `${base}?${query}`;
}

/**
 * An id as one path segment.
 * @example idPath('a/b') // '/a%2Fb'
 */
export function idPath(id: unknown): string {
  return `/${encodeURIComponent(String(id))}`;
}

/**
 * The number of matching records a search reply gives in `meta.pagination.count`, when it counts.
 * @example totalOf({ pagination: { current: 1, perPage: 10, pagesCount: 1, count: 7 } }) // 7
 */
export function totalOf(meta: Readonly<Record<string, unknown>>): number | undefined {
  const pagination = meta['pagination'];
  return isObject(pagination) && typeof pagination['count'] === 'number' ? pagination['count'] : undefined;
}

/**
 * `meta.pagination.next` and `prev` of a cursor page (`cursor=`), each a cursor or null; undefined for an offset page.
 * @example cursorsOf({ pagination: { perPage: 10, next: 'WyJh…', prev: null } }) // { next: 'WyJh…', prev: null }
 */
export function cursorsOf(
  meta: Readonly<Record<string, unknown>>,
): { readonly next: string | null; readonly prev: string | null } | undefined {
  const pagination = meta['pagination'];
  if (!isObject(pagination) || !('next' in pagination)) return undefined;
  const cursor = (value: unknown) => (typeof value === 'string' ? value : null);
  return { next: cursor(pagination['next']), prev: cursor(pagination['prev']) };
}

/**
 * `meta.pagination.hasMore` of a search under `search.count: 'none'`.
 * @example hasMoreOf({ pagination: { current: 1, perPage: 10, hasMore: true } }) // true
 */
export function hasMoreOf(meta: Readonly<Record<string, unknown>>): boolean | undefined {
  const pagination = meta['pagination'];
  return isObject(pagination) && typeof pagination['hasMore'] === 'boolean' ? pagination['hasMore'] : undefined;
}

/**
 * How many ids or records one batch request carries unless `batchSize` says otherwise: small enough that a filter of
 * UUIDs keeps the URL within Node's 16 KiB header limit, and below the server's default `batch.max_records` (1,000).
 * @example BATCH_SIZE // 100
 */
export const BATCH_SIZE = 100;

/**
 * Whether `resource` has batch routes by the client's `batch` option.
 * @example batchesFor({ batch: ['tasks'] }, 'tasks') // true
 */
export function batchesFor(options: Pick<ClientOptions, 'batch'>, resource: string): boolean {
  const { batch } = options;
  return batch === true || (Array.isArray(batch) && batch.includes(resource.replace(/^\/+|\/+$/g, '')));
}

/**
 * Sends `send` for each group of at most `size` items, one after the other (a failed group stops the rest), and
 * returns what each sent, in order; no request for no items.
 * @example await inGroups([1, 2, 3], 2, async (group) => group) // [[1, 2], [3]]
 */
export async function inGroups<T, R>(
  items: readonly T[],
  size: number,
  send: (group: T[]) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (const group of chunks(items, Math.max(1, Math.floor(size)))) out.push(await send(group));
  return out;
}

/**
 * Ids in groups of at most `size`, so each getMany request stays well within URL and list limits.
 * @example chunks([1, 2, 3], 2) // [[1, 2], [3]]
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function messageOf(envelope: unknown): string | undefined {
  return isObject(envelope) && typeof envelope['message'] === 'string' ? envelope['message'] : undefined;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The label column `autocomplete` names for a resource, or undefined.
 * @example autocompleteLabel({ autocomplete: { categories: 'name' } }, 'categories') // 'name'
 */
export function autocompleteLabel(options: Pick<ClientOptions, 'autocomplete'>, resource: string): string | undefined {
  const labels = options.autocomplete;
  const name = resource.replace(/^\/+|\/+$/g, '');
  return labels !== undefined && Object.hasOwn(labels, name) ? labels[name] : undefined;
}

/** An autocomplete page: the label to search, the text, the other filters, and the page of a list. */
export interface AutocompleteQuery {
  readonly label: string;
  /** The column of each record's id (`idField`). */
  readonly value: string;
  readonly q: string;
  readonly conditions: readonly FilterCondition[];
  readonly page: number;
  readonly perPage: number;
}

/**
 * The options route's query string for an autocomplete page: the first `page × perPage` labels containing `q` (the
 * route has no offset; the server lowers `limit` to its `options.max_limit`).
 * @example optionsParams({ label: 'name', value: 'id', q: 'gar', conditions: [], page: 1, perPage: 25 })
 *   // 'label=name&value=id&q=gar&limit=25'
 */
export function optionsParams(query: AutocompleteQuery): string {
  const pairs: [string, string][] = [
    ['label', query.label],
    ['value', query.value],
    ['q', query.q],
    ['limit', String(Math.max(1, query.page) * query.perPage)],
  ];
  const filter = searchParams({ conditions: query.conditions });
  return [...pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`), ...(filter ? [filter] : [])].join('&');
}

/**
 * The records of an autocomplete page from the options route's items: `{ id: value, [label]: label }` (and
 * `[value]: value` for an `idField` other than `id`), the page's slice, and whether the route may have had more.
 * @example optionRecords([{ label: 'Garden', value: 3 }], { label: 'name', value: 'id', q: 'gar', conditions: [],
 *   page: 1, perPage: 25 }) // { records: [{ id: 3, name: 'Garden' }], hasMore: false }
 */
export function optionRecords(
  items: readonly { readonly label: unknown; readonly value: unknown }[],
  query: AutocompleteQuery,
): { records: Record<string, unknown>[]; hasMore: boolean } {
  const start = (Math.max(1, query.page) - 1) * query.perPage;
  const records = items
    .slice(start, start + query.perPage)
    .map(({ label, value }) => ({ id: value, [query.value]: value, [query.label]: label }));
  return { records, hasMore: items.length >= Math.max(1, query.page) * query.perPage };
}

/**
 * `meta.pagination.perPage` of a search: the page size the server used (it lowers a `perPage` above
 * `search.max_per_page`, and says so in `Fast-Crud-Per-Page-Lowered`).
 * @example perPageOf({ pagination: { current: 1, perPage: 500, pagesCount: 2, count: 518 } }) // 500
 */
export function perPageOf(meta: Readonly<Record<string, unknown>>): number | undefined {
  const pagination = meta['pagination'];
  return isObject(pagination) && typeof pagination['perPage'] === 'number' ? pagination['perPage'] : undefined;
}

/** One search reply, as `request` gives it. */
export interface SearchReply {
  readonly data: unknown;
  readonly meta: Readonly<Record<string, unknown>>;
}

/**
 * The rows of the page a client asked for when the server lowered its `perPage` (`perPageOf` the first reply is
 * smaller): read in the server's page size, page after page, as many as cover the asked rows, stopping at a short page;
 * undefined when the first reply is the whole page. `meta` is the last reply's, `more` whether rows follow the page.
 * @example const whole = await askedPage({ page: 1, perPage: 1000 }, first, (page, perPage) => get(page, perPage));
 *   // { rows: [… 518 rows], meta: { pagination: { … } }, more: false }
 */
export async function askedPage(
  asked: { readonly page: number; readonly perPage: number },
  first: SearchReply,
  read: (page: number, perPage: number) => Promise<SearchReply>,
): Promise<{ rows: unknown[]; meta: Readonly<Record<string, unknown>>; more: boolean } | undefined> {
  const used = perPageOf(first.meta);
  if (used === undefined || used < 1 || used >= asked.perPage) return undefined;
  const start = (asked.page - 1) * asked.perPage;
  const from = Math.floor(start / used) + 1;
  const to = Math.floor((start + asked.perPage - 1) / used) + 1;
  const rows: unknown[] = [];
  let meta = first.meta;
  for (let page = from; page <= to; page += 1) {
    // The first reply is the server's page `asked.page` in its own size already.
    const reply = page === asked.page ? first : await read(page, used);
    const items = Array.isArray(reply.data) ? (reply.data as unknown[]) : [];
    rows.push(...items);
    meta = reply.meta;
    if (items.length < used) break;
  }
  const offset = start - (from - 1) * used;
  const more = rows.length > offset + asked.perPage || hasMoreOf(meta) === true;
  return { rows: rows.slice(offset, offset + asked.perPage), meta, more };
}
