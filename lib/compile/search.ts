/** Compiles a checked SearchPlan into Sequelize find options, per dialect: where, order, page. */
import { Op, type FindOptions, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import type { RelationPolicy, RowScopes, SearchPlan } from '../types.js';
import { compileCondition, contains } from './condition.js';
import { relationIncludes, relationOrder, relationWhere } from './relations.js';

/** What compiling relation paths needs: the soft-delete column name to leave related rows out by, and the relation policy of includes. */
export interface RelationSettings {
  /** `soft_delete.deleted_at_field`: related rows with it set (or of a paranoid model) never match, sort nor show. */
  readonly deletedAtField: string;
  readonly policies: Readonly<Record<string, RelationPolicy>>;
  /** The request's row scopes: a related row outside them never matches nor sorts (its includes are scoped with the query). */
  readonly scopes?: RowScopes | undefined;
}

/**
 * Find options for a plan: its conditions and term search ANDed, soft-deleted rows left out
 * unless a condition is on the deleted-at attribute, its order, its page, and its includes.
 * Conditions and sorts through associations compile to subqueries, so rows are never repeated.
 * @example compileSearch(Product, plan, 'deletedAt') // { where: { [Op.and]: [...] }, order: [['price', 'DESC'], ['id', 'ASC']], limit: 40, offset: 0 }
 */
export function compileSearch(
  model: ModelStatic<Model>,
  plan: SearchPlan,
  deletedAt: string | undefined,
  relations: RelationSettings = { deletedAtField: 'deleted_at', policies: {} },
): FindOptions {
  const clauses: WhereOptions[] = plan.conditions.map((condition) =>
    condition.relation === undefined ? compileCondition(model, condition) : relationWhere(model, condition, relations.deletedAtField, relations.scopes),
  );
  if (plan.term) clauses.push({ [Op.or]: plan.term.columns.map(({ column, isText }) => contains(model, column, plan.term!.text, !isText)) });
  if (deletedAt !== undefined && !plan.trashed) clauses.push({ [deletedAt]: null });
  const include = plan.include === undefined ? [] : relationIncludes(model, plan.include, relations.policies, relations.deletedAtField);
  return {
    where: { [Op.and]: clauses },
    order: plan.order.map(([attribute, direction]) =>
      attribute.includes('.') ? relationOrder(model, attribute, direction, relations.deletedAtField, relations.scopes) : [attribute, nullsFirst(model, attribute, direction)],
    ),
    ...(plan.trashed && { paranoid: false }),
    ...(plan.page && { limit: plan.page.perPage, offset: (plan.page.page - 1) * plan.page.perPage }),
    ...(include.length > 0 && { include }),
  };
}

/**
 * NULL sorts as the smallest value on every dialect, as SQLite and MariaDB do; PostgreSQL is told so,
 * for columns that can hold NULL only: on a NOT NULL column the clause changes nothing but keeps
 * PostgreSQL from reading its index in order (a primary-key tiebreak would sort the whole table).
 */
function nullsFirst(model: ModelStatic<Model>, attribute: string, direction: 'ASC' | 'DESC'): string {
  const definition = model.getAttributes()[attribute];
  const notNull = definition?.primaryKey === true || definition?.allowNull === false;
  if (model.sequelize!.getDialect() !== 'postgres' || notNull) return direction;
  return direction === 'ASC' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
}

