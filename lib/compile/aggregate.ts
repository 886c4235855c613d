/** Compiles a checked AggregatePlan into one GROUP BY query's find options, per dialect. */
import {
  Sequelize,
  type FindOptions,
  type Includeable,
  type Model,
  type ModelStatic,
  type OrderItem,
  type GroupOption,
} from 'sequelize';
import { aggregateAliases, type AggregatePlan } from '../core/aggregate-plan.js';
import { relationOrder } from './relations.js';
import type { RelationSettings } from './search.js';

/** The SQL function of each measure. */
const FUNCTIONS = { sum: 'SUM', avg: 'AVG', min: 'MIN', max: 'MAX' } as const;

/**
 * Find options for an aggregate: the rows `filtered` selects (its where, with the row scopes and soft-delete condition
 * it holds, its paranoid flag and transaction) grouped by the plan's columns, each a column of the model or, for a
 * path, the related value as a correlated subquery (NULL when the related row is missing, soft-deleted or outside the
 * row scopes, as a relation sort reads it); selected under plain aliases (`aggregateAliases`), grouped and ordered by
 * position, NULL first, raw rows. At most `maxGroups + 1` groups are read, so one more than the cap is seen.
 * Includes a hook added join with no attributes of their own.
 * @example compileAggregate(Product, plan, compileSearch(Product, plan.filter, 'deletedAt'), relations)
 *   // { where, attributes: [[col('Product.status'), 'g0'], [fn('COUNT', literal('*')), 'n']], group: [literal('1')],
 *   // order: [[literal('1'), 'ASC']], limit: 1001, raw: true }
 */
export function compileAggregate(
  model: ModelStatic<Model>,
  plan: AggregatePlan,
  filtered: FindOptions,
  relations: RelationSettings,
): FindOptions {
  const aliases = aggregateAliases(plan);
  const mariadb = model.sequelize!.getDialect() === 'mariadb';
  const attributes = model.getAttributes();
  const column = (attribute: string) => Sequelize.col(`${model.name}.${attributes[attribute]?.field ?? attribute}`);
  const groups = plan.groupBy.map((group, i): [unknown, string] => {
    const value =
      group.relation === undefined
        ? column(group.attribute)
        : (
            relationOrder(
              model,
              [...group.relation, group.attribute].join('.'),
              'ASC',
              relations.deletedAtField,
              relations.scopes,
            ) as [unknown, string]
          )[0];
    return [value, aliases.groups[i]!];
  });
  const selected = [
    ...groups,
    ...(plan.count ? [[Sequelize.fn('COUNT', Sequelize.literal('*')), aliases.count]] : []),
    ...plan.measures.map(({ measure, attribute }, i) => [
      measure === 'avg' && mariadb
        ? Sequelize.literal(`AVG(CAST(${quoted(model, attribute)} AS DOUBLE))`)
        : Sequelize.fn(FUNCTIONS[measure], column(attribute)),
      aliases.measures[i]!,
    ]),
  ] as [ReturnType<typeof Sequelize.col>, string][];
  const postgres = model.sequelize!.getDialect() === 'postgres';
  const positions = plan.groupBy.map((_, i) => Sequelize.literal(String(i + 1)));
  const { where, paranoid, transaction, useMaster, logging, benchmark, include } = filtered;
  return {
    ...(where !== undefined && { where }),
    ...(paranoid !== undefined && { paranoid }),
    ...(transaction !== undefined && { transaction }),
    ...(useMaster !== undefined && { useMaster }),
    ...(logging !== undefined && { logging }),
    ...(benchmark !== undefined && { benchmark }),
    ...(include !== undefined && { include: withoutAttributes(include), subQuery: false }),
    attributes: selected,
    ...(positions.length > 0 && {
      // Sequelize's typings leave literals out of `group`; it writes them as they are.
      group: positions as unknown as GroupOption,
      order: positions.map((position): OrderItem => [position, postgres ? 'ASC NULLS FIRST' : 'ASC']),
      limit: plan.maxGroups + 1,
    }),
    raw: true,
  };
}

/**
 * A column of the model as SQL, for MariaDB's average: `AVG(CAST(col AS DOUBLE))`, because its AVG of an integer or a
 * decimal is a DECIMAL of only 4 more places (`div_precision_increment`), where SQLite and PostgreSQL answer the
 * average to a double's precision or more.
 */
function quoted(model: ModelStatic<Model>, attribute: string): string {
  const generator = model.sequelize!.getQueryInterface().queryGenerator as { quoteIdentifier(name: string): string };
  const field = model.getAttributes()[attribute]?.field ?? attribute;
  return `${generator.quoteIdentifier(model.name)}.${generator.quoteIdentifier(field)}`;
}

/** A hook's includes, each selecting nothing of its own (they may still narrow the rows), at every level. */
function withoutAttributes(include: Includeable | Includeable[]): Includeable[] {
  const list = Array.isArray(include) ? include : [include];
  return list.map((item) => {
    if (typeof item !== 'object' || item === null || !('association' in item || 'model' in item)) return item;
    const options = item as Includeable & { include?: Includeable | Includeable[] };
    return {
      ...(options as object),
      attributes: [],
      ...(options.include !== undefined && { include: withoutAttributes(options.include) }),
    } as Includeable;
  });
}
