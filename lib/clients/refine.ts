/**
 * `koa-fast-crud/refine`: a Refine DataProvider that speaks the library's protocol. It runs in the
 * browser and imports nothing from the server, @refinedev/core included: its types are declared
 * here, structurally compatible with Refine's `DataProvider`.
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
  resolveHeaders,
  resourceUrl,
  searchParams,
  textOf,
  totalOf,
  VALIDATION_STATUSES,
  type ClientOptions,
  type FailItem,
  type FilterCondition,
  type FilterGroup,
  type FilterOperator,
  type SearchQuery,
} from './protocol.js';

export { CONFLICT_MESSAGE } from './protocol.js';
export type { EventSourceClass, EventSourceLike, LiveOptions, MessageEventLike } from './live.js';
export type {
  ClientOptions,
  FailItem,
  FilterCondition,
  FilterGroup,
  FilterOperator,
  HttpClientInit,
  HttpClientReply,
  RequestInitLike,
  ResponseLike,
} from './protocol.js';

/** A record as Refine handles it. */
export interface BaseRecord {
  id?: string | number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Refine's BaseRecord is `{ [key: string]: any }`
  [key: string]: any;
}

/** Refine's default record type parameter. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Refine's DataProvider
type AnyRecord = any;

/** One of Refine's `CrudFilter`s: a field condition, or `and`/`or` of others (which this provider refuses). */
export interface RefineFilter {
  readonly field?: string;
  readonly key?: string;
  readonly operator: string;
  readonly value: unknown;
}

/** One of Refine's `CrudSort`s. */
export interface RefineSort {
  readonly field: string;
  readonly order: 'asc' | 'desc' | string;
}

/** Refine's `pagination`: `currentPage` (Refine 5; `current` before it), `pageSize`, `mode`. */
export interface RefinePagination {
  /** The page number; or, with `meta.cursor`, the cursor `useInfiniteList` passes back from `cursor.next`/`prev`. */
  readonly currentPage?: number | string;
  readonly current?: number;
  readonly pageSize?: number;
  readonly mode?: 'client' | 'server' | 'off';
}

/**
 * `meta` the provider reads: `include` loads associations with each record; `etag`, on update and deleteOne, is the
 * `If-Match` to send (by default, on a resource of the `preconditions` option, the ETag of the record's last getOne);
 * `cursor: true` pages by cursor (`cursor=`), for `useInfiniteList`; `fields` (Refine's field selection, as GraphQL
 * providers read it: names, and `{ association: [names] }` for an included one) or `select` (a comma-separated list)
 * keeps only those fields (`fields=`).
 */
export interface RefineMeta {
  readonly include?: readonly string[];
  readonly etag?: string;
  readonly cursor?: boolean;
  readonly fields?: readonly unknown[];
  readonly select?: unknown;
  readonly [key: string]: unknown;
}

/**
 * The error every method rejects with for a reply outside 2xx: Refine's `HttpError` shape. `errors`
 * maps each field to its message (Refine's forms show it under the field), `message` joins the
 * messages, and `items` are the JSend fail items themselves.
 * @example err.errors // { price: 'A price is never negative' }
 */
export class HttpError extends Error {
  /** The HTTP status. */
  readonly statusCode: number;
  /** One message per field of a validation fail (items without a field are in `message` only); undefined otherwise. */
  readonly errors?: Record<string, string>;
  /** The fail items of the JSend `fail`, empty for other replies. */
  readonly items: readonly FailItem[];
  /** The parsed JSON body. */
  readonly body: unknown;
  constructor(
    message: string,
    statusCode: number,
    items: readonly FailItem[] = [],
    body?: unknown,
    errors?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.items = items;
    this.body = body;
    if (errors !== undefined) this.errors = errors;
  }
}

/**
 * Refine's operators this provider maps to the server's; any other throws in the client.
 * `contains` is the server's case-insensitive `like`.
 * @example REFINE_OPERATORS.between // 'btw'
 */
