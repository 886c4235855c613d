/** Compiles a checked OptionsPlan into Sequelize find options, per dialect: the spec's query, narrowed and limited. */
import { Op, type FindOptions, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import type { OptionsPlan } from '../core/options-query.js';
import { contains } from './condition.js';
import { compileSearch, type RelationSettings } from './search.js';

/**
 * Find options for an options plan: its query as it is for a request with no `q`, `filter` or
 * `limit` (the spec's), else its where ANDed with the label's case-insensitive "contains" (`%` and
 * `_` match themselves; see `contains`) and the filters compiled as search compiles them.
 * @example compileOptions(Category, plan, settings)
 *   // { attributes: [['id', 'value'], ['name', 'label']], where: { [Op.and]: [{ deletedAt: null }, …] },
 *   // order: [['name', 'ASC']], raw: true, limit: 20 }
 */
export function compileOptions(model: ModelStatic<Model>, plan: OptionsPlan, relations: RelationSettings): FindOptions {
  const { query, search, conditions, term } = plan;
  const clauses: WhereOptions[] = [];
  if (conditions.length > 0 || term !== null) {
    // trashed: the options query keeps its own soft-delete condition; only the where is taken.
    const filtered = compileSearch(
      model,
      { conditions, term, order: [], page: null, trashed: true },
      undefined,
      relations,
    );
    clauses.push(filtered.where!);
  }
  if (search !== null)
    clauses.push(...search.columns.map(({ column, isText }) => contains(model, column, search.text, !isText)));
  if (clauses.length === 0) return query;
  const where = query.where === undefined ? clauses : [query.where, ...clauses];
  return { ...query, where: { [Op.and]: where } };
}
