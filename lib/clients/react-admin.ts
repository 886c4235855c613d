/**
 * `koa-fast-crud/react-admin`: a react-admin DataProvider that speaks the library's protocol. It
 * runs in the browser and imports nothing from the server, ra-core included: its types are
 * declared here, structurally compatible with ra-core's `DataProvider`.
 */
import { clientKind, liveFeeds, type LiveOptions } from './live.js';
import { OPERATORS } from '../core/operators.js';
import {
  autocompleteLabel,
  askedPage,
  BATCH_SIZE,
  batchesFor,
  chunks,
  CONFLICT_MESSAGE,
  isConflict,
  preconditionsFor,
  TagMemory,
  fieldErrors,
  cursorsOf,
  hasMoreOf,
  idPath,
  inGroups,
  optionRecords,
  optionsParams,
  ProtocolError,
  request,
  resourceUrl,
  searchParams,
  textOf,
  totalOf,
  VALIDATION_STATUSES,
  type ClientOptions,
  type FilterCondition,
  type FilterOperator,
  type SearchQuery,
} from './protocol.js';

export { CONFLICT_MESSAGE } from './protocol.js';
export type { EventSourceClass, EventSourceLike, LiveOptions, MessageEventLike } from './live.js';
export type {
  ClientOptions,
  FailItem,
  FilterOperator,
  HttpClientInit,
  HttpClientReply,
  RequestInitLike,
  ResponseLike,
} from './protocol.js';

/** A record as react-admin handles it: an object with an `id`. */
export interface RaRecord {
  id: string | number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- react-admin's own records are `Record<string, any>`
  [key: string]: any;
}

/** react-admin's default record type parameter. */
// As ra-core's DataProvider, whose methods default their record type to any:
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = any;

/** react-admin's `sort` of a list. */
export interface RaSort {
  readonly field: string;
  readonly order: 'ASC' | 'DESC' | string;
}

/** react-admin's `pagination` of a list. */
export interface RaPagination {
  readonly page: number;
  readonly perPage: number;
}

/**
 * `meta` the provider reads: `include` loads associations with each record (`['category']`).
 * @example dataProvider.getList('products', { ..., meta: { include: ['category'] } })
 */
export interface RaMeta {
  readonly include?: readonly string[];
  readonly [key: string]: unknown;
}

/** Parameters of getList (and of getManyReference, with `target` and `id`). */
export interface RaListParams {
  readonly pagination?: RaPagination;
  readonly sort?: RaSort;
  /**
   * `q`: the term search (on a resource named by `autocomplete`, the options route's labels); `field`: eq;
   * `field_op`: that operator; `{ field: { op: value } }`; an array: in.
   */
  readonly filter?: Readonly<Record<string, unknown>>;
  readonly meta?: RaMeta;
  readonly signal?: unknown;
}

/** A page of records and how many there are. */
export interface RaListResult<R extends RaRecord = RaRecord> {
  data: R[];
  /** `meta.pagination.count`; absent under `search.count: 'none'`, where `pageInfo` says whether more follow. */
  total?: number;
  pageInfo?: { hasNextPage?: boolean; hasPreviousPage?: boolean };
}

/**
 * The error every method rejects with for a reply outside 2xx: react-admin's `HttpError` shape
 * (`message`, `status`, `body`). For a fail of the values sent (400, 409, 422), `body.errors` maps
 * each field to its message, which react-admin's forms show under the field
 * (`root.serverError` for items without a field); `body` also carries the JSend envelope.
 * @example err.body.errors // { price: 'A price is never negative' }
 */
export class HttpError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The JSend envelope, with `errors` for a validation fail. */
  readonly body: Record<string, unknown> | null;
  constructor(message: string, status: number, body: Record<string, unknown> | null = null) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.body = body;
  }
}

/**
 * Options of the react-admin provider: those of every client (`validationStatuses` decides which fails fill
 * `body.errors`; `batch` names the resources whose updateMany, deleteMany, softDeleteMany and restoreMany send one
 * request; `preconditions` those whose update and delete send the `If-Match` of the record the form loaded,
 * `previousData`).
 * @example dataProvider('/api', { batch: ['products'], preconditions: ['products'] })
 */
