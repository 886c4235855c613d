/**
 * Compiles relation paths: a condition through associations as an EXISTS chain, a sort as a correlated subquery,
 * includes as left joins.
 */
import {
  Sequelize,
  type Includeable,
  type Model,
  type ModelStatic,
  type OrderItem,
  type WhereOptions,
} from 'sequelize';
import type { Condition, Direction, RelationPolicy, RowScopes } from '../types.js';
import { compileCondition } from './condition.js';
import { scopeSql } from './row-scope.js';
import { notDeletedWhere, softDeleteColumn } from './soft-delete.js';

/** Sequelize's association metadata, as far as the join columns go. */
interface AssociationKeys {
  readonly associationType: string;
  readonly target: ModelStatic<Model>;
  readonly identifierField?: string;
  readonly sourceKeyField?: string;
  readonly targetKeyField?: string;
  readonly foreignIdentifierField?: string;
  readonly throughModel?: ModelStatic<Model>;
}

/**
 * "Has a related row that matches": a condition on an attribute reached through `condition.relation`,
 * as nested `EXISTS (SELECT 1 FROM target WHERE <join> AND <not soft-deleted> AND <row scope> AND …)`, so a
 * related row the request may not reach never matches. Identifiers come from the models' metadata
 * only; the client's values go through the dialect's escaping.
 * @example
 * const condition = { relation: ['category'], attribute: 'name', column: 'name', op: 'like', values: ['kit'] };
 * relationWhere(Product, condition, 'deleted_at')
 */
export function relationWhere(
  model: ModelStatic<Model>,
  condition: Condition,
  deletedAtField: string,
  scopes: RowScopes = new Map(),
): WhereOptions {
  const steps = condition.relation ?? [];
  const chain = walk(model, steps);
  const build = (index: number): string => {
    const { source, association, alias, sourceAlias } = chain[index]!;
    const target = association.target;
    const inner =
      index === chain.length - 1
        ? whereSql(target, compileCondition(target, { ...condition, attribute: condition.column }, alias), alias)
        : `EXISTS (${build(index + 1)})`;
    return selectOne({ source, association, alias, sourceAlias, deletedAtField, scopes }, inner);
  };
  return Sequelize.literal(`EXISTS (${build(0)})`);
}

/**
 * The order item for `association….attribute` through belongs-to and has-one associations: a
 * correlated subquery for the related value (NULL when there is none), so rows are neither
 * repeated nor dropped and counts stay exact. A related row the request may not reach sorts as none.
 * @example relationOrder(Product, 'category.name', 'DESC', 'deleted_at') // [literal('(SELECT … )'), 'DESC']
 */
export function relationOrder(
  model: ModelStatic<Model>,
  path: string,
  direction: Direction,
  deletedAtField: string,
  scopes: RowScopes = new Map(),
): OrderItem {
  const steps = path.split('.');
  const attribute = steps.pop()!;
  const chain = walk(model, steps);
  const build = (index: number): string => {
    const { source, association, alias, sourceAlias } = chain[index]!;
    const target = association.target;
    const value =
      index === chain.length - 1
        ? quote(model, alias, target.getAttributes()[attribute]?.field ?? attribute)
        : `(${build(index + 1)})`;
    return selectOne({ source, association, alias, sourceAlias, deletedAtField, scopes }, null, value);
  };
  const nulls =
    model.sequelize!.getDialect() === 'postgres' ? (direction === 'ASC' ? ' NULLS FIRST' : ' NULLS LAST') : '';
  return [Sequelize.literal(`(${build(0)})`), `${direction}${nulls}`];
}

/**
 * Includes for association paths (`category`, `order.customer`): left joins (has-many in a separate
 * query per page), each with only the attributes its relation policy shows and without soft-deleted rows.
 * @example relationIncludes(Product, ['category'], policy.relations, 'deleted_at')
 *   // [{ association: 'category', attributes: ['id', 'name'], required: false, … }]
 */
export function relationIncludes(
  model: ModelStatic<Model>,
  paths: readonly string[],
  policies: Readonly<Record<string, RelationPolicy>>,
  deletedAtField: string,
): Includeable[] {
  const build = (source: ModelStatic<Model>, prefix: string, underSeparate: boolean): Includeable[] =>
    paths
      .filter((path) => path.startsWith(prefix) && !path.slice(prefix.length).includes('.'))
      .flatMap((path) => {
        const name = path.slice(prefix.length);
        const association = source.associations[name] as unknown as AssociationKeys | undefined;
        const policy = policies[path];
        if (association === undefined || policy === undefined) return [];
        const target = association.target;
        const notDeleted = notDeletedWhere(target, deletedAtField);
        const where = notDeleted === undefined ? {} : { where: notDeleted };
        const separate = association.associationType === 'HasMany' && !underSeparate;
        return [
          {
            association: name,
            attributes: [...policy.visible],
            required: false,
            ...where,
            ...(separate && { separate: true }),
            // A belongs-to-many's link row is not the record's: no `BookTag` object in each included tag.
            ...(association.associationType === 'BelongsToMany' && { through: { attributes: [] } }),
            include: build(target, `${path}.`, underSeparate || separate),
          },
        ];
      });
  return build(model, '', false);
}