export const REFINE_OPERATORS = Object.freeze({
  eq: 'eq',
  ne: 'neq',
  lt: 'lt',
  gt: 'gt',
  lte: 'lte',
  gte: 'gte',
  in: 'in',
  nin: 'nin',
  contains: 'like',
  between: 'btw',
  null: 'null',
  nnull: 'nn',
} as const satisfies Readonly<Record<string, FilterOperator>>);

/** A Refine operator this provider supports. */
export type RefineOperator = keyof typeof REFINE_OPERATORS;

/**
 * Options of the Refine provider: those of every client (`batch` names the resources whose createMany, updateMany,
 * deleteMany, softDeleteMany and restoreMany send one request), plus the filter field that is the term search.
 * @example dataProvider('/api', { batch: ['products'] })
 */
export interface RefineOptions extends ClientOptions {
  /** A filter on this field is the term search (`filter[term]`), with `eq` or `contains`; default `q`. */
  searchField?: string;
}

/** Parameters of getList. */
export interface RefineListParams {
  readonly resource: string;
  readonly pagination?: RefinePagination;
  readonly sorters?: readonly RefineSort[];
  readonly filters?: readonly RefineFilter[];
  readonly meta?: RefineMeta;
}

/**
 * The provider `dataProvider(apiUrl)` returns: Refine's methods, plus the soft-delete, restore and
 * options routes. Assignable to @refinedev/core's `DataProvider`.
 */
export interface KoaFastCrudRefineProvider {
  getList<T extends BaseRecord = AnyRecord>(
    params: RefineListParams,
  ): Promise<{
    data: T[];
    total: number;
    hasMore?: boolean;
    /** With `meta.cursor`: the next and previous pages' cursors, as `useInfiniteList`'s `getNextPageParam` reads. */
    cursor?: { next?: string; prev?: string };
  }>;
  getOne<T extends BaseRecord = AnyRecord>(params: {
    readonly resource: string;
    readonly id: string | number;
    readonly meta?: RefineMeta;
  }): Promise<{ data: T }>;
  getMany<T extends BaseRecord = AnyRecord>(params: {
    readonly resource: string;
    readonly ids: readonly (string | number)[];
    readonly meta?: RefineMeta;
  }): Promise<{ data: T[] }>;
  create<T extends BaseRecord = AnyRecord, V = {}>(params: {
    readonly resource: string;
    readonly variables: V;
    readonly meta?: RefineMeta;
  }): Promise<{ data: T }>;
  /**
   * An array `POST <resource>` for a resource named by the `batch` option (one atomic request per `batchSize`
   * records), else one `POST` per record in parallel; resolves the created records in order.
   */
  createMany<T extends BaseRecord = AnyRecord, V = {}>(params: {
    readonly resource: string;
    readonly variables: readonly V[];
    readonly meta?: RefineMeta;
  }): Promise<{ data: T[] }>;
  update<T extends BaseRecord = AnyRecord, V = {}>(params: {
    readonly resource: string;
    readonly id: string | number;
    readonly variables: V;
    readonly meta?: RefineMeta;
  }): Promise<{ data: T }>;
  /**
   * `PATCH <resource>?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request per
   * `batchSize` ids), else `PATCH <resource>/<id>` per id in parallel; resolves the updated records.
   */
  updateMany<T extends BaseRecord = AnyRecord, V = {}>(params: {
    readonly resource: string;
    readonly ids: readonly (string | number)[];
    readonly variables: V;
    readonly meta?: RefineMeta;
  }): Promise<{ data: T[] }>;
  /** `DELETE <resource>/<id>`; resolves `{ id }` (the server answers `data: null`). */
  deleteOne<T extends BaseRecord = AnyRecord, V = {}>(params: {
    readonly resource: string;
    readonly id: string | number;
    readonly variables?: V;
    readonly meta?: RefineMeta;
  }): Promise<{ data: T }>;
  /**
   * `DELETE <resource>?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request per
   * `batchSize` ids), else `DELETE <resource>/<id>` per id in parallel; resolves `{ <idField>: id }` per id.
   */
  deleteMany<T extends BaseRecord = AnyRecord, V = {}>(params: {
    readonly resource: string;
    readonly ids: readonly (string | number)[];
    readonly variables?: V;
    readonly meta?: RefineMeta;
  }): Promise<{ data: T[] }>;
  getApiUrl(): string;
  /**
   * Any request: `url` absolute or relative to the api URL; `filters` and `sorters` written as a
   * search's, `query` as more parameters; resolves the JSend `data` (and `meta`).
   */
  custom<T extends BaseRecord = AnyRecord, Q = unknown, P = unknown>(params: {
    readonly url: string;
    readonly method: 'get' | 'delete' | 'head' | 'options' | 'post' | 'put' | 'patch';
    readonly filters?: readonly RefineFilter[];
    readonly sorters?: readonly RefineSort[];
    readonly payload?: P;
    readonly query?: Q;
    readonly headers?: {};
    readonly meta?: RefineMeta;
  }): Promise<{ data: T; meta?: Readonly<Record<string, unknown>> }>;
  /** `DELETE <resource>/<id>/soft`: sets the deleted-at column; resolves the soft-deleted record. */
  softDelete<T extends BaseRecord = AnyRecord>(params: {
    readonly resource: string;
    readonly id: string | number;
  }): Promise<{ data: T }>;
  /** `PATCH <resource>/<id>/restore`: clears the deleted-at column; resolves the restored record. */
  restore<T extends BaseRecord = AnyRecord>(params: {
    readonly resource: string;
    readonly id: string | number;
  }): Promise<{ data: T }>;
  /**
   * `DELETE <resource>/soft?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request per
   * `batchSize` ids), else softDelete per id in parallel; resolves the soft-deleted records.
   */
  softDeleteMany<T extends BaseRecord = AnyRecord>(params: {
    readonly resource: string;
    readonly ids: readonly (string | number)[];
  }): Promise<{ data: T[] }>;
  /**
   * `PATCH <resource>/restore?filter[<idField>][in]=…` for a resource named by the `batch` option (one atomic request
   * per `batchSize` ids), else restore per id in parallel; resolves the restored records.
   */
  restoreMany<T extends BaseRecord = AnyRecord>(params: {
    readonly resource: string;
    readonly ids: readonly (string | number)[];
  }): Promise<{ data: T[] }>;
  /** `GET <resource>/options?label=&value=`: `{ label, value }` pairs for a select box, ordered by label. */
  getOptions(params: {
    readonly resource: string;
    readonly label: string;
    readonly value?: string;
  }): Promise<{ data: { label: unknown; value: unknown }[] }>;
}