export type ReactAdminOptions = ClientOptions & {
  /**
   * Which resources getList pages by cursor (`cursor=`, see the pagination guide): `true` for every resource, or a
   * list of names (a call's `meta.cursor: true` asks for it too). react-admin asks for pages by number, so the provider
   * keeps each page's cursor, as react-admin's partial pagination suggests: page 1, then the page after (or before) one
   * it has read; any other page is read by offset. The result carries `pageInfo`.
   */
  cursor?: boolean | readonly string[];
};

/**
 * The provider `dataProvider(apiUrl)` returns: react-admin's nine methods, plus the soft-delete,
 * restore and options routes. Assignable to ra-core's `DataProvider`.
 */
export interface KoaFastCrudDataProvider {
  getList<R extends RaRecord = AnyRecord>(resource: string, params: RaListParams): Promise<RaListResult<R>>;
  getOne<R extends RaRecord = AnyRecord>(
    resource: string,
    params: { readonly id: string | number; readonly meta?: RaMeta; readonly signal?: unknown },
  ): Promise<{ data: R }>;
  getMany<R extends RaRecord = AnyRecord>(
    resource: string,
    params: { readonly ids: readonly (string | number)[]; readonly meta?: RaMeta; readonly signal?: unknown },
  ): Promise<{ data: R[] }>;
  getManyReference<R extends RaRecord = AnyRecord>(
    resource: string,
    params: RaListParams & { readonly target: string; readonly id: string | number },
  ): Promise<RaListResult<R>>;
  create<R extends RaRecord = AnyRecord>(
    resource: string,
    params: { readonly data: Readonly<Record<string, unknown>>; readonly meta?: RaMeta },
  ): Promise<{ data: R }>;
  update<R extends RaRecord = AnyRecord>(
    resource: string,
    params: {
      readonly id: string | number;
      readonly data: Readonly<Record<string, unknown>>;
      readonly previousData?: unknown;
      readonly meta?: RaMeta;
    },
  ): Promise<{ data: R }>;
  /**
   * `PATCH <resource>?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request per
   * `batchSize` ids), else `PATCH <resource>/<id>` per id in parallel; resolves the ids.
   */
  updateMany(
    resource: string,
    params: {
      readonly ids: readonly (string | number)[];
      readonly data: Readonly<Record<string, unknown>>;
      readonly meta?: RaMeta;
    },
  ): Promise<{ data: (string | number)[] }>;
  /** `DELETE <resource>/<id>`; resolves `previousData` (the server answers `data: null`), or `{ id }`. */
  delete<R extends RaRecord = AnyRecord>(
    resource: string,
    params: { readonly id: string | number; readonly previousData?: unknown; readonly meta?: RaMeta },
  ): Promise<{ data: R }>;
  /**
   * `DELETE <resource>?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request per
   * `batchSize` ids), else `DELETE <resource>/<id>` per id in parallel; resolves the ids.
   */
  deleteMany(
    resource: string,
    params: { readonly ids: readonly (string | number)[]; readonly meta?: RaMeta },
  ): Promise<{ data: (string | number)[] }>;
  /** `DELETE <resource>/<id>/soft`: sets the deleted-at column; resolves the soft-deleted record. */
  softDelete<R extends RaRecord = AnyRecord>(
    resource: string,
    params: { readonly id: string | number },
  ): Promise<{ data: R }>;
  /**
   * `DELETE <resource>/soft?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request per
   * `batchSize` ids), else softDelete for each id in parallel; resolves the ids.
   */
  softDeleteMany(
    resource: string,
    params: { readonly ids: readonly (string | number)[] },
  ): Promise<{ data: (string | number)[] }>;
  /** `PATCH <resource>/<id>/restore`: clears the deleted-at column; resolves the restored record. */
  restore<R extends RaRecord = AnyRecord>(
    resource: string,
    params: { readonly id: string | number },
  ): Promise<{ data: R }>;
  /**
   * `PATCH <resource>/restore?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request
   * per `batchSize` ids), else restore for each id in parallel; resolves the ids.
   */
  restoreMany(
    resource: string,
    params: { readonly ids: readonly (string | number)[] },
  ): Promise<{ data: (string | number)[] }>;
  /** `GET <resource>/options?label=&value=`: `{ label, value }` pairs for a select box, ordered by label. */
  getOptions(
    resource: string,
    params: { readonly label: string; readonly value?: string; readonly signal?: unknown },
  ): Promise<{ data: { label: unknown; value: unknown }[] }>;
  /** The URL of `GET <resource>/export-csv` for a list's filter and sort (a link to download). */
  exportUrl(
    resource: string,
    params: { readonly filter?: Readonly<Record<string, unknown>>; readonly sort?: RaSort },
  ): string;
  /** react-admin passes its abort signal to every read. */
  readonly supportAbortSignal: true;
}

