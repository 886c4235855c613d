/** ERROR_TABLE: the one table of the error codes koa-fast-crud writes, each with its HTTP status and meaning. */
import type { ErrorCode, ErrorCodeEntry } from '../types.js';

/**
 * Every code the library writes, by code: its HTTP status (`'validation'`: the configured
 * `global.validation.http_status`; `'thrown'`: the status of the error a hook threw) and its meaning.
 * The errors guide's codes table and the OpenAPI `FailItem` examples are made from it.
 * @example ERROR_TABLE.contentTooLarge // { status: 413, meaning: 'the body is larger than `global.body_limit`' }
 */
export const ERROR_TABLE = Object.freeze({
  required: {
    status: 'validation',
    meaning: '`options` without `label`; an aggregate that asks for neither a measure nor a `groupBy`',
  },
  columnNotFound: {
    status: 'validation',
    meaning:
      'a filter, sort, options, `fields`, aggregate or `groupBy` column that does not exist or that the field ' +
      'policy does not allow. ' +
      'Also a term search on a resource without `termFields`, and softDelete or restore on a model without the ' +
      'deleted-at column',
  },
  invalidOperator: {
    status: 'validation',
    meaning: "an unknown filter operator, or one that does not apply to the column's type (`like` on a number)",
  },
  invalidValue: {
    status: 'validation',
    meaning:
      'a filter value that does not fit its column. Also: a bad `page`, `perPage`, `skipPagination` or `sort`, a ' +
      '`fields` path whose association is not in `include`, a ' +
      'query string nested more than 9 brackets deep, a NUL character, a value the database rejects as out of ' +
      'range (PostgreSQL and MariaDB), or a row a CHECK constraint refuses (naming the column of a MariaDB column ' +
      'check, such as a JSON value over the 32 levels MariaDB stores)',
  },
  type: { status: 'validation', meaning: "a body value that does not fit its column's type" },
  invalid: {
    status: 'validation',
    meaning: 'a Sequelize validation item that has neither a `validatorKey` nor a `type`',
  },
  emptyPayload: { status: 'validation', meaning: 'a body that is missing, an empty object, an array or a scalar' },
  schema: {
    status: 'validation',
    meaning:
      "a body the resource's validation schema (`validate.create`/`validate.update`, or the class form's " +
      "`createValidateRules`/`updateValidateRules`) rejects, one item per issue, its field the issue's path joined " +
      "with dots (`tags.0.name`). Also each issue of a Standard Schema error (zod's `ZodError`, valibot's " +
      '`ValiError`) a hook throws',
  },
  unknownParameter: {
    status: 'validation',
    meaning:
      'a query parameter that search or exportCsv does not read (`perpage`, `filters`, `_sort`), named with the ' +
      'nearest known one; `search.strict_params: false` ignores them instead',
  },
  invalidJson: { status: 400, meaning: 'the body is not valid JSON' },
  invalidForm: {
    status: 400,
    meaning:
      'a form body (`application/x-www-form-urlencoded`) beyond the query-string limits: nested more than 3 ' +
      'brackets deep, over 200 parameters or a list over 100 items',
  },
  invalidBody: { status: 400, meaning: 'the body could not be read to its end' },
  unsupportedMediaType: {
    status: 415,
    meaning: "the body's `Content-Type` is neither JSON nor `application/x-www-form-urlencoded`",
  },
  contentTooLarge: { status: 413, meaning: 'the body is larger than `global.body_limit`' },
  tooDeep: {
    status: 'validation',
    meaning:
      'a body, or a `json` filter value, with arrays or objects nested deeper than `global.max_depth` (the field ' +
      'names where). Also, on SQLite, a `json` filter over a column where a stored value is nested deeper than ' +
      "SQLite's JSON functions read (1,000 levels), naming the filter",
  },
  uriTooLong: {
    status: 414,
    meaning: 'the URL (path and query string) is longer than `global.max_url_length` characters',
  },
  tooManyRows: {
    status: 'validation',
    meaning:
      '`skipPagination=true`, or an options list, that would answer more than `search.max_unpaginated` rows: ' +
      'paginate, narrow it with a filter, or raise the cap. Also a batch write of more than `batch.max_records` ' +
      'records (an array body that long, or a filter that matches more), which changes nothing. Also an aggregate ' +
      'over more than `aggregate.max_groups` groups',
  },
  invalidCursor: {
    status: 'validation',
    meaning:
      'a `cursor` that this search did not give (changed, or signed with another `search.cursor_secret`), or one ' +
      'sent with another `sort` or `filter` than the request that gave it',
  },
  filterRequired: {
    status: 'validation',
    meaning: 'a batch `PATCH` or `DELETE` on the collection without any `filter[...]`: it would change every record',
  },
  unique: {
    status: 409,
    meaning:
      'a unique constraint would be broken: one item per attribute, or one with `field: null` when the field ' +
      'policy hides one of them',
  },
  foreignKey: {
    status: 409,
    meaning:
      'a foreign key would point nowhere (naming it on PostgreSQL and MariaDB), or a deleted row is still ' +
      'referenced. Also an id of a relational write that finds no row the request may reach (`tags.1`, `tags.add.0`)',
  },
  recordNotFound: { status: 404, meaning: '`{id}` finds no record that the action may use' },
  preconditionFailed: {
    status: 412,
    meaning:
      "an `If-Match` that names none of the record's current ETags (update, delete, soft delete, restore, read), or " +
      'an `If-None-Match` on a write that names it: the record changed since the client read it; nothing was written',
  },
  preconditionRequired: {
    status: 428,
    meaning:
      'a write without `If-Match` where `update.require_if_match`, `delete.require_if_match` (delete and soft ' +
      'delete) or `restore.require_if_match` is on',
  },
  staleVersion: {
    status: 409,
    meaning:
      "an update whose body sends a `version` (the model's optimistic-locking attribute) other than the stored one: " +
      'someone wrote the record since; nothing was written',
  },
  routeNotFound: {
    status: 404,
    meaning:
      'no route matches the path (answered by the `notFound()` middleware mounted after the routers, including an ' +
      '`{id}` that is not a UUID)',
  },
  methodNotAllowed: {
    status: 405,
    meaning:
      'the path is served, but not with this method (answered by `notFound()`, with `Allow` listing the methods ' +
      'that are)',
  },
  forbidden: { status: 403, meaning: '`can(ctx, ability)` returned false' },
  crossOrigin: {
    status: 403,
    meaning:
      'a browser sent a POST, PUT, PATCH or DELETE from another origin that `cors.origins` does not list ' +
      "(`Sec-Fetch-Site` other than `same-origin`, or an `Origin` that is not the request's host): the field names " +
      'the header',
  },
  clientError: { status: 'thrown', meaning: 'a hook threw a 4xx status that is not in the IANA registry, such as 499' },
  databaseUnavailable: {
    status: 503,
    meaning:
      'a JSend `error`, not a fail item: the database could not be reached or dropped the connection (refused, ' +
      'reset, no pool connection within `pool.acquire`, server shutting down, SQLite busy past its busy timeout). ' +
      'With `Retry-After`',
  },
  databaseTimeout: {
    status: 503,
    meaning:
      'a JSend `error`, not a fail item: the request passed `global.timeout_ms`, or the database cancelled the ' +
      'statement for it. With `Retry-After`',
  },
  tooManySubscribers: {
    status: 503,
    meaning:
      'a JSend `error`, not a fail item: a change feed (`GET <uri>/changes`) was asked for while the process ' +
      'already serves `live.max_subscribers` streams. With `Retry-After`',
  },
} as const satisfies Readonly<Record<ErrorCode, ErrorCodeEntry>>);

