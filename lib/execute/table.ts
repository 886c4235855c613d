/** The columns of a model's table as the database describes them, described once per model. */
import type { Model, ModelStatic } from 'sequelize';

const described = new WeakMap<ModelStatic<Model>, Promise<ReadonlySet<string>>>();

/**
 * True when the model's table has the column, as the database describes it (the options action's
 * check of an undeclared value column, spec options rule 3). See `tableColumns`.
 * @example await tableHasColumn(Category, 'legacy_code') // true
 */
export async function tableHasColumn(model: ModelStatic<Model>, column: string): Promise<boolean> {
  return (await tableColumns(model)).has(column);
}

/**
 * The names of the columns of the model's table, as the database describes it. The table is
 * described once per model and kept with it (a failed description is not kept), not once per
 * request: a column added to the table later is seen after a restart.
 * @example await tableColumns(Category) // Set { 'id', 'name', 'legacy_code' }
 */
export function tableColumns(model: ModelStatic<Model>): Promise<ReadonlySet<string>> {
  let columns = described.get(model);
  if (columns === undefined) {
    columns = model.sequelize!.getQueryInterface().describeTable(model.getTableName()).then((table) => new Set(Object.keys(table)));
    described.set(model, columns);
    columns.catch(() => described.delete(model));
  }
  return columns;
}
