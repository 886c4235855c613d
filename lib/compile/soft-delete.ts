/**
 * Soft-deleted rows of a model as compiling needs them: which column marks them, and the join condition that leaves
 * them out.
 */
import type { Model, ModelStatic, WhereOptions } from 'sequelize';
import { findColumn } from '../core/columns.js';

/**
 * True for a `paranoid` model: Sequelize owns its deleted-at column and filters it itself.
 * @example isParanoid(Note) // true
 */
export function isParanoid(model: ModelStatic<Model>): boolean {
  return (model as unknown as { options: { paranoid?: boolean } }).options.paranoid === true;
}

/**
 * The column that marks a soft-deleted row of a model: a paranoid model's deleted-at column, else
 * the configured `soft_delete.deleted_at_field` when the model has it; undefined otherwise.
 * @example softDeleteColumn(Category, 'deleted_at') // 'deleted_at'
 */
export function softDeleteColumn(model: ModelStatic<Model>, deletedAtField: string): string | undefined {
  const options = model.options as { paranoid?: boolean; deletedAt?: string | boolean };
  if (options.paranoid === true) {
    const attribute = typeof options.deletedAt === 'string' ? options.deletedAt : 'deletedAt';
    return model.getAttributes()[attribute]?.field ?? attribute;
  }
  return findColumn(model, deletedAtField)?.column;
}

/**
 * The `where` an include of `target` needs so that its soft-deleted rows are not joined: none for a
 * paranoid model (Sequelize adds it), `{ deletedAt: null }` for a model with the configured column.
 * @example notDeletedWhere(Category, 'deleted_at') // { deletedAt: null }
 */
export function notDeletedWhere(target: ModelStatic<Model>, deletedAtField: string): WhereOptions | undefined {
  const attribute = isParanoid(target) ? undefined : findColumn(target, deletedAtField)?.attribute;
  return attribute === undefined ? undefined : { [attribute]: null };
}
