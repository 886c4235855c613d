/** One OpenAPI operation per planned route: parameters, body and JSend responses by action. */
import { SAFE_METHODS } from '../core/cross-origin.js';
import { statusOf } from '../core/error-codes.js';
import { CHANGE_KINDS } from '../core/live-feed.js';
import { aggregateParameters, aggregateRowSchema, type AggregateChoices } from './aggregate-operation.js';
import type { RouteDef } from '../types.js';
import type { JsonSchema } from './attribute-schema.js';
import { PAGE_PARAMETERS, queryParameter, type QueryParameter } from './query-parameters.js';

/** What an operation needs to know about its resource. */
export interface OperationContext {
  /** Component names of the record and input schemas. */
  readonly record: string;
  readonly input: string;
  readonly idSchema: JsonSchema;
  readonly statuses: Readonly<Record<string, number>>;
  readonly validationStatus: number;
  /** The resource's tag. */
  readonly tag: string;
  /** Search's and exportCsv's filter and sort parameters (`filterParameters`, `sortParameter`); none when absent. */
  readonly searchParameters?: readonly QueryParameter[] | undefined;
  /** `options.max_limit`: the most items an options request with `q` or `limit` answers; 100 when absent. */
  readonly optionsMaxLimit?: number | undefined;
  /** The `include` parameter of search and read, when the resource may include associations. */
  readonly includeParameter?: QueryParameter | undefined;
  /** The `fields` parameter of search and read (`records`) and of exportCsv (`csv`); none when absent. */
  readonly fieldsParameters?: { readonly records: QueryParameter; readonly csv: QueryParameter } | undefined;
  /** The security requirements of a route guarded by an ability; none when absent. */
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[] | undefined;
  /** True when the resource has a read route: create's reply then carries `Location`. */
  readonly readable?: boolean | undefined;
  /** The writes whose `require_if_match` is on (`If-Match` required, 428 without it), by action; none when absent. */
  readonly requireIfMatch?: Readonly<Partial<Record<string, boolean>>> | undefined;
  /** The names the aggregates route takes, for a resource declared with `aggregate`; none when absent. */
  readonly aggregate?: AggregateChoices | undefined;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const success = (data: JsonSchema, meta: JsonSchema = { type: 'object' }) =>
  json({
    type: 'object',
    required: ['status', 'data', 'meta'],
    properties: { status: { const: 'success' }, data, meta },
  });
const failResponse = (description: string) => ({ description, content: json(ref('JSendFail')) });

const query = (name: string, schema: JsonSchema, description: string, required = false) =>
  queryParameter(name, schema, description, { required });

/** What each action does, for its operation's description. */
const DESCRIPTIONS: Readonly<Record<string, (record: string) => string>> = {
  aggregate: (record) =>
    `Counts, sums, averages, minimums and maximums of the ${record} records the filters match, one row per ` +
    `group of groupBy values (one row over every record without groupBy), ordered by those values. Every measure ` +
    `is a JSON number (null over no value); soft-deleted records are left out as search leaves them out. More ` +
    `groups than aggregate.max_groups is a fail (tooManyRows).`,
  changes: (record) =>
    `The change feed of ${record}: an event per committed write (created, updated, deleted, softDeleted, ` +
    `restored; a batch write is one event), carrying only the ids of the records written, so clients refetch ` +
    `what they show through the other routes. Resumes from Last-Event-ID.`,
  search: (record) =>
    `A page of ${record} records. Each filter[column][operator] parameter adds a condition, and every condition ` +
    `must hold; sort orders the rows and page and perPage choose the page. meta.pagination describes the pages. An ` +
    `unknown column or operator, or a value the column cannot hold, is a fail naming it.`,
  options: (record) =>
    `Label/value pairs of the ${record} records for a select box, ordered by the label column; soft-deleted ` +
    `records are left out. For an autocomplete, q keeps the labels that contain it (case-insensitively) and limit ` +
    `answers the first ones; filter[column][operator] parameters narrow the records as search's do.`,
  create: (record) =>
    `Creates a ${record} from the fillable fields of a JSON or form body, in one transaction, and answers the ` +
    `record as a read returns it. A field that is not fillable is ignored; one that breaks a rule is a fail naming ` +
    `it.`,
  exportCsv: (record) =>
    `Every ${record} record the filters match, as CSV with a header line, streamed. The same filter and sort ` +
    `parameters as search; no pages.`,
  read: (record) => `The ${record} the id names; soft-deleted records are not found.`,
  update: (record) =>
    `Writes the fillable fields the body carries to the ${record} the id names (a partial update, whatever the ` +
    `verb), in one transaction, and answers the record as a read returns it.`,
  delete: (record) => `Deletes the ${record} the id names, for good.`,
  softDelete: (record) =>
    `Marks the ${record} the id names as deleted: reads and searches no longer find it, and restore brings it back.`,
  restore: (record) => `Clears the deleted mark of the soft-deleted ${record} the id names.`,
};

const LOCATION = {
  Location: { description: "The created record's read URL", schema: { type: 'string', format: 'uri-reference' } },
};

const ETAG = {
  ETag: {
    description:
      "The record's entity tag (strong: its version, or a hash of the record as sent), for If-Match and " +
      'If-None-Match; a weak one of the whole page on a search',
    schema: { type: 'string' },
  },
};

/** The 304 of read and search: the client's copy, named by `If-None-Match`, is current. */
const PER_PAGE_LOWERED = {
  'Fast-Crud-Per-Page-Lowered': {
    description: 'Present when perPage was above search.max_per_page: the page size used (as meta.pagination.perPage)',
    schema: { type: 'integer' },
  },
};

const NOT_MODIFIED = { description: 'Not Modified: the If-None-Match names the current ETag (no body)', headers: ETAG };

const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETags the client holds (or *): when one is the current ETag, the answer is 304 without a body',
  schema: { type: 'string' },
};