/**
 * The cursors of the pages a react-admin list has read, by list (resource, filter, sort, page size) and page number:
 * page 1 is `cursor=`, and each cursor page gives the cursors of the pages next to it. At most `LISTS` lists are kept,
 * the oldest dropped first.
 */
class PageCursors {
  static readonly LISTS = 50;
  private readonly lists = new Map<string, Map<number, string>>();

  /** The cursor of a page, or undefined when none is known (the page is then read by offset). */
  get(key: string, page: number): string | undefined {
    return page === 1 ? '' : this.lists.get(key)?.get(page);
  }

  /** Keeps the cursors of the pages around `page`. */
  set(key: string, page: number, around: { readonly next: string | null; readonly prev: string | null }): void {
    let list = this.lists.get(key);
    if (list === undefined) {
      if (this.lists.size >= PageCursors.LISTS) this.lists.delete(this.lists.keys().next().value!);
      this.lists.set(key, (list = new Map<number, string>()));
    }
    if (around.next !== null) list.set(page + 1, around.next);
    if (around.prev !== null && page > 2) list.set(page - 1, around.prev);
  }
}

/** getMany asks for at most this many ids per request (with `skipPagination`). */
const IDS_PER_REQUEST = 100;

/**
 * A react-admin DataProvider for resources served by `crud()` under `apiUrl`: `<Admin
 * dataProvider={dataProvider('/api')}>`.
 * The resource name is the `crud` uri (`products` for `/api/products`).
 * @example const provider = dataProvider('/api', { headers: () => ({ Authorization: `Bearer ${token}` }) });
 */
