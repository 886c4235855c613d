/**
 * The one mapping from a thrown value to a reply: client errors become fail, database outages and timeouts a 503, the
 * rest a bare 500.
 */
import { camelCase } from 'change-case';
import type { ErrorCode, FailItem, Reply } from '../types.js';
import { statusOf, type FixedStatusCode } from './error-codes.js';
import { HttpStatus } from './http-status.js';
import { classifyDatabaseError } from './db-failure.js';
import { foreignKeyColumns, visibleFields, type ErrorFields } from './constraint-fields.js';
import { error, fail, unavailable } from './jsend.js';
import { isIssueList, issueFailItems } from './standard-schema.js';

const NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(HttpStatus).map(([name, code]) => [code, camelCase(name)] as const),
);

/**
 * An error meant for the client, as http-errors and `ctx.throw` make them, optionally naming a field and an error code.
 */
export interface ClientError extends Error {
  readonly status: number;
  readonly expose: true;
  readonly field?: string | null;
  readonly error?: ErrorCode | (string & {});
}

/**
 * Makes an error the one error exit answers as a JSend fail.
 * @example throw clientError(413, 'contentTooLarge', 'The body is larger than 1048576 bytes', 'body')
 */
export function clientError(
  status: number,
  code: ErrorCode | (string & {}),
  message: string,
  field: string | null = null,
): ClientError {
  return Object.assign(new Error(message), { status, expose: true as const, field, error: code });
}

/**
 * `clientError` for one of the library's own codes of fixed status, which ERROR_TABLE gives.
 * @example throw clientErrorOf('unsupportedMediaType', 'The body must be JSON', 'body') // status 415
 */
export function clientErrorOf(code: FixedStatusCode, message: string, field: string | null = null): ClientError {
  return clientError(statusOf(code), code, message, field);
}

/**
 * The reply for anything an action or hook throws:
 * - an HTTP error meant for the client (`ctx.throw(409, 'msg')`, http-errors, `clientError`) → fail with its status;
 * - a Sequelize validation error → fail at the validation status, one item per failure;
 * - a Standard Schema validation error (zod's `ZodError`, valibot's `ValiError`: an Error whose
 *   `issues` is a non-empty list of `{ message, path? }`, checked strictly) → fail at the
 *   validation status, one `schema` item per issue naming its path, and nothing else of the error;
 * - a unique or foreign-key violation → 409 fail naming the fields: with `fields` (the route's
 *   resource, see `ErrorFields`) each column as its attribute, and only when the field policy shows
 *   them all, else `field: null` and a message that names no column (a hidden unique value is not
 *   confirmed to exist). A foreign key's column comes from the driver (MariaDB's constraint,
 *   PostgreSQL's detail); a row still referenced from another table names none;
 * - a database "data exception" (a value out of range for its column) or a CHECK constraint's refusal
 *   (naming the column of a MariaDB column check, such as a JSON column's) → fail at the validation status;
 * - a connection-class database failure (refused, reset, pool acquire timeout, shutdown, SQLite
 *   busy) or a passed deadline (see `classifyDatabaseError`) → a 503 JSend error with the code
 *   `databaseUnavailable` or `databaseTimeout` and `Retry-After`, carrying nothing of the fault;
 * - anything else → a 500 JSend error that carries nothing of the fault.
 *
 * Every status but a thrown error's comes from ERROR_TABLE.
 * @example replyForError(Object.assign(new Error('Taken'), { status: 409, expose: true }))
 *   // { status: 409, body: { status: 'fail', data: [{ field: null, error: 'conflict', message: 'Taken' }], meta: {} }
 *   // }
 */
export function replyForError(thrown: unknown, validationStatus = 400, fields?: ErrorFields): Reply {
  if (!(thrown instanceof Error)) return error();
  if (isClientHttpError(thrown)) {
    const field = typeof thrown.field === 'string' ? thrown.field : null;
    const code =
      typeof thrown.error === 'string'
        ? thrown.error
        : (NAMES.get(thrown.status) ?? ('clientError' satisfies ErrorCode));
    return fail(thrown.status, [{ field, error: code, message: thrown.message }]);
  }
  const sequelizeReply = replyForSequelizeError(thrown, validationStatus, fields);
  if (sequelizeReply !== undefined) return sequelizeReply;
  const issues = (thrown as { issues?: unknown }).issues;
  return isIssueList(issues)
    ? fail(statusOf('schema', validationStatus), issueFailItems(issues))
    : databaseReply(thrown);
}

/** A 503 for a database outage or timeout, else the bare 500. */
function databaseReply(thrown: unknown): Reply {
  const failure = classifyDatabaseError(thrown);
  return failure === undefined ? error() : unavailable(failure);
}

