/**
 * The writable part of a request's body, for create and update: read (by the scope's reader, the Koa
 * layer's), validated by the resource's schema, limited to fillable fields.
 */
import * as E from 'fp-ts/lib/Either.js';
import { bodyProblem, problemItem } from '../core/depth.js';
import { fillableFields, payloadOf } from '../core/record-plan.js';
import { issueFailItems } from '../core/standard-schema.js';
import { outsideDeadline } from '../execute/deadline.js';
import type { ActionScope } from '../resource/scope.js';
import type { FailItem, Reply } from '../types.js';

/**
 * Reads the body (JSON or a form) and gives the fields to write; Left is the fail reply to send.
 * In order: no array or object nested deeper than `global.max_depth` and no NUL character in any
 * string or key (`tooDeep`, `invalidValue`), checked without recursion before anything else reads it; the body must be
 * a non-empty object (`emptyPayload`); the action's validation schema, if
 * any, checks it as sent and its output value replaces it (`schema`, one item per issue); then only
 * fillable fields are kept, each checked against its attribute's kind (`type`). The
 * `before…Fill` hook sees the result. `onPayload` sees the body as sent, once it is an object (update reads the
 * `version` it compares there).
 * @example const data = await bodyData(scope, 'create'); if (E.isLeft(data)) return data.left;
 */
export async function bodyData(
  scope: ActionScope,
  action: 'create' | 'update',
  onPayload?: (payload: Readonly<Record<string, unknown>>) => void,
): Promise<E.Either<Reply, Record<string, unknown>>> {
  // The client's upload is not the database's time: the deadline waits for the body.
  const { value, form } = await outsideDeadline(() => scope.readBody(scope.ctx, scope.config.global.body_limit));
  const fail = (items: readonly FailItem[]) => E.left(scope.answers.answerFail(items));
  const problem = bodyProblem(value, scope.config.global.max_depth);
  if (problem !== undefined) return fail([problemItem(problem, scope.config.global.max_depth)]);
  const payload = payloadOf(value);
  if (E.isLeft(payload)) return fail([payload.left]);
  onPayload?.(payload.right);
  const schema = scope.resource.validate[action];
  let fields = payload.right;
  if (schema !== undefined) {
    const result = await schema['~standard'].validate(payload.right);
    if (result.issues !== undefined) return fail(issueFailItems(result.issues));
    const output = payloadOf(result.value);
    // A schema that turns the body into something other than an object of fields writes nothing.
    fields = E.isRight(output) ? output.right : {};
  }
  const data = fillableFields(scope.model, fields, scope.resource.policy, form);
  return E.isLeft(data) ? fail(data.left) : E.right(data.right);
}
