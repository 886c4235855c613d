/**
 * The writable part of a request's body, for create and update: read (by the scope's reader, the Koa
 * layer's), validated by the resource's schema, limited to fillable fields.
 */
import * as E from 'fp-ts/lib/Either.js';
import { bodyProblem, problemItem } from '../core/depth.js';
import { fillableFields, payloadOf } from '../core/record-plan.js';
import { splitRelational } from '../core/relation-writes.js';
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
 * fillable fields are kept, each checked against its attribute's kind (`type`), with the fields that name an
 * association opened for writing (`relations.<name>.write`, checked later by the relational step). The
 * `before…Fill` hook sees the result. `options.onPayload` sees the body as sent, once it is an object (update
 * reads the `version` it compares there).
 * @example const data = await bodyData(scope, 'create'); if (E.isLeft(data)) return data.left;
 */
export async function bodyData(
  scope: ActionScope,
  action: 'create' | 'update',
  options: BodyOptions = {},
): Promise<E.Either<Reply, Record<string, unknown>>> {
  // The client's upload is not the database's time: the deadline waits for the body.
  const { value, form } = await outsideDeadline(() => scope.readBody(scope.ctx, scope.config.global.body_limit));
  return E.mapLeft((items: readonly FailItem[]) => scope.answers.answerFail(items))(
    await writableFields(scope, action, value, form, options),
  );
}

/**
 * What a write does with the associations a body writes: keeps them for the relational step, or refuses them
 * (a batch write, which has no relational step): a 400 `invalidValue` naming each, never a silent drop.
 */
export type Relations = 'keep' | 'refuse';

/** How `bodyData` and `writableFields` read a body. */
export interface BodyOptions {
  /** Keep (default) or refuse the associations the body writes. */
  readonly relations?: Relations;
  /** Sees the body as sent, once it is an object. */
  readonly onPayload?: (payload: Readonly<Record<string, unknown>>) => void;
}

/**
 * The fields to write of one parsed body (or one item of a batch's array), checked as `bodyData` says;
 * Left is the fail items, each naming its field.
 * @example const fields = await writableFields(scope, 'create', { name: 'Kite' }, false);
 */
export async function writableFields(
  scope: ActionScope,
  action: 'create' | 'update',
  value: unknown,
  form: boolean,
  options: BodyOptions = {},
): Promise<E.Either<readonly FailItem[], Record<string, unknown>>> {
  const problem = bodyProblem(value, scope.config.global.max_depth);
  if (problem !== undefined) return E.left([problemItem(problem, scope.config.global.max_depth)]);
  const payload = payloadOf(value);
  if (E.isLeft(payload)) return E.left([payload.left]);
  options.onPayload?.(payload.right);
  const schema = scope.resource.validate[action];
  let fields = payload.right;
  if (schema !== undefined) {
    const result = await schema['~standard'].validate(payload.right);
    if (result.issues !== undefined) return E.left(issueFailItems(result.issues));
    const output = payloadOf(result.value);
    // A schema that turns the body into something other than an object of fields writes nothing.
    fields = E.isRight(output) ? output.right : {};
  }
  const data = fillableFields(scope.model, fields, scope.resource.policy, form);
  // The associations opened for writing stay, as sent: hooks see them, the relational step checks and writes them.
  const { relational } = splitRelational(fields, scope.resource.policy.relations);
  const names = Object.keys(relational);
  if (options.relations === 'refuse' && names.length > 0)
    return E.left(
      names.map((field) => ({
        field,
        error: 'invalidValue' as const,
        message: 'A batch write does not write associations: send this one in a single create or update',
      })),
    );
  return E.isLeft(data) ? data : E.right({ ...data.right, ...relational });
}