export function dataProvider(apiUrl: string, options: ReactAdminOptions = {}): KoaFastCrudDataProvider {
  const validation = options.validationStatuses ?? VALIDATION_STATUSES;
  const termKey = options.termKey ?? 'term';
  const idField = options.idField ?? 'id';
  const conflict = options.conflictMessage ?? CONFLICT_MESSAGE;
  const send = async (
    method: string,
    url: string,
    body?: unknown,
    signal?: unknown,
    headers?: Readonly<Record<string, string>>,
  ) => {
    try {
      return await request(options, method, url, body, signal, headers);
    } catch (error) {
      throw error instanceof ProtocolError ? toHttpError(error, validation, conflict) : error;
    }
  };
  // The ETags of the records getOne and update answered, for the conditional writes of `preconditions`.
  const tags = new TagMemory();
  const versionField = options.versionField ?? 'version';
  const ifMatch = (resource: string, id: unknown, previousData: unknown) => {
    if (!preconditionsFor(options, resource)) return undefined;
    const etag = tags.tagOf(resource, id, previousData);
    return etag === undefined ? undefined : { 'If-Match': etag };
  };
  /** The update's body, with the version of the record the form loaded on a conditional resource. */
  const withVersion = (resource: string, data: Readonly<Record<string, unknown>>, previousData: unknown) => {
    if (versionField === false || !preconditionsFor(options, resource)) return data;
    const version = isRecord(previousData) ? previousData[versionField] : undefined;
    return version === undefined || version === null ? data : { ...data, [versionField]: version };
  };
  const record = (data: unknown) => data as AnyRecord;
  const cursors = new PageCursors();
  const list = async (resource: string, params: RaListParams): Promise<RaListResult<AnyRecord>> => {
    const label = autocompleteLabel(options, resource);
    if (label !== undefined && params.filter !== undefined && Object.hasOwn(params.filter, 'q'))
      return autocomplete(resource, label, params);
    const listed = listQuery(params);
    const byCursor =
      params.meta?.['cursor'] === true ||
      options.cursor === true ||
      (Array.isArray(options.cursor) && options.cursor.includes(resource));
    const { page = 1, perPage = 10 } = params.pagination ?? {};
    const key = JSON.stringify([resource, listed.conditions, listed.term, listed.sort, perPage]);
    const cursor = byCursor ? cursors.get(key, page) : undefined;
    const query = cursor === undefined ? listed : { ...listed, page: { cursor, perPage } };
    const get = (search: SearchQuery) =>
      send('GET', resourceUrl(apiUrl, resource, '', searchParams(search, termKey)), undefined, params.signal);
    const first = await get(query);
    const total = totalOf(first.meta);
    const around = cursorsOf(first.meta);
    if (around !== undefined) {
      cursors.set(key, page, around);
      const pageInfo = { hasNextPage: around.next !== null, hasPreviousPage: page > 1 };
      return { data: first.data as AnyRecord[], ...(total !== undefined && { total }), pageInfo };
    }
    // A perPage above the server's cap (the Export button asks 1000) comes back lowered: read the rest of the page.
    const asked = listed.page;
    const whole =
      asked === undefined || asked === 'all' || !('page' in asked)
        ? undefined
        : await askedPage(asked, first, (number, size) => get({ ...listed, page: { page: number, perPage: size } }));
    const rows = (whole?.rows ?? first.data) as AnyRecord[];
    if (total !== undefined) return { data: rows, total };
    const hasNextPage = whole === undefined ? (hasMoreOf(first.meta) ?? false) : whole.more;
    return { data: rows, pageInfo: { hasNextPage, hasPreviousPage: page > 1 } };
  };
  // `q` on a resource named by `autocomplete`: the options route's labels containing it (AutocompleteInput).
  const autocomplete = async (resource: string, label: string, params: RaListParams) => {
    const { conditions, term } = listQuery({ filter: params.filter ?? {} });
    const page = params.pagination ?? { page: 1, perPage: 25 };
    const query = { label, value: idField, q: term ?? '', conditions, page: page.page, perPage: page.perPage };
    const { data } = await send(
      'GET',
      resourceUrl(apiUrl, resource, '/options', optionsParams(query)),
      undefined,
      params.signal,
    );
    const { records, hasMore } = optionRecords(data as { label: unknown; value: unknown }[], query);
    return { data: records as AnyRecord[], pageInfo: { hasNextPage: hasMore, hasPreviousPage: query.page > 1 } };
  };
  const each = async (ids: readonly (string | number)[], one: (id: string | number) => Promise<unknown>) => {
    await Promise.all(ids.map(one));
    return { data: [...ids] };
  };
  // A batch route: one request per `batchSize` ids, with `filter[<idField>][in]=…`.
  const batch = async (ids: readonly (string | number)[], one: (filter: string) => Promise<unknown>) => {
    await inGroups(ids, options.batchSize ?? BATCH_SIZE, (group) =>
      one(searchParams({ conditions: [{ field: idField, op: 'in', value: group }] })),
    );
    return { data: [...ids] };
  };
  const provider: KoaFastCrudDataProvider = {
    supportAbortSignal: true,
    getList: list,
    async getOne(resource, { id, meta, signal }) {
      const { data, etag } = await send(
        'GET',
        resourceUrl(apiUrl, resource, idPath(id), searchParams({ include: meta?.include })),
        undefined,
        signal,
      );
      // A read with associations answers another ETag, which a write refuses: keep only the plain record's.
      if (preconditionsFor(options, resource) && (meta?.include ?? []).length === 0)
        tags.remember(resource, id, data, etag);
      return { data: record(data) };
    },
    async getMany(resource, { ids, meta, signal }) {
      const pages = await Promise.all(
        chunks(ids, IDS_PER_REQUEST).map(async (group) => {
          const query: SearchQuery = {
            conditions: [{ field: idField, op: 'in', value: group }],
            page: 'all',
            include: meta?.include,
          };
          return (await send('GET', resourceUrl(apiUrl, resource, '', searchParams(query, termKey)), undefined, signal))
            .data as AnyRecord[];
        }),
      );
      return { data: pages.flat() };
    },
    getManyReference: (resource, { target, id, ...params }) =>
      list(resource, { ...params, filter: { ...params.filter, [target]: id } }),
    async create(resource, { data }) {
      return { data: record((await send('POST', resourceUrl(apiUrl, resource), data)).data) };
    },
    async update(resource, { id, data, previousData }) {
      const url = resourceUrl(apiUrl, resource, idPath(id));
      const body = withVersion(resource, data, previousData);
      const reply = await send('PATCH', url, body, undefined, ifMatch(resource, id, previousData));
      if (preconditionsFor(options, resource)) tags.remember(resource, id, reply.data, reply.etag);
      return { data: record(reply.data) };
    },
    updateMany: (resource, { ids, data }) =>
      batchesFor(options, resource)
        ? batch(ids, (filter) => send('PATCH', resourceUrl(apiUrl, resource, '', filter), data))
        : each(ids, (id) => send('PATCH', resourceUrl(apiUrl, resource, idPath(id)), data)),
    async delete(resource, { id, previousData }) {
      await send(
        'DELETE',
        resourceUrl(apiUrl, resource, idPath(id)),
        undefined,
        undefined,
        ifMatch(resource, id, previousData),
      );
      tags.forget(resource, id);
      // The server answers `data: null`; react-admin wants the deleted record.
      return { data: (previousData as AnyRecord) ?? { id } };
    },
    deleteMany: (resource, { ids }) =>
      batchesFor(options, resource)
        ? batch(ids, (filter) => send('DELETE', resourceUrl(apiUrl, resource, '', filter)))
        : each(ids, (id) => send('DELETE', resourceUrl(apiUrl, resource, idPath(id)))),
    async softDelete(resource, { id }) {
      return { data: record((await send('DELETE', resourceUrl(apiUrl, resource, `${idPath(id)}/soft`))).data) };
    },
    softDeleteMany: (resource, { ids }) =>
      batchesFor(options, resource)
        ? batch(ids, (filter) => send('DELETE', resourceUrl(apiUrl, resource, '/soft', filter)))
        : each(ids, (id) => send('DELETE', resourceUrl(apiUrl, resource, `${idPath(id)}/soft`))),
    async restore(resource, { id }) {
      return { data: record((await send('PATCH', resourceUrl(apiUrl, resource, `${idPath(id)}/restore`))).data) };
    },
    restoreMany: (resource, { ids }) =>
      batchesFor(options, resource)
        ? batch(ids, (filter) => send('PATCH', resourceUrl(apiUrl, resource, '/restore', filter)))
        : each(ids, (id) => send('PATCH', resourceUrl(apiUrl, resource, `${idPath(id)}/restore`))),
    async getOptions(resource, { label, value, signal }) {
      const valueParam = value === undefined ? '' : `&value=${encodeURIComponent(value)}`;
      const query = `label=${encodeURIComponent(label)}${valueParam}`;
      const { data } = await send('GET', resourceUrl(apiUrl, resource, '/options', query), undefined, signal);
      return { data: data as { label: unknown; value: unknown }[] };
    },
    exportUrl(resource, { filter, sort }) {
      const { conditions, term, sort: order } = listQuery({ ...(filter && { filter }), ...(sort && { sort }) });
      return resourceUrl(apiUrl, resource, '/export-csv', searchParams({ conditions, term, sort: order }, termKey));
    },
  };
  return provider;
}

