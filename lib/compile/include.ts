/** Compiles the dot paths an export names (`category.name`) into Sequelize includes. */
import type { Includeable, Model, ModelStatic } from 'sequelize';
import { includeTree } from '../core/csv-cells.js';

/**
 * The includes that load the associations a set of dot paths reaches, each with only the
 * attributes the paths name, as left joins (a row without the association keeps empty cells).
 * @example includesFor(Product, ['name', 'category.name']) // [{ association: 'category', attributes: ['name'], required: false, include: [] }]
 */
export function includesFor(model: ModelStatic<Model>, paths: readonly string[]): Includeable[] {
  const build = (source: ModelStatic<Model>, tree: Record<string, unknown>): Includeable[] =>
    Object.entries(tree).flatMap(([name, children]) => {
      const association = source.associations[name];
      if (association === undefined) return [];
      const nested = children as Record<string, Record<string, unknown>>;
      const attributes = Object.keys(nested).filter((key) => Object.keys(nested[key]!).length === 0);
      return [{ association: name, attributes, required: false, include: build(association.target, nested) }];
    });
  return build(model, includeTree(paths));
}