const ifMatch = (required: boolean) => ({
  name: 'If-Match',
  in: 'header',
  required,
  description:
    'The ETag of the record as the client read it (or *): any other is a 412 and nothing is written. Required (428 ' +
    "without it) when the action's require_if_match is on",
  schema: { type: 'string' },
});

/**
 * The 503 of every operation: the database is unavailable or the request passed its deadline; retry after
 * `Retry-After`.
 */
const UNAVAILABLE = {
  description:
    'The database is unavailable (code databaseUnavailable) or the request passed global.timeout_ms (code ' +
    'databaseTimeout): retry after Retry-After',
  headers: {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/JSendError' } } },
} as const;

/**
 * The 403 of an operation, when it has one: the route's ability (`forbidden`), and for a POST, PUT,
 * PATCH or DELETE the cross-origin check every route runs (`crossOrigin`, see `crossOriginCheck`).
 * One response per status, so both reasons share its description.
 */
function forbiddenResponse(def: RouteDef): Record<string, unknown> {
  const reasons = [
    ...(def.ability === null ? [] : [`the caller lacks ${def.ability} (code forbidden)`]),
    ...(SAFE_METHODS.has(def.verb.toUpperCase())
      ? []
      : ['a browser sent it from an origin that cors.origins does not list (code crossOrigin)']),
  ].join(', or ');
  if (reasons === '') return {};
  return { [statusOf('forbidden')]: failResponse(reasons.charAt(0).toUpperCase() + reasons.slice(1)) };
}

/**
 * The OpenAPI operation of a planned route: summary, parameters, request body, responses and `x-ability`.
 * @example operationFor(def, context)
 *   // { operationId: 'products.read', parameters: [...], responses: { 200: …, 404: … }, 'x-ability':
 *   // 'shop.access.view' }
 */
export function operationFor(def: RouteDef, context: OperationContext, operationId: string): Record<string, unknown> {
  const id = { name: 'id', in: 'path', required: true, schema: context.idSchema };
  const status = (action: string) => String(context.statuses[action] ?? 200);
  const invalid = {
    [String(context.validationStatus)]: failResponse('The request names an unknown column, operator or value'),
  };
  const notFound = { [statusOf('recordNotFound')]: failResponse('No record for this id (or it is soft-deleted)') };
  const forbidden = forbiddenResponse(def);
  // A form body has the same fields, in bracket syntax (`tags[0]=red`), parsed within the query-string limits.
  const body = (schema: string) => ({
    required: true,
    content: { ...json(ref(schema)), 'application/x-www-form-urlencoded': { schema: ref(schema) } },
  });
  const writeErrors = {
    ...invalid,
    [statusOf('unique')]: failResponse('A unique or foreign-key constraint refused the write'),
    [statusOf('contentTooLarge')]: failResponse('The body is larger than global.body_limit'),
    [statusOf('unsupportedMediaType')]: failResponse(
      'The body is neither JSON nor a form (application/x-www-form-urlencoded)',
    ),
  };
  const record = success(ref(context.record));
  // A write that checks If-Match (412), and requires it (428) when configured.
  const required = context.requireIfMatch?.[def.method] === true;
  const conditional = {
    [statusOf('preconditionFailed')]: failResponse(
      "If-Match names none of the record's current ETags (nothing written)",
    ),
    ...(required && {
      [statusOf('preconditionRequired')]: failResponse('The request has no If-Match, which this write requires'),
    }),
  };
  const what = DESCRIPTIONS[def.method]?.(context.record) ?? `The ${def.method} action.`;
  const description = `${what}${def.ability === null ? '' : ` Needs the ability ${def.ability}.`}`;
  // A route no ability guards says so (`security: []`) where the others list schemes: open on purpose, not forgotten.
  const secured = context.security !== undefined && context.security.length > 0;
  const guarded = secured && {
    security: def.ability === null ? [] : context.security.map((requirement) => ({ ...requirement })),
  };
  const common = {
    operationId,
    tags: [context.tag],
    description,
    ...guarded,
    ...(def.ability !== null && { 'x-ability': def.ability }),
  };
  const filters = context.searchParameters ?? [];
  const include = context.includeParameter === undefined ? [] : [context.includeParameter];
  const fields = context.fieldsParameters === undefined ? [] : [context.fieldsParameters.records];
  const responses = (specific: Record<string, unknown>) => ({
    ...specific,
    ...forbidden,
    '500': { description: 'A server fault', content: json(ref('JSendError')) },
    [statusOf('databaseUnavailable')]: UNAVAILABLE,
  });
  switch (def.method) {
    case 'search':
      return {
        ...common,
        summary: `Search ${context.record} records`,
        parameters: [...filters, ...PAGE_PARAMETERS, ...include, ...fields, ifNoneMatch],
        responses: responses({
          [status('search')]: {
            description: 'A page of records',
            headers: { ...ETAG, ...PER_PAGE_LOWERED },
            content: success(
              { type: 'array', items: ref(context.record) },
              { type: 'object', properties: { pagination: ref('Pagination') } },
            ),
          },
          '304': NOT_MODIFIED,
          ...invalid,
        }),
      };
    case 'options':
      return {
        ...common,
        summary: `${context.record} options for select boxes`,
        parameters: [
          query('label', { type: 'string' }, 'Column returned as label', true),
          query('value', { type: 'string' }, 'Column returned as value (default options.default_value)'),
          query(
            'q',
            { type: 'string' },
            'Text the label must contain, case-insensitively (% and _ match themselves); with it, at most ' +
              'options.max_limit items unless limit says fewer',
          ),
          query(
            'limit',
            { type: 'integer', minimum: 1 },
            `Most items to answer, the first by label; lowered to options.max_limit ` +
              `(${context.optionsMaxLimit ?? 100})`,
          ),
          ...filters.filter((parameter) => parameter.name.startsWith('filter[')),
        ],
        responses: responses({
          [status('options')]: {
            description: 'Label/value pairs ordered by label',
            content: success({ type: 'array', items: ref('OptionItem') }),
          },
          ...invalid,
        }),
      };
    case 'create':
      return {
        ...common,
        summary: `Create a ${context.record}`,
        requestBody: body(context.input),
        responses: responses({
          [status('create')]: {
            description: 'The created record',
            headers: { ...ETAG, ...(context.readable === true && LOCATION) },
            content: record,
          },
          ...writeErrors,
        }),
      };
    case 'exportCsv':
      return {
        ...common,
        summary: `Export ${context.record} records as CSV`,
        parameters: [...filters, ...(context.fieldsParameters === undefined ? [] : [context.fieldsParameters.csv])],
        responses: responses({
          [status('export_csv')]: {
            description: 'A CSV download',
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          ...invalid,
        }),
      };
    case 'read':
      return {
        ...common,
        summary: `Read a ${context.record}`,
        parameters: [id, ...include, ...fields, ifNoneMatch, ifMatch(false)],
        responses: responses({
          [status('read')]: { description: 'The record', headers: ETAG, content: record },
          '304': NOT_MODIFIED,
          ...notFound,
          [statusOf('preconditionFailed')]: failResponse("If-Match names none of the record's current ETags"),
        }),
      };
    case 'update':
      return {
        ...common,
        summary: `Update a ${context.record} (partial)`,
        parameters: [id, ifMatch(required)],
        requestBody: body(`${context.input}Patch`),
        responses: responses({
          [status('update')]: { description: 'The updated record', headers: ETAG, content: record },
          ...writeErrors,
          [statusOf('staleVersion')]: failResponse(
            "A unique or foreign-key constraint refused the write, or the body's version is not the stored one " +
              '(staleVersion, on a model with optimistic locking)',
          ),
          ...notFound,
          ...conditional,
        }),
      };
    case 'delete':
      return {
        ...common,
        summary: `Delete a ${context.record}`,
        parameters: [id, ifMatch(required)],
        responses: responses({
          [status('delete')]: { description: 'Deleted', content: success({ type: 'null' }) },
          ...notFound,
          ...conditional,
          [statusOf('foreignKey')]: failResponse('Related records refuse the delete'),
        }),
      };
    case 'softDelete':
    case 'restore': {
      const action = def.method === 'softDelete' ? 'soft_delete' : 'restore';
      return {
        ...common,
        summary: `${def.method === 'softDelete' ? 'Soft-delete' : 'Restore'} a ${context.record}`,
        parameters: [id, ifMatch(required)],
        responses: responses({
          [status(action)]: { description: 'The record', headers: ETAG, content: record },
          ...invalid,
          ...notFound,
          ...conditional,
        }),
      };
    }
    case 'changes':
      return changesOperation(common, context.record, responses, invalid);
    case 'aggregate':
      return {
        ...common,
        summary: `Aggregate ${context.record} records by group`,
        parameters: aggregateParameters(
          context.aggregate ?? { groupBy: [], measures: { sum: [], avg: [], min: [], max: [] } },
          filters.filter((parameter) => parameter.name.startsWith('filter[')),
        ),
        responses: responses({
          [status('search')]: {
            description: 'One row per group',
            content: success({ type: 'array', items: aggregateRowSchema }),
          },
          ...invalid,
        }),
      };
    default:
      return { ...common, summary: def.method, responses: responses({ '200': { description: 'A custom action' } }) };
  }
}

/** The kinds of change event, each one write action's (`CHANGE_KINDS`), and `reset`. */
const CHANGE_EVENTS = [...Object.values(CHANGE_KINDS), 'reset'] as const;

/**
 * The change feed's operation (`GET <uri>/changes`, a resource with `live: true`): a `text/event-stream` whose events
 * are named by kind, each with an `id` and a `data` line of `{"ids": [...]}` (find-field values only); `reset` carries
 * `{}`. `x-events` lists each event's data schema.
 */
function changesOperation(
  common: Record<string, unknown>,
  record: string,
  responses: (specific: Record<string, unknown>) => Record<string, unknown>,
  invalid: Record<string, unknown>,
): Record<string, unknown> {
  const ids = {
    type: 'object',
    required: ['ids'],
    properties: { ids: { type: 'array', items: { type: 'string' }, description: 'Find-field values, as text' } },
  };
  return {
    ...common,
    summary: `Stream ${record} changes (Server-Sent Events)`,
    parameters: [
      query('ids', { type: 'string' }, 'Comma-separated ids: only the events of these records, trimmed to them'),
      {
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        description:
          'The id of the last event the client received (EventSource sends it when it reconnects): every later ' +
          'event the outbox holds is sent first; an id it no longer holds gets one reset event',
        schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$' },
      },
    ],
    responses: {
      ...responses({
        '200': {
          description:
            `A stream of Server-Sent Events, one per committed write of ${record}: id (increasing), event (the kind: ` +
            `${CHANGE_EVENTS.join(', ')}) and data. It opens with a retry hint and sends a comment line every ` +
            'live.heartbeat_s.',
          content: {
            'text/event-stream': {
              schema: { type: 'string' },
              example: 'retry: 3000\n\nid: 42\nevent: updated\ndata: {"ids":["7"]}\n\n',
              'x-events': Object.fromEntries(
                CHANGE_EVENTS.map((kind) => [kind, kind === 'reset' ? { type: 'object' } : ids]),
              ),
            },
          },
        },
        ...invalid,
      }),
      // The feed's 503 has a code of its own besides the database's.
      [statusOf('tooManySubscribers')]: {
        description:
          'The database is unavailable, or the process serves live.max_subscribers streams already ' +
          '(code tooManySubscribers); retry after Retry-After',
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['status', 'message', 'code'],
              properties: {
                status: { const: 'error' },
                message: { type: 'string' },
                code: { enum: ['databaseUnavailable', 'databaseTimeout', 'tooManySubscribers'] },
              },
            },
          },
        },
      },
    },
  };
}
