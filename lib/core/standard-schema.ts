/**
 * Standard Schema (https://standardschema.dev), version 1: the interface zod, valibot, arktype and
 * others implement, so a resource validates a body with any of them. The type is the one the
 * `@standard-schema/spec` package publishes (types only; nothing of it runs).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { FailItem } from '../types.js';

export type { StandardSchemaV1 };

/**
 * True for a Standard Schema of version 1 (a `~standard` object with version 1 and a `validate` function).
 * @example isStandardSchema(z.string()) // true
 * @example isStandardSchema({ parse() {} }) // false
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/**
 * The field an issue names: its path's segments joined with `.` (`tags.0.name`); null without a path.
 * @example issueField({ message: 'Too short', path: ['tags', 0, { key: 'name' }] }) // 'tags.0.name'
 */
export function issueField(issue: StandardSchemaV1.Issue): string | null {
  if (issue.path === undefined || issue.path.length === 0) return null;
  return issue.path
    .map((segment) => keyText(typeof segment === 'object' && segment !== null ? segment.key : segment))
    .join('.');
}

/**
 * The fail items of a schema's issues: one per issue, code `schema`, the field its path, the issue's message.
 * @example issueFailItems([{ message: 'Required', path: ['name'] }])
 *   // [{ field: 'name', error: 'schema', message: 'Required' }]
 */
export function issueFailItems(issues: readonly StandardSchemaV1.Issue[]): FailItem<'schema'>[] {
  return issues.map((issue) => ({ field: issueField(issue), error: 'schema', message: issue.message }));
}

/**
 * True for a list of Standard Schema issues, checked strictly: a non-empty array of objects, each
 * with a string `message` and, if any, a `path` of property keys or `{ key }` segments. Errors
 * that carry one (zod's ZodError, valibot's ValiError) are a validation failure, not a fault.
 * @example isIssueList([{ message: 'Required', path: ['name'] }]) // true
 * @example isIssueList([{ msg: 'x' }]) // false
 */
export function isIssueList(value: unknown): value is readonly StandardSchemaV1.Issue[] {
  return Array.isArray(value) && value.length > 0 && value.every(isIssue);
}

function isIssue(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { message, path } = value as { message?: unknown; path?: unknown };
  return typeof message === 'string' && (path === undefined || (Array.isArray(path) && path.every(isPathSegment)));
}

function isPathSegment(segment: unknown): boolean {
  if (isPropertyKey(segment)) return true;
  return typeof segment === 'object' && segment !== null && isPropertyKey((segment as { key?: unknown }).key);
}

function isPropertyKey(value: unknown): value is PropertyKey {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'symbol';
}

function keyText(key: PropertyKey): string {
  return typeof key === 'symbol' ? (key.description ?? '') : String(key);
}
