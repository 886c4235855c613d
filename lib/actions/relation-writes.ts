/**
 * Relational writes in a create's or update's transaction: the links of a belongs-to-many set, added or removed, and
 * the nested rows of a has-many created, after the related rows are checked against the request's row scopes.
 */
import * as E from 'fp-ts/lib/Either.js';
import { Op, type Model, type ModelStatic, type Transaction, type WhereOptions } from 'sequelize';
import { scopeWhere } from '../compile/row-scope.js';
import { notDeletedWhere } from '../compile/soft-delete.js';
import { statusOf } from '../core/error-codes.js';
import { findFieldNamed } from '../core/find-field.js';
import type { RelationModel } from '../core/relation-paths.js';
import { planRelationWrites, plannedIds, splitRelational, type RelationWritePlan } from '../core/relation-writes.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';
import type { FailItem, Reply, RowScopes } from '../types.js';
import { checkReferences } from './references.js';

/** A relational write the client got wrong, thrown inside the transaction (so it rolls back), with its fail reply. */
export class RelationalFail extends Error {
  /** The JSend fail to answer. */
  readonly reply: Reply;
  constructor(reply: Reply) {
    super('relational write refused');
    this.reply = reply;
  }
}

/** The association members a relational write calls: Sequelize's public ones. */
interface WritableAssociation {
  readonly associationType: string;
  readonly target: ModelStatic<Model>;
  readonly foreignKey: string;
  readonly sourceKey?: string;
  readonly throughModel?: ModelStatic<Model>;
  readonly accessors: Readonly<Record<'get' | 'set' | 'add' | 'remove', string>>;
}

/** A relational step: the model's own fields to write, and the writes to run once the record exists. */
export interface RelationalStep {
  readonly data: Record<string, unknown>;
  readonly write: (record: Model) => Promise<void>;
}

/**
 * Takes the fields that name an association opened for writing out of a create's or update's data (after its hooks
 * and plugins), checks them and every related row they name (it must exist, be reachable by the request's row scopes
 * and not be soft-deleted) and gives the rest of the data and the writes to run on the record. Throws
 * `RelationalFail` inside the transaction: a shape problem at the validation status, an id that finds no row as a 409
 * `foreignKey` naming `tags.<index>`.
 * @example const step = await relationalStep(scope, 'create', data, transaction); … await step.write(created);
 */
export async function relationalStep(
  scope: ActionScope,
  action: 'create' | 'update',
  data: Record<string, unknown>,
  transaction: Transaction,
): Promise<RelationalStep> {
  const { relations } = scope.resource.policy;
  const { own, relational } = splitRelational(data, relations);
  if (Object.keys(relational).length === 0) return { data: own, write: async () => {} };
  const model = scope.model as unknown as RelationModel;
  const findField = scope.config.global.find_field;
  const plans = planRelationWrites(model, relational, relations, action, findField);
  if (E.isLeft(plans)) throw new RelationalFail(scope.answers.answerFail(plans.left));
  const scopes = await rowScopesOf(scope, action);
  const deletedAtField = scope.config.soft_delete.deleted_at_field;
  const reach = (name: string): WhereOptions[] => {
    const target = associationOf(scope, name).target;
    const wheres: (WhereOptions | undefined)[] = [scopeWhere(target, scopes), notDeletedWhere(target, deletedAtField)];
    return wheres.filter((where): where is WhereOptions => where !== undefined);
  };
  const rows = new Map<string, Model>();
  const missing: FailItem[] = [];
  for (const [name, ids] of groupBy(plannedIds(plans.right))) {
    const target = associationOf(scope, name).target;
    const key = findFieldNamed(target, findField)!.attribute;
    const values = [...new Set(ids.map((id) => id.value))];
    const found = await target.findAll({ where: { [Op.and]: [{ [key]: values }, ...reach(name)] }, transaction });
    for (const row of found) rows.set(`${name}\u0000${String(row.get(key))}`, row);
    for (const id of ids)
      if (!rows.has(`${name}\u0000${String(id.value)}`))
        missing.push({
          field: id.field,
          error: 'foreignKey',
          value: id.value,
          message: `No ${target.name} with this ${key} was found`,
        });
  }
  if (missing.length > 0) throw new RelationalFail(scope.answers.answerFail(missing, statusOf('foreignKey')));
  const rowsOf = (name: string, ids: readonly unknown[]) => [
    ...new Set(ids.map((id) => rows.get(`${name}\u0000${String(id)}`)!)),
  ];
  return {
    data: own,
    write: async (record) => {
      for (const plan of plans.right) await runPlan(scope, record, plan, rowsOf, reach(plan.name), scopes, transaction);
    },
  };
}

/**
 * The reply of a relational write the client got wrong; anything else is thrown on.
 * @example try { … } catch (thrown) { return relationalFailReply(thrown); }
 */
