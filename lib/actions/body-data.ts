/** The writable part of a request's JSON body, for create and update. */
import * as E from 'fp-ts/lib/Either.js';
import type { BaseController } from '../controller/base-controller.js';
import { fillableData } from '../core/record-plan.js';
import { readJsonBody } from '../koa/body.js';
import type { Reply } from '../types.js';

/**
 * Reads the body and keeps its fillable, well-typed fields; Left is the fail reply to send.
 * @example const data = await bodyData(this); if (E.isLeft(data)) return data.left;
 */
export async function bodyData(controller: BaseController): Promise<E.Either<Reply, Record<string, unknown>>> {
  const body = await readJsonBody(controller.ctx, controller.config.global.body_limit);
  const data = fillableData(controller.modelClassName(), body, controller.policy());
  return E.mapLeft(controller.answerFail.bind(controller))(data);
}
