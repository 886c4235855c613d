/**
 * ETags and preconditions in the actions: a record's tag as the client sees it, `If-None-Match` → 304 on reads,
 * `If-Match` → 412 and a stale `version` → 409 on writes (inside the write's transaction), 428 when a write must be
 * conditional. `recordPrecondition` is the per-record check a batch calls for each of its records.
 */
import type { Model } from 'sequelize';
import { statusOf } from '../core/error-codes.js';
import { findFieldNamed } from '../core/find-field.js';
import {
  formatTag,
  parseTagList,
  readPrecondition,
  versionTag,
  writePrecondition,
  type ConditionalHeaders,
  type EntityTag,
} from '../core/etag.js';
import { fail } from '../core/jsend.js';
import type { ActionScope } from '../resource/scope.js';
import { forgetWithheldSince, withheldValues } from '../resource/withheld-notes.js';
import type { ErrorCode, FailItem, Reply } from '../types.js';
import { bodyTag, rowTag, versionAttributeOf, withTag } from './record-tag.js';
import { serialize } from './records.js';
import { rowsStage } from './stages.js';

/**
 * The request's `If-Match` and `If-None-Match` headers.
 * @example conditionalHeaders(scope) // { ifMatch: '"v3"', ifNoneMatch: undefined }
 */