/** getMany asks for at most this many ids per request (with `skipPagination`). */
const IDS_PER_REQUEST = 100;

/**
 * A Refine DataProvider for resources served by `crud()` under `apiUrl`: `<Refine
 * dataProvider={dataProvider('/api')}>`.
 * The resource name is the `crud` uri (`products` for `/api/products`).
 * @example const provider = dataProvider('/api', { headers: () => ({ Authorization: `Bearer ${token}` }) });
 */
export function dataProvider(apiUrl: string, options: RefineOptions = {}): KoaFastCrudRefineProvider {
  const termKey = options.termKey ?? 'term';
  const idField = options.idField ?? 'id';
  const searchField = options.searchField ?? 'q';
  const validation = options.validationStatuses ?? VALIDATION_STATUSES;
  const send = async (
    method: string,
    url: string,
    body?: unknown,
    signal?: unknown,
    through: ClientOptions = options,
    headers?: Readonly<Record<string, string>>,
  ) => {
    try {
      return await request(through, method, url, body, signal, headers);
    } catch (error) {
      throw error instanceof ProtocolError ? toHttpError(error, validation, conflict) : error;
    }
  };
  const conflict = options.conflictMessage ?? CONFLICT_MESSAGE;
  // The ETags of the records getOne and update answered, for the conditional writes of `preconditions`.
  const tags = new TagMemory();
  const ifMatch = (resource: string, id: unknown, meta: RefineMeta | undefined) => {
    const etag = meta?.etag ?? (preconditionsFor(options, resource) ? tags.tagOf(resource, id) : undefined);
    return etag === undefined ? undefined : { 'If-Match': etag };
  };
  const url = (resource: string, path = '', query = '') => resourceUrl(apiUrl, resource, path, query);
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const inFilter = (group: readonly (string | number)[]) =>
    searchParams({ conditions: [{ field: idField, op: 'in', value: group }] });
  const signalOf = (meta: RefineMeta | undefined) =>
    (meta?.['queryContext'] as { signal?: unknown } | undefined)?.signal;
  const each = async (ids: readonly (string | number)[], one: (id: string | number) => Promise<{ data: unknown }>) => ({
    data: (await Promise.all(ids.map(async (id) => (await one(id)).data))) as AnyRecord[],
  });
  return {
    async getList({ resource, pagination, sorters, filters, meta }) {
      const label = autocompleteLabel(options, resource);
      if (label !== undefined && (filters ?? []).some((filter) => filter.field === searchField)) {
        // `q` on a resource named by `autocomplete`: the options route's labels containing it.
        const { conditions, term } = refineConditions(filters ?? [], searchField);
        const current = pagination?.currentPage ?? pagination?.current ?? 1;
        // A cursor (useInfiniteList's page after the first) has no meaning on the options route: its first page.
        const page = typeof current === 'number' ? current : 1;
        const query = { label, value: idField, q: term ?? '', conditions, page, perPage: pagination?.pageSize ?? 10 };
        const { data } = await send('GET', url(resource, '/options', optionsParams(query)), undefined, signalOf(meta));
        const { records, hasMore } = optionRecords(data as { label: unknown; value: unknown }[], query);
        return {
          data: records as AnyRecord[],
          total: (page - 1) * query.perPage + records.length + (hasMore ? 1 : 0),
          hasMore,
        };
      }
      const query = refineQuery({ pagination, sorters, filters, meta }, searchField);
      const get = (search: SearchQuery) =>
        send('GET', url(resource, '', searchParams(search, termKey)), undefined, signalOf(meta));
      const first = await get(query);
      // A pageSize above the server's cap comes back lowered: read the rest of the page.
      const whole =
        typeof query.page === 'object' && 'page' in query.page
          ? await askedPage(query.page, first, (page, perPage) => get({ ...query, page: { page, perPage } }))
          : undefined;
      const { data, meta: replyMeta } = whole === undefined ? first : { data: whole.rows, meta: first.meta };
      const rows = data as AnyRecord[];
      const total = totalOf(replyMeta);
      const cursors = cursorsOf(replyMeta);
      if (cursors !== undefined) {
        const cursor = {
          ...(cursors.next !== null && { next: cursors.next }),
          ...(cursors.prev !== null && { prev: cursors.prev }),
        };
        return { data: rows, total: total ?? rows.length + (cursors.next === null ? 0 : 1), cursor };
      }
      const hasMore =
        whole === undefined ? hasMoreOf(replyMeta) : hasMoreOf(replyMeta) === undefined ? undefined : whole.more;
      // Without a count (search.count 'none'), the total reaches one row past this page when more follow.
      const page = typeof query.page === 'object' && 'page' in query.page ? query.page : undefined;
      const fallback =
        page === undefined ? rows.length : (page.page - 1) * page.perPage + rows.length + (hasMore ? 1 : 0);
      return { data: rows, total: total ?? fallback, ...(hasMore !== undefined && { hasMore }) };
    },
    async getOne({ resource, id, meta }) {
      const fields = refineFields(meta);
      const { data, etag } = await send(
        'GET',
        url(resource, idPath(id), searchParams({ include: meta?.include, fields })),
        undefined,
        signalOf(meta),
      );
      // A read with associations or a sparse one answers another ETag, which a write refuses: keep only the plain
      // record's.
      if (preconditionsFor(options, resource) && (meta?.include ?? []).length === 0 && fields === undefined)
        tags.remember(resource, id, data, etag);
      return { data: data as AnyRecord };
    },
    async getMany({ resource, ids, meta }) {
      const pages = await Promise.all(
        chunks(ids, IDS_PER_REQUEST).map(async (group) => {
          const query: SearchQuery = {
            conditions: [{ field: idField, op: 'in', value: group }],
            page: 'all',
            include: meta?.include,
            fields: refineFields(meta),
          };
          return (await send('GET', url(resource, '', searchParams(query, termKey)), undefined, signalOf(meta)))
            .data as AnyRecord[];
        }),
      );
      return { data: pages.flat() };
    },
    async create({ resource, variables }) {
      return { data: (await send('POST', url(resource), variables)).data as AnyRecord };
    },
    async createMany({ resource, variables }) {
      if (batchesFor(options, resource)) {
        const groups = await inGroups(
          variables,
          batchSize,
          async (group) => (await send('POST', url(resource), group)).data,
        );
        return { data: groups.flat() as AnyRecord[] };
      }
      return {
        data: (await Promise.all(
          variables.map(async (body) => (await send('POST', url(resource), body)).data),
        )) as AnyRecord[],
      };
    },
    async update({ resource, id, variables, meta }) {
      const reply = await send(
        'PATCH',
        url(resource, idPath(id)),
        variables,
        undefined,
        options,
        ifMatch(resource, id, meta),
      );
      if (preconditionsFor(options, resource)) tags.remember(resource, id, reply.data, reply.etag);
      return { data: reply.data as AnyRecord };
    },
    async updateMany({ resource, ids, variables }) {
      if (!batchesFor(options, resource)) return each(ids, (id) => send('PATCH', url(resource, idPath(id)), variables));
      const groups = await inGroups(
        ids,
        batchSize,
        async (group) => (await send('PATCH', url(resource, '', inFilter(group)), variables)).data,
      );
      return { data: groups.flat() as AnyRecord[] };
    },
    async deleteOne({ resource, id, meta }) {
      await send('DELETE', url(resource, idPath(id)), undefined, undefined, options, ifMatch(resource, id, meta));
      tags.forget(resource, id);
      return { data: { [idField]: id } as AnyRecord };
    },
    async deleteMany({ resource, ids }) {
      if (batchesFor(options, resource))
        await inGroups(ids, batchSize, (group) => send('DELETE', url(resource, '', inFilter(group))));
      else await Promise.all(ids.map((id) => send('DELETE', url(resource, idPath(id)))));
      return { data: ids.map((id) => ({ [idField]: id })) as AnyRecord[] };
    },
    getApiUrl: () => apiUrl,
    async custom({ url: target, method, filters, sorters, payload, query, headers, meta }) {
      const { conditions, groups, term, sort } = refineQuery({ filters, sorters }, searchField);
      const searched = searchParams({ conditions, groups, term, sort }, termKey);
      const extra =
        query === undefined || query === null
          ? ''
          : Object.entries(query as Record<string, unknown>)
              .filter(([, v]) => v !== undefined && v !== null)
              .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(textOf(v))}`)
              .join('&');
      const qs = [searched, extra].filter((part) => part !== '').join('&');
      const absolute =
        /^[a-z][a-z\d+.-]*:\/\//i.test(target) || target.startsWith('/')
          ? target
          : `${apiUrl.replace(/\/+$/, '')}/${target}`;
      const full = qs === '' ? absolute : `${absolute}${absolute.includes('?') ? '&' : '?'}${qs}`;
      const withHeaders: ClientOptions =
        headers === undefined
          ? options
          : {
              ...options,
              headers: async () => ({ ...(await resolveHeaders(options)), ...(headers as Record<string, string>) }),
            };
      const reply = await send(method.toUpperCase(), full, payload, signalOf(meta), withHeaders);
      return { data: reply.data as AnyRecord, meta: reply.meta };
    },
    async softDelete({ resource, id }) {
      return { data: (await send('DELETE', url(resource, `${idPath(id)}/soft`))).data as AnyRecord };
    },
    async restore({ resource, id }) {
      return { data: (await send('PATCH', url(resource, `${idPath(id)}/restore`))).data as AnyRecord };
    },
    async softDeleteMany({ resource, ids }) {
      if (!batchesFor(options, resource)) return each(ids, (id) => send('DELETE', url(resource, `${idPath(id)}/soft`)));
      const groups = await inGroups(
        ids,
        batchSize,
        async (group) => (await send('DELETE', url(resource, '/soft', inFilter(group)))).data,
      );
      return { data: groups.flat() as AnyRecord[] };
    },
    async restoreMany({ resource, ids }) {
      if (!batchesFor(options, resource))
        return each(ids, (id) => send('PATCH', url(resource, `${idPath(id)}/restore`)));
      const groups = await inGroups(
        ids,
        batchSize,
        async (group) => (await send('PATCH', url(resource, '/restore', inFilter(group)))).data,
      );
      return { data: groups.flat() as AnyRecord[] };
    },
    async getOptions({ resource, label, value }) {
      const valueParam = value === undefined ? '' : `&value=${encodeURIComponent(value)}`;
      const query = `label=${encodeURIComponent(label)}${valueParam}`;
      return {
        data: (await send('GET', url(resource, '/options', query))).data as { label: unknown; value: unknown }[],
      };
    },
  };
}

/**
 * The search a getList asks for: filters by `refineConditions`, sorters, and the page (`mode`
 * `off` or `client`: every row, `skipPagination=true`; `server`, the default: page 1 of 10 unless given).
 * @example
 * refineQuery({
 *   filters: [{ field: 'price', operator: 'gte', value: 30 }],
 *   pagination: { currentPage: 2, pageSize: 5 },
 * })
 *   // { conditions: [{ field: 'price', op: 'gte', value: 30 }], term: undefined, sort: [], page: { page: 2, perPage: 5
 *   // } }
 */
export function refineQuery(
  params: Pick<RefineListParams, 'pagination' | 'sorters' | 'filters' | 'meta'>,
  searchField = 'q',
): SearchQuery & { readonly conditions: readonly FilterCondition[] } {
  const { conditions, groups, term } = refineConditions(params.filters ?? [], searchField);
  const pagination = params.pagination;
  const mode = pagination?.mode ?? 'server';
  const current = pagination?.currentPage ?? pagination?.current ?? 1;
  const perPage = pagination?.pageSize ?? 10;
  // Refine's cursor contract: useInfiniteList passes the cursor getNextPageParam took from `cursor.next` as the page.
  const cursor = params.meta?.cursor === true || typeof current === 'string';
  const page =
    mode !== 'server'
      ? 'all'
      : cursor
        ? { cursor: typeof current === 'string' ? current : '', perPage }
        : { page: current, perPage };
  return {
    conditions,
    ...(groups !== undefined && { groups }),
    term,
    sort: (params.sorters ?? []).map(({ field, order }) => ({ field, order: order === 'desc' ? 'DESC' : 'ASC' })),
    page,
    ...(params.meta?.include && { include: params.meta.include }),
    ...(refineFields(params.meta) && { fields: refineFields(params.meta) }),
  };
}

/**
 * The sparse fieldset of Refine's `meta`: `meta.fields` (names, and `{ category: ['name'] }` for `category.name`), else
 * `meta.select` (`'id,name'` or a list); undefined when neither names a field.
 * @example refineFields({ fields: ['id', { category: ['name'] }] }) // ['id', 'category.name']
 */
export function refineFields(meta: RefineMeta | undefined): string[] | undefined {
  const walk = (items: readonly unknown[], prefix: string): string[] =>
    items.flatMap((item) =>
      typeof item === 'string'
        ? [prefix + item]
        : typeof item === 'object' && item !== null && !Array.isArray(item)
          ? Object.entries(item).flatMap(([key, nested]) =>
              Array.isArray(nested) ? walk(nested, `${prefix}${key}.`) : [],
            )
          : [],
    );
  const select = meta?.select;
  const names =
    meta?.fields !== undefined
      ? walk(meta.fields, '')
      : typeof select === 'string'
        ? select.split(',').map((name) => name.trim())
        : Array.isArray(select)
          ? walk(select, '')
          : [];
  const kept = names.filter((name) => name !== '');
  return kept.length > 0 ? kept : undefined;
}

/**
 * Refine filters as the server's conditions, `$or`/`$and` groups and term search. Each operator maps by
 * `REFINE_OPERATORS`, and a conditional filter (`{ operator: 'or' | 'and', value: [...] }`) is a group whose items
 * are its filters, nested as Refine nests them (the server takes three deep); any other operator (`startswith`,
 * `containss`, …) throws an Error naming it, as does the same field and operator given twice, rather than being
 * dropped. A filter on `searchField` (`q`) is the term search, at the top only (inside a group it throws). An empty
 * value (undefined, null, `''`, `[]`) adds nothing, as a cleared filter input should, and a group left without
 * filters neither; `null` and `nnull` take no value.
 * @example refineConditions([{ field: 'price', operator: 'between', value: [20, 40] }]).conditions
 *   // [{ field: 'price', op: 'btw', value: [20, 40] }]
 * @example refineConditions([{ operator: 'or', value: [{ field: 'name', operator: 'eq', value: 'a' }] }]).groups
 *   // [{ group: 'or', items: [[{ field: 'name', op: 'eq', value: 'a' }]] }]
 */
export function refineConditions(
  filters: readonly RefineFilter[],
  searchField = 'q',
): { conditions: FilterCondition[]; groups?: FilterGroup[]; term: string | undefined } {
  const conditions: FilterCondition[] = [];
  const groups: FilterGroup[] = [];
  let term: string | undefined;
  for (const filter of filters) {
    if (isConditional(filter)) {
      groups.push(...refineGroup(filter, searchField));
      continue;
    }
    const read = refineCondition(filter, searchField);
    if (read === null) continue;
    if ('term' in read) {
      if (read.term.trim() !== '') term = read.term;
      continue;
    }
    if (conditions.some((c) => c.field === read.field && c.op === read.op)) {
      throw new Error(
        `koa-fast-crud/refine: the filter ${JSON.stringify(read.field)} ${filter.operator} is given twice; the ` +
          `server takes one value per field and operator`,
      );
    }
    conditions.push(read);
  }
  return { conditions, ...(groups.length > 0 && { groups }), term };
}

/** True for Refine's `ConditionalFilter`: `or` or `and` over a list of filters. */
function isConditional(filter: RefineFilter): boolean {
  return (filter.operator === 'or' || filter.operator === 'and') && Array.isArray(filter.value);
}

/** A conditional filter as a group (none when every filter in it is empty); each of its filters is one item. */
function refineGroup(filter: RefineFilter, searchField: string): FilterGroup[] {
  const items = (filter.value as readonly RefineFilter[]).flatMap((inner): (FilterCondition | FilterGroup)[][] => {
    if (isConditional(inner)) return refineGroup(inner, searchField).map((group) => [group]);
    const read = refineCondition(inner, searchField);
    if (read !== null && 'term' in read)
      throw new Error(
        `koa-fast-crud/refine: the search field ${JSON.stringify(searchField)} cannot be inside an ` +
          `${JSON.stringify(filter.operator)} filter; give it beside the others`,
      );
    return read === null ? [] : [[read]];
  });
  return items.length === 0 ? [] : [{ group: filter.operator as FilterGroup['group'], items }];
}

/** One Refine filter as a condition, the term search, or null for an empty value; throws for another operator. */
function refineCondition(filter: RefineFilter, searchField: string): FilterCondition | { term: string } | null {
  const { field, operator, value } = filter;
  if (field === undefined || !Object.hasOwn(REFINE_OPERATORS, operator)) {
    const on = field === undefined ? '' : ` on ${JSON.stringify(field)}`;
    throw new Error(
      `koa-fast-crud/refine: the filter operator ${JSON.stringify(operator)}${on} ` +
        'has no equivalent in koa-fast-crud; ' +
        `use one of ${[...Object.keys(REFINE_OPERATORS), 'or', 'and'].join(', ')} (several filters are already ANDed)`,
    );
  }
  const op = REFINE_OPERATORS[operator as RefineOperator];
  if (field === searchField && (op === 'eq' || op === 'like')) return { term: textOf(value) };
  if (
    OPERATORS[op] !== 'none' &&
    (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0))
  )
    return null;
  return OPERATORS[op] === 'none' ? { field, op } : { field, op, value };
}

/**
 * A ProtocolError as Refine's HttpError: `errors` holds one message per field for a validation
 * status, leaving out items without a field (their message is in `message`). A write refused because the record
 * changed since it was read (412 `preconditionFailed`, 409 `staleVersion`) has no `errors` and `conflictMessage` as
 * its message.
 * @example toHttpError(error).errors // { price: 'A price is never negative' }
 */
export function toHttpError(
  error: ProtocolError,
  validationStatuses: readonly number[] = VALIDATION_STATUSES,
  conflictMessage: string = CONFLICT_MESSAGE,
): HttpError {
  if (isConflict(error)) return new HttpError(conflictMessage, error.status, error.items, error.envelope);
  // fieldErrors puts an item without a field (or named 'root') under root; Refine wants those in message only.
  const withField = error.items.filter((item) => item.field !== null && item.field !== '' && item.field !== 'root');
  const errors =
    withField.length > 0 && validationStatuses.includes(error.status)
      ? (fieldErrors(withField) as Record<string, string>)
      : undefined;
  return new HttpError(error.message, error.status, error.items, error.envelope, errors);
}

/**
 * A live event as Refine's `liveProvider` hands it to a subscription: the channel (`resources/<name>`), the kind
 * (`created`, `updated`, `deleted`; a soft delete is `deleted`, a restore `created`, a `reset` of the feed `updated`),
 * the ids written, and when it came.
 * @example { channel: 'resources/products', type: 'updated', payload: { ids: ['7'] }, date: new Date() }
 */
export interface RefineLiveEvent {
  channel: string;
  type: string;
  payload: { ids?: (string | number)[]; [key: string]: unknown };
  date: Date;
}

/** What Refine passes to `liveProvider.subscribe`. */
export interface RefineLiveSubscribeOptions {
  channel: string;
  types: string[];
  callback: (event: RefineLiveEvent) => void;
  params?: { ids?: (string | number)[]; id?: string | number; [key: string]: unknown };
}

/** A live provider, structurally Refine's `LiveProvider`. */
export interface KoaFastCrudLiveProvider {
  subscribe(options: RefineLiveSubscribeOptions): { readonly channel: string; stop(): void };
  unsubscribe(subscription: { stop(): void }): void;
  publish(event: RefineLiveEvent): void;
}

/**
 * A Refine `liveProvider` over the change feed (`live: true` resources): `<Refine liveProvider={liveProvider('/api')}
 * options={{ liveMode: 'auto' }}>`. Channel `resources/<name>` listens to `GET <uri>/changes` (one `EventSource` per
 * resource, resuming with `Last-Event-ID` after a drop); `params.ids` (a show or edit page) keeps the events of those
 * records, trimmed to them. An `EventSource` sends no custom header: the feed is authenticated by cookies.
 * @example const live = liveProvider('/api');
 */
export function liveProvider(apiUrl: string, options: LiveOptions = {}): KoaFastCrudLiveProvider {
  const feeds = liveFeeds(apiUrl, options);
  const local = new Map<string, Set<RefineLiveSubscribeOptions>>();
  const wanted = (subscription: RefineLiveSubscribeOptions, type: string) =>
    subscription.types.length === 0 || subscription.types.includes('*') || subscription.types.includes(type);
  return {
    subscribe(subscription) {
      const { channel, callback, params } = subscription;
      const only = params?.ids ?? (params?.id === undefined ? undefined : [params.id]);
      const ids = only === undefined ? undefined : new Set(only.map(String));
      const match = /^resources\/(.+)$/.exec(channel);
      local.set(channel, (local.get(channel) ?? new Set()).add(subscription));
      const stopFeed =
        match === null
          ? () => undefined
          : feeds.listen(match[1]!, (kind, written) => {
              const type = clientKind(kind);
              const shown = ids === undefined || kind === 'reset' ? written : written.filter((id) => ids.has(id));
              if ((kind !== 'reset' && shown.length === 0) || !wanted(subscription, type)) return;
              callback({ channel, type, payload: { ids: [...shown] }, date: new Date() });
            });
      return {
        channel,
        stop: () => {
          local.get(channel)?.delete(subscription);
          stopFeed();
        },
      };
    },
    unsubscribe(subscription) {
      subscription.stop();
    },
    publish(event) {
      for (const subscription of [...(local.get(event.channel) ?? [])])
        if (wanted(subscription, event.type)) subscription.callback(event);
    },
  };
}
