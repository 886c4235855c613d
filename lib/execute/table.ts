/** tableHasColumn: whether the model's table holds a column the model does not declare. */
import type { Model, ModelStatic } from 'sequelize';

/**
 * True when the model's table has the column, as the database describes it (the options action's
 * check of an undeclared value column, spec options rule 3).
 * @example await tableHasColumn(Category, 'legacy_code') // true
 */
export async function tableHasColumn(model: ModelStatic<Model>, column: string): Promise<boolean> {
  const columns = await model.sequelize!.getQueryInterface().describeTable(model.getTableName());
  return Object.hasOwn(columns, column);
}
