/** Compiles the dot paths an export names (`category.name`) into Sequelize includes. */
import type { Includeable, Model, ModelStatic } from 'sequelize';
import { findColumn } from '../core/columns.js';
import { includeTree } from '../core/csv-cells.js';
import { softDeleteColumn } from './relations.js';

/**
 * The includes that load the associations a set of dot paths reaches, each with only the
 * attributes the paths name, as left joins (a row without the association keeps empty cells). A
 * soft-deleted associated row (`deletedAtField` set, or of a paranoid model) is left out, as if absent.
 * @example includesFor(Product, ['name', 'category.name']) // [{ association: 'category', attributes: ['name'], required: false, include: [] }]
 */
export function includesFor(model: ModelStatic<Model>, paths: readonly string[], deletedAtField = 'deleted_at'): Includeable[] {
  const build = (source: ModelStatic<Model>, tree: Record<string, unknown>): Includeable[] =>
    Object.entries(tree).flatMap(([name, children]) => {
      const association = source.associations[name];
      if (association === undefined) return [];
      const nested = children as Record<string, Record<string, unknown>>;
      const attributes = Object.keys(nested).filter((key) => Object.keys(nested[key]!).length === 0);
      const target = association.target;
      const paranoid = (target.options as { paranoid?: boolean }).paranoid === true;
      const deleted = paranoid ? undefined : softDeleteColumn(target, deletedAtField);
      const deletedAttribute = deleted === undefined ? undefined : findColumn(target, deleted)?.attribute;
      const where = deletedAttribute === undefined ? {} : { where: { [deletedAttribute]: null } };
      return [{ association: name, attributes, required: false, ...where, include: build(target, nested) }];
    });
  return build(model, includeTree(paths));
}