/**
 * Every `error` code koa-fast-crud itself writes into a fail item, in the table's order. A fail item
 * may also carry a model validator's name (`len`, `is_null`) or, for an http error a hook throws,
 * the camelCase name of its 4xx status (`conflict` for 409).
 * @example ERROR_CODES.includes('recordNotFound') // true
 */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.keys(ERROR_TABLE) as ErrorCode[]);

/**
 * A code whose status is fixed, whatever the configuration.
 * @example const code: FixedStatusCode = 'forbidden';
 */
export type FixedStatusCode = {
  [K in ErrorCode]: (typeof ERROR_TABLE)[K]['status'] extends number ? K : never;
}[ErrorCode];

/**
 * A code whose status the library decides (fixed or the validation status): every code but `clientError`.
 * @example const code: DecidedStatusCode = 'required';
 */
export type DecidedStatusCode = {
  [K in ErrorCode]: (typeof ERROR_TABLE)[K]['status'] extends 'thrown' ? never : K;
}[ErrorCode];

/**
 * The HTTP status of a fail reply carrying `code`: the table's fixed status, or `validationStatus`
 * (`global.validation.http_status`) for the validation codes. A fixed code needs no validation status.
 * @example statusOf('recordNotFound') // 404
 * @example statusOf('columnNotFound', 422) // 422
 */
export function statusOf(code: FixedStatusCode): number;
export function statusOf(code: DecidedStatusCode, validationStatus: number): number;
export function statusOf(code: DecidedStatusCode, validationStatus?: number): number {
  const { status } = ERROR_TABLE[code];
  return status === 'validation' ? validationStatus! : status;
}
