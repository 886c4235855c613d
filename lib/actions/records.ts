/** Shell helpers the single-record actions share: find `{id}`, serialize, run a write in one transaction. */
import type { Context } from 'koa';
import type { FindOptions, Model, Transaction } from 'sequelize';
import { compileLookup } from '../compile/lookup.js';
import type { BaseController } from '../controller/base-controller.js';
import { findColumn } from '../core/columns.js';
import { lookupFor, visibleFields, type Scope } from '../core/record-plan.js';
import type { ActionConfig } from '../types.js';

/** What a hook may return: nothing (keep the value it was given), or a replacement, maybe later. */
export type HookResult<T> = T | void | Promise<T | void>;

/**
 * Finds the record `ctx.params.id` names, after the action's modify-query hook; undefined when none.
 * @example const record = await findRecord(this, this.config.read, 'active', (q) => this.modifyReadQuery(q));
 */
export async function findRecord(
  controller: BaseController,
  action: Pick<ActionConfig, 'find_field'>,
  scope: Scope,
  modify: (query: FindOptions) => HookResult<FindOptions>,
): Promise<Model | undefined> {
  const model = controller.modelClassName();
  const id = (controller.ctx as Context & { params?: Record<string, string> }).params?.['id'] ?? '';
  const findField = action.find_field ?? controller.config.global.find_field;
  const lookup = lookupFor(model, findField, id, scope, deletedAtOf(controller));
  if (lookup === undefined) return undefined;
  const planned = compileLookup(lookup, controller.transaction);
  const query = (await modify(planned)) ?? planned;
  return (await model.findOne(query)) ?? undefined;
}

/** The deleted-at attribute of the controller's model, by `soft_delete.deleted_at_field`; undefined when it has none. */
export function deletedAtOf(controller: BaseController): string | undefined {
  return findColumn(controller.modelClassName(), controller.config.soft_delete.deleted_at_field)?.attribute;
}

/**
 * A record as a reply shows it: the model method the action's config names, minus hidden fields.
 * @example serialize(this, record, this.config.read.method)
 */
export function serialize(controller: BaseController, record: Model, method: string): Record<string, unknown> {
  const serializer = (record as unknown as Record<string, unknown>)[method];
  if (typeof serializer !== 'function') throw new TypeError(`The model has no method ${method} to serialize a record with`);
  return visibleFields(controller.modelClassName(), serializer.call(record) as Record<string, unknown>, controller.policy());
}

/**
 * Runs a write in one managed transaction, exposed to hooks as `controller.transaction`;
 * anything thrown inside rolls the whole write back.
 * @example return inTransaction(this, async (transaction) => { … })
 */
export async function inTransaction<T>(controller: BaseController, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  return controller.modelClassName().sequelize!.transaction(async (transaction) => {
    controller.transaction = transaction;
    try {
      return await work(transaction);
    } finally {
      controller.transaction = undefined;
    }
  });
}
