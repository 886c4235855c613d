/** Compiles a checked SearchPlan into Sequelize find options, per dialect: where, order, page. */
import {
  Op,
  Sequelize,
  type FindOptions,
  type Includeable,
  type IncludeOptions,
  type Model,
  type ModelStatic,
  type OrderItem,
  type WhereOptions,
} from 'sequelize';
import type { FilterNode, RelationPolicy, RowScopes, SearchPlan } from '../types.js';
import { compileCondition, contains } from './condition.js';
import { fullTextWhere } from './full-text.js';
import { relationIncludes, relationOrder, relationWhere } from './relations.js';

/**
 * What compiling relation paths needs: the soft-delete column name to leave related rows out by, and the relation
 * policy of includes.
 */
export interface RelationSettings {
  /** `soft_delete.deleted_at_field`: related rows with it set (or of a paranoid model) never match, sort nor show. */
  readonly deletedAtField: string;
  readonly policies: Readonly<Record<string, RelationPolicy>>;
  /**
   * The request's row scopes: a related row outside them never matches nor sorts (its includes are scoped with the
   * query).
   */
  readonly scopes?: RowScopes | undefined;
}

/**
 * Find options for a plan: its conditions, `$or`/`$and` groups and term search ANDed, soft-deleted rows left out
 * unless a condition is on the deleted-at attribute, its order, its page, and its includes.
 * Conditions and sorts through associations compile to subqueries, so rows are never repeated.
 * @example compileSearch(Product, plan, 'deletedAt')
 *   // { where: { [Op.and]: [...] }, order: [['price', 'DESC'], ['id', 'ASC']], limit: 40, offset: 0 }
 */
export function compileSearch(
  model: ModelStatic<Model>,
  plan: SearchPlan,
  deletedAt: string | undefined,
  relations: RelationSettings = { deletedAtField: 'deleted_at', policies: {} },
): FindOptions {
  const clauses: WhereOptions[] = [...plan.conditions, ...(plan.groups ?? [])].map((node) =>
    compileNode(model, node, relations),
  );
  const { term } = plan;
  if (term?.fullText !== undefined)
    clauses.push(
      fullTextWhere(
        model,
        term.columns.map(({ column }) => column),
        term.fullText,
      ),
    );
  else if (term)
    clauses.push({ [Op.or]: term.columns.map(({ column, isText }) => contains(model, column, term.text, !isText)) });
  if (deletedAt !== undefined && !plan.trashed) clauses.push({ [deletedAt]: null });
  const include =
    plan.include === undefined
      ? []
      : relationIncludes(model, plan.include, relations.policies, relations.deletedAtField);
  const order = plan.order.map(([attribute, direction]): OrderItem =>
    attribute.includes('.')
      ? relationOrder(model, attribute, direction, relations.deletedAtField, relations.scopes)
      : [attribute, nullsFirst(model, attribute, direction)],
  );
  // A page whose includes join many rows is selected in a subquery, and the outer query names the
  // page's columns by attribute: a relation sort's subquery, which names them by column, is then
  // selected once as a value of the page and sorted by its alias in both queries.
  const manyRows = plan.page !== null && include.some((item) => joinsMany(model, item));
  const sorted = manyRows ? plan.order.flatMap(([path], i) => (path.includes('.') ? [i] : [])) : [];
  const aliased = (i: number) => `${SORT_ALIAS}${i}`;
  return {
    where: { [Op.and]: clauses },
    order: order.map((item, i) =>
      sorted.includes(i) ? [Sequelize.col(aliased(i)), (item as [unknown, string])[1]] : item,
    ),
    ...(sorted.length > 0 && {
      attributes: { include: sorted.map((i) => [(order[i] as [Literal, string])[0], aliased(i)] as [Literal, string]) },
    }),
    ...(plan.trashed && { paranoid: false }),
    ...(plan.page && { limit: plan.page.perPage, offset: (plan.page.page - 1) * plan.page.perPage }),
    ...(include.length > 0 && { include }),
  };
}

type Literal = ReturnType<typeof Sequelize.literal>;

/**
 * One node of the condition tree: a condition (through its relation path as an `EXISTS`), or a `$or`/`$and` group
 * as `Op.or`/`Op.and` of its items, each item's nodes ANDed. The row scopes stay outside: they are ANDed with the
 * whole tree (`scopeQuery`), and a relation path's subquery keeps to them inside, so no `$or` reaches past them.
 */
function compileNode(model: ModelStatic<Model>, node: FilterNode, relations: RelationSettings): WhereOptions {
  if ('group' in node) {
    const items = node.items.map((item): WhereOptions => {
      const clauses = item.map((child) => compileNode(model, child, relations));
      return clauses.length === 1 ? clauses[0]! : { [Op.and]: clauses };
    });
    return { [node.group === 'or' ? Op.or : Op.and]: items };
  }
  return node.relation === undefined
    ? compileCondition(model, node)
    : relationWhere(model, node, relations.deletedAtField, relations.scopes);
}

/**
 * The alias prefix of the relation sort values a page with many-row includes selects (see
 * `compileSearch`): not attributes of the model, so `serializerFor` leaves them out of replies.
 */
export const SORT_ALIAS = '__sort_';

/**
 * True when an include joins many rows per record into the page's own query: a belongs-to-many, or a has-many not
 * loaded separately, at any depth.
 */
function joinsMany(source: ModelStatic<Model>, include: Includeable): boolean {
  const { association, separate, include: nested } = include as IncludeOptions & { association: string };
  const found = source.associations[association];
  if (separate === true || found === undefined) return false;
  const many = found.associationType === 'BelongsToMany' || found.associationType === 'HasMany';
  return many || (Array.isArray(nested) && nested.some((child) => joinsMany(found.target, child)));
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