/**
 * The search a getList asks for: react-admin's filter read by `filterConditions`, its sort and page.
 * @example
 * listQuery({
 *   filter: { q: 'pan', price_gte: 30 },
 *   sort: { field: 'price', order: 'DESC' },
 *   pagination: { page: 1, perPage: 10 },
 * })
 *   // { conditions: [{ field: 'price', op: 'gte', value: 30 }], term: 'pan', sort: [{ field: 'price', order: 'DESC'
 *   // }], page: { page: 1, perPage: 10 } }
 */
export function listQuery(params: RaListParams): SearchQuery & { readonly conditions: readonly FilterCondition[] } {
  const { q, ...filter } = params.filter ?? {};
  const sort = params.sort;
  return {
    conditions: filterConditions(filter),
    term: q === undefined || q === null ? undefined : textOf(q),
    ...(sort && sort.field !== '' && { sort: [{ field: sort.field, order: sort.order === 'DESC' ? 'DESC' : 'ASC' }] }),
    ...(params.pagination && { page: { page: params.pagination.page, perPage: params.pagination.perPage } }),
    ...(params.meta?.include && { include: params.meta.include }),
  };
}

/**
 * react-admin filter keys as conditions: `field: value` is `eq` (an array: `in`; null: `null`),
 * `field_<op>: value` is that operator when `<op>` is one of the server's (`price_gte`,
 * `deletedAt_nn`), and `field: { op: value }` names operators directly. Empty values (undefined,
 * `''`, an empty list) add nothing, as an empty filter input should; `nn` and `null` need a
 * truthy value (`deletedAt_nn: true`), so a cleared checkbox adds nothing either.
 * @example filterConditions({ price_gte: 30, sku: ['BK-001', 'GD-002'] })
 *   // [{ field: 'price', op: 'gte', value: 30 }, { field: 'sku', op: 'in', value: ['BK-001', 'GD-002'] }]
 */