export function conditionalHeaders(scope: ActionScope): ConditionalHeaders {
  const headers = scope.ctx.headers ?? {};
  return { ifMatch: headerValue(headers['if-match']), ifNoneMatch: headerValue(headers['if-none-match']) };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A read's reply under the request's `If-None-Match` (and `If-Match`): a 304 with the reply's `ETag` and no body when
 * the client holds it already, a 412 when `If-Match` names another one, else the reply as it is. Only a success reply
 * with an `ETag` is ever replaced, so a 403 or a 404 stays what it is.
 * @example return conditionalRead(scope, await recordReply(scope, 'read', record, scope.config.read));
 */
export function conditionalRead(scope: ActionScope, reply: Reply): Reply {
  const etag = reply.headers?.['ETag'];
  if (etag === undefined || reply.status >= 300) return reply;
  const headers = conditionalHeaders(scope);
  if (headers.ifMatch === undefined && headers.ifNoneMatch === undefined) return reply;
  const [current] = parseTagList(etag) as readonly EntityTag[];
  const outcome = readPrecondition(headers, current!);
  if (outcome === 'proceed') return reply;
  if (outcome === 'failed') return preconditionFailed('If-Match', etag);
  return notModified(etag);
}

/**
 * A search reply with a weak `ETag` of its body, under the request's `If-None-Match`. The outcome is decided from the
 * tag as a value, before any reply is made of it: a 304 or a 412 builds no tagged copy of the page and keeps none of
 * its JSON text; only a 200 carries that text on to the Koa layer. The 200 and the 304 take their tag from one
 * `bodyTag` of one body.
 * @example return conditionalSearch(scope, reply);
 */
export function conditionalSearch(scope: ActionScope, reply: Reply): Reply {
  if (reply.status >= 300 || reply.body.status !== 'success') return reply;
  const { tag, json } = bodyTag(reply);
  const headers = conditionalHeaders(scope);
  const outcome =
    headers.ifMatch === undefined && headers.ifNoneMatch === undefined ? 'proceed' : readPrecondition(headers, tag);
  if (outcome === 'proceed') return withTag(reply, tag, json);
  return outcome === 'failed' ? preconditionFailed('If-Match', formatTag(tag)) : notModified(formatTag(tag));
}

/** The 304 of a conditional read: the tag, and no body (the Koa layer sends none and builds no envelope for it). */
function notModified(etag: string): Reply {
  return { status: 304, headers: { ETag: etag }, body: { status: 'success', data: null, meta: {} } };
}

/** The writes a configuration may require `If-Match` for, each with the key that says so. */
export type ConditionalWrite = 'update' | 'delete' | 'softDelete' | 'restore';

/**
 * The 428 `preconditionRequired` reply when the write's `require_if_match` is on (`update`, `delete` for delete and
 * soft delete, `restore`) and the request sends no `If-Match`; undefined otherwise.
 * @example const required = ifMatchRequired(scope, 'update'); if (required) return required;
 */
export function ifMatchRequired(scope: ActionScope, write: ConditionalWrite): Reply | undefined {
  const key = write === 'softDelete' ? 'delete' : write;
  if (!scope.config[key].require_if_match || conditionalHeaders(scope).ifMatch !== undefined) return undefined;
  const message = `This ${write} needs an If-Match header (${key}.require_if_match): send the ETag of the record`;
  return fail(statusOf('preconditionRequired'), [{ field: 'If-Match', error: 'preconditionRequired', message }]);
}

/**
 * What a write was told about the record it changes: the request's conditional headers, and the `version` its body
 * sent (`versionSent: false` when the body has none). A batch passes one per record.
 * @example const expected: RecordExpectation = { headers: { ifMatch: '"v3"' }, versionSent: true, version: 3 };
 */
export interface RecordExpectation {
  readonly headers: ConditionalHeaders;
  readonly versionSent: boolean;
  readonly version?: unknown;
}

/**
 * The `version` a body sent, for `RecordExpectation`: `versionSent` false when the model has no version attribute or
 * the body does not name it.
 * @example sentVersion(Member, { name: 'Ann', version: 3 }) // { versionSent: true, version: 3 }
 */
export function sentVersion(
  model: Parameters<typeof versionAttributeOf>[0],
  payload: Readonly<Record<string, unknown>>,
): { readonly versionSent: boolean; readonly version?: unknown } {
  const version = versionAttributeOf(model);
  return version !== undefined && Object.hasOwn(payload, version)
    ? { versionSent: true, version: payload[version] }
    : { versionSent: false };
}

/**
 * The fields to write without the version attribute: a body's version is compared, never written.
 * @example withoutVersion(Member, { name: 'Ann', version: 3 }) // { name: 'Ann' }
 */
export function withoutVersion(
  model: Parameters<typeof versionAttributeOf>[0],
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const version = versionAttributeOf(model);
  if (version === undefined || !Object.hasOwn(fields, version)) return fields;
  const { [version]: _dropped, ...rest } = fields;
  return rest;
}

/**
 * The check of one locked record against what the client expected of it, inside the write's transaction and after
 * its `FOR UPDATE` lookup: a 412 `preconditionFailed` item when `If-Match` (or `If-None-Match`) fails on the tag a
 * read of the record answers now, then a 409 `staleVersion` item naming the version attribute when the body's
 * `version` differs from the stored one; undefined when the write may go on. Per record, so a batch calls it for each.
 * @example const item = await recordPrecondition(scope, record, expected); if (item) return refusedReply(item);
 */
export async function recordPrecondition(
  scope: ActionScope,
  record: Model,
  expected: RecordExpectation,
): Promise<FailItem<ErrorCode> | undefined> {
  const { ifMatch, ifNoneMatch } = expected.headers;
  if (ifMatch !== undefined || ifNoneMatch !== undefined) {
    const current = await currentTag(scope, record, expected.headers);
    if (writePrecondition(expected.headers, current) === 'failed') {
      const header = ifMatch === undefined ? 'If-None-Match' : 'If-Match';
      return preconditionItem(header, formatTag(current));
    }
  }
  const version = versionAttributeOf(scope.model);
  if (version !== undefined && expected.versionSent && !sameVersion(expected.version, record.get(version))) {
    const message = `The record changed since version ${String(expected.version)} was read: read it again`;
    return { field: version, error: 'staleVersion', message, value: expected.version };
  }
  return undefined;
}

/**
 * True when a write was told something to check: an `If-Match` or `If-None-Match` header, or a `version` in its body.
 * @example if (hasPrecondition(expected)) records = await fullRecords();
 */
export function hasPrecondition(expected: RecordExpectation): boolean {
  const { ifMatch, ifNoneMatch } = expected.headers;
  return ifMatch !== undefined || ifNoneMatch !== undefined || expected.versionSent;
}

/**
 * The check of every locked record of a batch against the one expectation the request states (`If-Match` lists the
 * ETags any of which a record may have; the body's `version` is every record's), before anything is written: the fail
 * reply listing every refused record, each item's message naming the record by its find field (412 when any record
 * fails a header, else 409 `staleVersion`); undefined when every record may be written or nothing was expected.
 * @example const refused = await batchPrecondition(scope, records, expected); if (refused) return refused;
 */
export async function batchPrecondition(
  scope: ActionScope,
  records: readonly Model[],
  expected: RecordExpectation,
): Promise<Reply | undefined> {
  if (!hasPrecondition(expected)) return undefined;
  const name = findFieldNamed(scope.model, scope.config.global.find_field)?.attribute;
  const items: FailItem<ErrorCode>[] = [];
  for (const record of records) {
    const item = await recordPrecondition(scope, record, expected);
    const which = name === undefined ? 'A record' : `Record ${String(record.get(name))}`;
    if (item !== undefined) items.push({ ...item, message: `${which}: ${item.message}` });
  }
  if (items.length === 0) return undefined;
  const failed = items.some((item) => item.error === 'preconditionFailed');
  return fail(statusOf(failed ? 'preconditionFailed' : 'staleVersion'), items);
}

/**
 * `recordPrecondition`'s item as the reply of a single-record write, at its code's status.
 * @example if (refused) return refusedReply(refused);
 */
export function refusedReply(item: FailItem<ErrorCode>): Reply {
  return fail(statusOf(item.error === 'staleVersion' ? 'staleVersion' : 'preconditionFailed'), [item]);
}

/**
 * The tag a read of the record would answer now: serialized by read's method, through the plugins' `rows` stage.
 * `If-Match: *` needs none, so nothing is serialized for it. A copy is serialized, so the record the write goes on
 * with keeps every value (serializing withholds too-deep JSON), and what it withheld is not noted for the reply.
 */
async function currentTag(scope: ActionScope, record: Model, headers: ConditionalHeaders): Promise<EntityTag> {
  const star = headers.ifMatch?.trim() === '*' && headers.ifNoneMatch === undefined;
  if (star) return { weak: false, opaque: '' };
  const noted = withheldValues(scope.ctx)?.length ?? 0;
  const copy = scope.model.build({ ...(record.dataValues as object) }, { raw: true, isNewRecord: false });
  const serialized = serialize(scope, copy, scope.config.read.method);
  forgetWithheldSince(scope.ctx, noted);
  const [row] = await rowsStage(scope, 'read', [serialized]);
  return rowTag(scope, row ?? {});
}

/** Versions compare as integers, whether the body sent `3` or `"3"` (a form). */
function sameVersion(sent: unknown, stored: unknown): boolean {
  const tag = versionTag(sent);
  return tag !== undefined && tag.opaque === versionTag(stored)?.opaque;
}

function preconditionItem(header: string, current: string): FailItem<ErrorCode> {
  const message = `The record changed since it was read (its ETag is now ${current}): read it again`;
  return { field: header, error: 'preconditionFailed', message };
}

function preconditionFailed(header: string, current: string): Reply {
  return fail(statusOf('preconditionFailed'), [preconditionItem(header, current)]);
}
