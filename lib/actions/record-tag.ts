/** The ETag of a record as a reply shows it (its version, or a hash of what the client sees), and of a search body. */
import { hash } from 'node:crypto';
import { formatTag, versionTag, type EntityTag } from '../core/etag.js';
import { jsonText } from '../core/json-text.js';
import { withHeader } from '../core/jsend.js';
import type { ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';

/**
 * The attribute Sequelize's optimistic locking counts writes in (`version: true` → `version`, `version: 'rev'` →
 * `rev`), or undefined when the model has none.
 * @example versionAttributeOf(Member) // 'version'
 */
export function versionAttributeOf(model: { readonly options?: { readonly version?: unknown } }): string | undefined {
  const version = model.options?.version;
  return version === true ? 'version' : typeof version === 'string' && version !== '' ? version : undefined;
}

/**
 * The strong tag of one serialized record, as the reply shows it: from its version attribute when the model has one,
 * the reply shows it and it holds no association; else a SHA-1 of the row's JSON. Only what the client receives goes
 * in, so a hidden value never changes a tag nor can be recovered from it.
 * @example formatTag(rowTag(scope, { id: 1, version: 3 })) // '"v3"'
 */
export function rowTag(scope: ActionScope, row: Readonly<Record<string, unknown>>): EntityTag {
  const version = versionAttributeOf(scope.model);
  if (version !== undefined && Object.hasOwn(row, version) && !holdsAssociation(scope, row)) {
    const tag = versionTag(row[version]);
    if (tag !== undefined) return tag;
  }
  return { weak: false, opaque: digest(jsonText(row)) };
}

/**
 * The weak tag of a search reply's whole body, with the body's JSON text it was made from: equal bodies, equal tags.
 * @example const { tag, json } = bodyTag(reply);
 */
export function bodyTag(reply: Reply): { readonly tag: EntityTag; readonly json: string } {
  const json = jsonText(reply.body);
  return { tag: { weak: true, opaque: digest(json) }, json };
}

/**
 * A reply with `tag` in `ETag`. `json`, the body's JSON text the tag was made from (a search page's), rides along on
 * the reply (`serializedBody`), so the Koa layer sends it instead of serializing the body again.
 * @example const { tag, json } = bodyTag(reply); return withTag(reply, tag, json);
 */
export function withTag(reply: Reply, tag: EntityTag, json?: string): Reply {
  const tagged = withHeader(reply, 'ETag', formatTag(tag));
  if (json !== undefined) Object.defineProperty(tagged, SERIALIZED, { value: { body: reply.body, json } });
  return tagged;
}

const SERIALIZED: unique symbol = Symbol('koa-fast-crud: the JSON text of a reply body');

/**
 * The JSON text `withTag` was handed for this reply's body, if it was handed one and the body is still that object.
 * @example const json = serializedBody(reply); if (json !== undefined) ctx.body = json;
 */
export function serializedBody(reply: Reply): string | undefined {
  const kept = (reply as Reply & { [SERIALIZED]?: { body: unknown; json: string } })[SERIALIZED];
  return kept !== undefined && kept.body === reply.body ? kept.json : undefined;
}

/**
 * SHA-1 in base64url (27 characters): collisions do not matter here, speed does (see the performance page). The
 * one-shot `hash` makes no `Hash` object, which a search page's tag paid for on every request.
 */
function digest(text: string): string {
  return hash('sha1', text, 'base64url');
}

function holdsAssociation(scope: ActionScope, row: Readonly<Record<string, unknown>>): boolean {
  const associations = (scope.model as unknown as { associations?: Record<string, unknown> }).associations ?? {};
  for (const name in associations) if (Object.hasOwn(row, name)) return true;
  return false;
}

/**
 * A record reply with its `ETag`.
 * @example return withRecordTag(scope, reply, row);
 */
export function withRecordTag(scope: ActionScope, reply: Reply, row: Readonly<Record<string, unknown>> | undefined) {
  if (row === undefined || row === null || typeof row !== 'object' || reply.status >= 300) return reply;
  return withTag(reply, rowTag(scope, row));
}
