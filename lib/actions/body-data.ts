/** The writable part of a request's JSON body, for create and update. */
import * as E from 'fp-ts/lib/Either.js';
import { fillableData } from '../core/record-plan.js';
import { readJsonBody } from '../koa/body.js';
import type { ActionScope } from '../resource/scope.js';
import type { FailItem, Reply } from '../types.js';

/**
 * Reads the body and keeps its fillable, well-typed fields; Left is the fail reply to send.
 * @example const data = await bodyData(scope); if (E.isLeft(data)) return data.left;
 */
export async function bodyData(scope: ActionScope): Promise<E.Either<Reply, Record<string, unknown>>> {
  const body = await readJsonBody(scope.ctx, scope.config.global.body_limit);
  const data = fillableData(scope.model, body, scope.resource.policy);
  return E.mapLeft((items: readonly FailItem[]) => scope.answers.answerFail(items))(data);
}