export function relationalFailReply(thrown: unknown): Reply {
  if (thrown instanceof RelationalFail) return thrown.reply;
  throw thrown;
}

async function runPlan(
  scope: ActionScope,
  record: Model,
  plan: RelationWritePlan,
  rowsOf: (name: string, ids: readonly unknown[]) => Model[],
  reach: readonly WhereOptions[],
  scopes: RowScopes,
  transaction: Transaction,
): Promise<void> {
  const association = associationOf(scope, plan.name);
  const call = (accessor: 'get' | 'set' | 'add' | 'remove', ...args: unknown[]) =>
    (record as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[association.accessors[accessor]]!(
      ...args,
    );
  const through = association.throughModel === undefined ? {} : scopedValues(association.throughModel, scopes);
  if (plan.kind === 'nested') {
    await createNested(scope, record, plan, association, scopes, transaction);
    return;
  }
  if (plan.kind === 'change') {
    if (plan.add.length > 0) await call('add', rowsOf(plan.name, plan.add), { transaction, through });
    if (plan.remove.length > 0) await call('remove', rowsOf(plan.name, plan.remove), { transaction });
    return;
  }
  // Setting the links replaces only those to rows the request reaches: another tenant's links or a soft-deleted
  // row's are not the client's to drop.
  const wanted = rowsOf(plan.name, plan.ids);
  const key = association.target.primaryKeyAttribute;
  const where = reach.length === 0 ? {} : { where: { [Op.and]: reach } };
  const current = (await call('get', { ...where, transaction, joinTableAttributes: [] })) as Model[];
  const keep = new Set(wanted.map((row) => String(row.get(key))));
  const have = new Set(current.map((row) => String(row.get(key))));
  const stale = current.filter((row) => !keep.has(String(row.get(key))));
  const fresh = wanted.filter((row) => !have.has(String(row.get(key))));
  if (stale.length > 0) await call('remove', stale, { transaction });
  if (fresh.length > 0) await call('add', fresh, { transaction, through });
}

/**
 * Creates a has-many's nested rows, each with the parent's key and the values of the child model's single-valued row
 * scopes (a tenant's id), checked by the child model's validators and foreign-key scopes; a failure names
 * `lines.<index>.<field>`.
 */
async function createNested(
  scope: ActionScope,
  record: Model,
  plan: Extract<RelationWritePlan, { kind: 'nested' }>,
  association: WritableAssociation,
  scopes: RowScopes,
  transaction: Transaction,
): Promise<void> {
  const target = association.target;
  const parentKey = record.get(association.sourceKey ?? scope.model.primaryKeyAttribute);
  const fixed = { ...scopedValues(target, scopes), [association.foreignKey]: parentKey };
  for (const [index, row] of plan.rows.entries()) {
    const prefix = `${plan.name}.${index}`;
    const values = { ...row, ...fixed };
    try {
      await checkReferences(target, row, scopes, transaction);
      await target.create(values, { transaction });
    } catch (thrown) {
      throw prefixed(scope, thrown, prefix);
    }
  }
}

/** A nested row's validation or foreign-key refusal, its fields named under the row's prefix; anything else as is. */
function prefixed(scope: ActionScope, thrown: unknown, prefix: string): unknown {
  const shape = thrown as {
    name?: string;
    status?: number;
    field?: string | null;
    error?: string;
    message?: string;
    errors?: readonly {
      path?: string | null;
      validatorKey?: string | null;
      type?: string | null;
      value?: unknown;
      message: string;
    }[];
  };
  if (shape.name === 'SequelizeValidationError') {
    const items = (shape.errors ?? []).map((failure) => ({
      field: failure.path ? `${prefix}.${failure.path}` : prefix,
      error: failure.validatorKey ?? failure.type ?? 'invalid',
      value: failure.value,
      message: failure.message,
    }));
    return new RelationalFail(scope.answers.answerFail(items));
  }
  if (shape.error === 'foreignKey' && typeof shape.field === 'string')
    return new RelationalFail(
      scope.answers.answerFail(
        [{ field: `${prefix}.${shape.field}`, error: 'foreignKey', message: shape.message ?? '' }],
        statusOf('foreignKey'),
      ),
    );
  return thrown;
}

/** The values a new row of `model` must hold to stay in the request's row scopes: each scope with one value. */
function scopedValues(model: ModelStatic<Model>, scopes: RowScopes): Record<string, unknown> {
  return Object.fromEntries(
    (scopes.get(model) ?? []).flatMap((rowScope) =>
      rowScope.values.length === 1 ? [[rowScope.attribute, rowScope.values[0]]] : [],
    ),
  );
}

function associationOf(scope: ActionScope, name: string): WritableAssociation {
  return scope.model.associations[name] as unknown as WritableAssociation;
}

function groupBy<T extends { readonly name: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(item.name, [...(groups.get(item.name) ?? []), item]);
  return groups;
}
