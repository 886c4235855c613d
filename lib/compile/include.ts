/** Compiles the dot paths an export names (`category.name`) into Sequelize includes. */
import type { Includeable, Model, ModelStatic } from 'sequelize';
import { includeTree } from '../core/csv-cells.js';
import { notDeletedWhere } from './soft-delete.js';

/**
 * The includes that load the associations a set of dot paths reaches, each with only the
 * attributes the paths name, as left joins (a row without the association keeps empty cells).
 * An associated row that is soft-deleted is not joined either: a paranoid model's by Sequelize
 * itself, and a model with the configured deleted-at column (`deletedAtField`, as
 * `soft_delete.deleted_at_field` names it) by a `deleted-at is null` condition in the join.
 * @example includesFor(Product, ['name', 'category.name'], 'deleted_at')
 *   // [{ association: 'category', attributes: ['name'], required: false, include: [], where: { deletedAt: null } }]
 */
export function includesFor(
  model: ModelStatic<Model>,
  paths: readonly string[],
  deletedAtField = 'deleted_at',
): Includeable[] {
  const build = (source: ModelStatic<Model>, tree: Record<string, unknown>): Includeable[] =>
    Object.entries(tree).flatMap(([name, children]) => {
      const association = source.associations[name];
      if (association === undefined) return [];
      const target = association.target;
      const nested = children as Record<string, Record<string, unknown>>;
      const attributes = Object.keys(nested).filter((key) => Object.keys(nested[key]!).length === 0);
      const through = association.associationType === 'BelongsToMany' && { through: { attributes: [] } };
      const include = { association: name, attributes, required: false, ...through, include: build(target, nested) };
      const where = notDeletedWhere(target, deletedAtField);
      return [where === undefined ? include : { ...include, where }];
    });
  return build(model, includeTree(paths));
}