interface SequelizeErrorShape extends Error {
  readonly errors?: readonly {
    path?: string | null;
    validatorKey?: string | null;
    type?: string | null;
    value?: unknown;
    message: string;
  }[];
  readonly fields?: readonly string[] | Readonly<Record<string, unknown>> | null;
  readonly original?: {
    readonly code?: unknown;
    readonly sqlState?: unknown;
    readonly errno?: unknown;
    readonly detail?: unknown;
  };
  /** A foreign key's side, as Sequelize's MariaDB and MySQL dialects tell it: `parent` for a row still referenced. */
  readonly reltype?: unknown;
}

function replyForSequelizeError(
  thrown: SequelizeErrorShape,
  validationStatus: number,
  fields: ErrorFields | undefined,
): Reply | undefined {
  switch (thrown.name) {
    case 'SequelizeUniqueConstraintError':
      return fail(statusOf('unique'), uniqueItems(fieldsOf(thrown), fields));
    case 'SequelizeValidationError':
      return fail(validationStatus, (thrown.errors ?? []).map(validationItem));
    case 'SequelizeForeignKeyConstraintError': {
      const named = visibleFields(foreignKeyColumnsOf(thrown), fields)?.[0] ?? null;
      return fail(statusOf('foreignKey'), [item(named, 'foreignKey', 'The change conflicts with related records')]);
    }
    case 'SequelizeDatabaseError':
      if (isDataException(thrown))
        return fail(statusOf('invalidValue', validationStatus), [
          item(null, 'invalidValue', 'A value does not fit its column'),
        ]);
      if (isCheckViolation(thrown)) {
        const column = checkedColumn(thrown);
        return fail(statusOf('invalidValue', validationStatus), [
          item(
            column,
            'invalidValue',
            column === null
              ? "A value breaks one of the table's CHECK constraints"
              : `The ${column} is not a value its column accepts`,
          ),
        ]);
      }
      return undefined;
    default:
      return undefined;
  }
}

function item(field: string | null, error: ErrorCode, message: string): FailItem<ErrorCode> {
  return { field, error, message };
}

/** A model validator's failure: its code is the validator's name (`len`, `is_null`), else `invalid`. */
function validationItem(failure: NonNullable<SequelizeErrorShape['errors']>[number]): FailItem {
  const error = failure.validatorKey ?? failure.type ?? ('invalid' satisfies ErrorCode);
  return { field: failure.path ?? null, error, value: failure.value, message: failure.message };
}

/** One item per field of the constraint when all are shown, else one item naming neither field nor column. */
function uniqueItems(columns: readonly string[], fields: ErrorFields | undefined): FailItem<ErrorCode>[] {
  const named = columns.length === 0 ? undefined : visibleFields(columns, fields);
  if (named === undefined) return [item(null, 'unique', 'The change conflicts with a unique constraint')];
  return named.map((field) => item(field, 'unique', `The ${field} is already taken`));
}

/**
 * The child columns of a broken foreign key: as Sequelize read them (MariaDB), else from PostgreSQL's detail; none for
 * a row still referenced.
 */
function foreignKeyColumnsOf(thrown: SequelizeErrorShape): readonly string[] {
  if (thrown.reltype === 'parent') return [];
  const reported = fieldsOf(thrown);
  return reported.length > 0 ? reported : foreignKeyColumns(thrown.original?.detail);
}

function fieldsOf(thrown: SequelizeErrorShape): string[] {
  const fromErrors = (thrown.errors ?? []).flatMap((e) => (e.path ? [e.path] : []));
  if (fromErrors.length > 0) return fromErrors;
  const fields = thrown.fields;
  // Array.isArray narrows a readonly array to any[]: say what it holds.
  return Array.isArray(fields) ? [...(fields as readonly string[])] : Object.keys(fields ?? {});
}

/** SQLSTATE class 22 (PostgreSQL's `code`, MariaDB's `sqlState`): the client's value did not fit. */
function isDataException(thrown: SequelizeErrorShape): boolean {
  const state = thrown.original?.sqlState ?? thrown.original?.code;
  return typeof state === 'string' && state.startsWith('22');
}

/**
 * A CHECK constraint refused the row: PostgreSQL's SQLSTATE 23514, MariaDB's error 4025 (also its JSON columns'
 * `json_valid` check, which refuses values over 32 levels deep).
 */
function isCheckViolation(thrown: SequelizeErrorShape): boolean {
  return thrown.original?.code === '23514' || thrown.original?.errno === 4025;
}

/**
 * The column of a MariaDB column-level CHECK (named `table.column`), else null: a table-level constraint names no
 * field.
 */
function checkedColumn(thrown: SequelizeErrorShape): string | null {
  const name = /CONSTRAINT `([^`]+)` failed/.exec(thrown.message)?.[1];
  const dot = name?.lastIndexOf('.') ?? -1;
  return dot > 0 ? name!.slice(dot + 1) : null;
}

function isClientHttpError(thrown: Error): thrown is ClientError {
  const { status, expose } = thrown as Partial<ClientError>;
  return expose === true && typeof status === 'number' && status >= 400 && status < 500;
}