export function filterConditions(filter: Readonly<Record<string, unknown>>): FilterCondition[] {
  return Object.entries(filter).flatMap(([key, value]): FilterCondition[] => {
    if (isPlainObject(value)) {
      return Object.entries(value).flatMap(([op, operand]) => {
        if (!isOperator(op))
          throw new Error(
            `koa-fast-crud/react-admin: unknown filter operator ${JSON.stringify(op)} on ${JSON.stringify(key)}; ` +
              `use one of ${Object.keys(OPERATORS).join(', ')}`,
          );
        return condition(key, op, operand);
      });
    }
    const cut = key.lastIndexOf('_');
    const suffix = cut > 0 ? key.slice(cut + 1) : '';
    if (isOperator(suffix)) return condition(key.slice(0, cut), suffix, value);
    if (value === null) return [{ field: key, op: 'null' }];
    return condition(key, Array.isArray(value) ? 'in' : 'eq', value);
  });
}

function condition(field: string, op: FilterOperator, value: unknown): FilterCondition[] {
  if (OPERATORS[op] === 'none')
    return value === false || value === undefined || value === null || value === '' || value === 0
      ? []
      : [{ field, op }];
  if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return [];
  if (value === null) return op === 'eq' ? [{ field, op: 'null' }] : [];
  return [{ field, op, value }];
}

/**
 * A ProtocolError as react-admin's HttpError: per-field `errors` in the body for a validation status. A write refused
 * because the record changed since it was read (412 `preconditionFailed`, 409 `staleVersion`) has no `errors` and
 * `conflictMessage` as its message, so react-admin notifies it rather than marking a field the form may not show.
 * @example toHttpError(error, [400, 409, 422]).body.errors // { price: 'A price is never negative' }
 */