interface Step {
  readonly source: ModelStatic<Model>;
  readonly association: AssociationKeys;
  readonly alias: string;
  readonly sourceAlias: string;
}

function walk(model: ModelStatic<Model>, steps: readonly string[]): Step[] {
  let source = model;
  let sourceAlias = model.name;
  return steps.map((name, index) => {
    const association = source.associations[name] as unknown as AssociationKeys | undefined;
    if (association === undefined) throw new TypeError(`${source.name} has no association ${name}`);
    const step = { source, association, alias: `${name}_${index + 1}`, sourceAlias };
    source = association.target;
    sourceAlias = step.alias;
    return step;
  });
}

/** One step of a subquery chain: the association walked, the aliases of both ends, and what leaves rows out. */
interface StepSql extends Step {
  readonly deletedAtField: string;
  readonly scopes: RowScopes;
}

/**
 * `SELECT <value> FROM target AS alias WHERE <join to the source row> AND <not soft-deleted> AND <row scope> [AND
 * condition]`.
 */
function selectOne(step: StepSql, condition: string | null, value = '1'): string {
  const { source, association, alias, sourceAlias, deletedAtField, scopes } = step;
  const target = association.target;
  const q = (table: string, column: string) => quote(source, table, column);
  const clauses: string[] = [];
  switch (association.associationType) {
    case 'BelongsTo':
      clauses.push(`${q(alias, association.targetKeyField!)} = ${q(sourceAlias, association.identifierField!)}`);
      break;
    case 'BelongsToMany': {
      const through = association.throughModel!;
      const link = `${alias}_link`;
      const linkScope = scopeSql(through, scopes, link);
      const toSource = `${q(link, association.identifierField!)} = ${q(sourceAlias, association.sourceKeyField!)}`;
      const toTarget = `${q(link, association.foreignIdentifierField!)} = ${q(alias, association.targetKeyField!)}`;
      const scoped = linkScope === undefined ? '' : ` AND ${linkScope}`;
      const from = `${table(through)} AS ${identifier(source, link)}`;
      clauses.push(`EXISTS (SELECT 1 FROM ${from} WHERE ${toSource} AND ${toTarget}${scoped}${existsLimit(source)})`);
      break;
    }
    default:
      clauses.push(`${q(alias, association.identifierField!)} = ${q(sourceAlias, association.sourceKeyField!)}`);
  }
  const deleted = softDeleteColumn(target, deletedAtField);
  if (deleted !== undefined) clauses.push(`${q(alias, deleted)} IS NULL`);
  const scoped = scopeSql(target, scopes, alias);
  if (scoped !== undefined) clauses.push(scoped);
  if (condition !== null) clauses.push(condition);
  const limit = value === '1' ? existsLimit(source) : ' LIMIT 1';
  return `SELECT ${value} FROM ${table(target)} AS ${identifier(source, alias)} WHERE ${clauses.join(' AND ')}${limit}`;
}

/**
 * What ends an `EXISTS` subquery: ` LIMIT 1` on SQLite, nothing elsewhere. SQLite 3.52 rewrites a
 * correlated `EXISTS` into a join over an automatic index, and that join answers a row past the
 * page's OFFSET again when several related rows match (`LIMIT 1 OFFSET 1` over one matching parent
 * with two matching children gives that parent). A LIMIT keeps the subquery a subquery; the answer
 * is the same.
 */
function existsLimit(model: ModelStatic<Model>): string {
  return model.sequelize!.getDialect() === 'sqlite' ? ' LIMIT 1' : '';
}

function whereSql(model: ModelStatic<Model>, where: WhereOptions, alias: string): string {
  return `(${generator(model).whereItemsQuery(where, { model, prefix: alias })})`;
}

function quote(model: ModelStatic<Model>, table: string, column: string): string {
  return `${identifier(model, table)}.${identifier(model, column)}`;
}

interface Generator {
  quoteIdentifier(name: string): string;
  quoteTable(table: unknown): string;
  whereItemsQuery(where: WhereOptions, options: object): string;
}

function generator(model: ModelStatic<Model>): Generator {
  return model.sequelize!.getQueryInterface().queryGenerator as Generator;
}

function identifier(model: ModelStatic<Model>, name: string): string {
  return generator(model).quoteIdentifier(name);
}

function table(model: ModelStatic<Model>): string {
  return generator(model).quoteTable(model.getTableName());
}