export function toHttpError(
  error: ProtocolError,
  validationStatuses: readonly number[] = VALIDATION_STATUSES,
  conflictMessage: string = CONFLICT_MESSAGE,
): HttpError {
  const { items } = error;
  const envelope =
    typeof error.envelope === 'object' && error.envelope !== null ? (error.envelope as Record<string, unknown>) : {};
  const conflict = isConflict(error);
  const errors =
    items.length > 0 && !conflict && validationStatuses.includes(error.status) ? { errors: fieldErrors(items) } : {};
  const body = error.envelope === undefined && Object.keys(errors).length === 0 ? null : { ...envelope, ...errors };
  return new HttpError(conflict ? conflictMessage : error.message, error.status, body);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOperator(name: string): name is FilterOperator {
  return Object.hasOwn(OPERATORS, name);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A realtime event as react-admin's realtime hooks (ra-realtime) hand it to a subscriber: the kind (`created`,
 * `updated`, `deleted`; a soft delete is `deleted`, a restore `created`, a `reset` of the feed `updated`), the topic,
 * and the ids written.
 * @example { type: 'updated', topic: 'resource/products', payload: { ids: ['7'] }, date: new Date() }
 */
export interface RaRealtimeEvent {
  readonly type: string;
  readonly topic?: string;
  readonly payload: { readonly ids?: readonly (string | number)[]; readonly [key: string]: unknown };
  readonly date?: Date;
}

/** The realtime methods react-admin's realtime hooks call on a data provider. */
export interface RaRealtime {
  /** Starts delivering the events of `resource/<name>` (every record) or `resource/<name>/<id>` (one record). */
  subscribe(topic: string, callback: (event: RaRealtimeEvent) => void): Promise<{ data: null }>;
  /** Stops what `subscribe` started with the same topic and callback. */
  unsubscribe(topic: string, callback: (event: RaRealtimeEvent) => void): Promise<{ data: null }>;
  /** Delivers an event to this page's subscribers of the topic (the server's events come from its feed). */
  publish(topic: string, event: RaRealtimeEvent): Promise<{ data: null }>;
}

/**
 * The realtime half of a react-admin data provider, over the change feed (`live: true` resources): spread it into
 * the data provider. Each resource's topics share one `EventSource` on `GET <uri>/changes`, which resumes with
 * `Last-Event-ID` after a drop. An `EventSource` sends no custom header: the feed is authenticated by cookies.
 * @example const provider = { ...dataProvider('/api'), ...realtime('/api') };
 */
export function realtime(apiUrl: string, options: LiveOptions = {}): RaRealtime {
  const feeds = liveFeeds(apiUrl, options);
  const subscriptions = new Map<string, Map<(event: RaRealtimeEvent) => void, () => void>>();
  const local = new Map<string, Set<(event: RaRealtimeEvent) => void>>();
  const done = { data: null } as const;
  return {
    subscribe(topic, callback) {
      const match = /^resource\/([^/]+)(?:\/(.+))?$/.exec(topic);
      const byCallback = subscriptions.get(topic) ?? new Map<(event: RaRealtimeEvent) => void, () => void>();
      subscriptions.set(topic, byCallback);
      if (!local.has(topic)) local.set(topic, new Set());
      local.get(topic)!.add(callback);
      if (match !== null && !byCallback.has(callback)) {
        const [, resource, id] = match;
        const stop = feeds.listen(resource!, (kind, ids) => {
          const shown = id === undefined || kind === 'reset' ? ids : ids.filter((one) => one === id);
          if (kind !== 'reset' && shown.length === 0) return;
          callback({ type: clientKind(kind), topic, payload: { ids: shown }, date: new Date() });
        });
        byCallback.set(callback, stop);
      }
      return Promise.resolve(done);
    },
    unsubscribe(topic, callback) {
      subscriptions.get(topic)?.get(callback)?.();
      subscriptions.get(topic)?.delete(callback);
      local.get(topic)?.delete(callback);
      return Promise.resolve(done);
    },
    publish(topic, event) {
      for (const callback of [...(local.get(topic) ?? [])]) callback({ topic, date: new Date(), ...event });
      return Promise.resolve(done);
    },
  };
}
