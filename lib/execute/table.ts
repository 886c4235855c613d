/** tableHasColumn: whether the model's table holds a column the model does not declare. */
import type { Model, ModelStatic } from 'sequelize';

const described = new WeakMap<ModelStatic<Model>, Promise<ReadonlySet<string>>>();

/**
 * True when the model's table has the column, as the database describes it (the options action's
 * check of an undeclared value column, spec options rule 3). The table is described once per
 * model and kept with it (a failed description is not kept), not once per request: a column added
 * to the table later is seen after a restart.
 * @example await tableHasColumn(Category, 'legacy_code') // true
 */
export async function tableHasColumn(model: ModelStatic<Model>, column: string): Promise<boolean> {
  let columns = described.get(model);
  if (columns === undefined) {
    columns = model.sequelize!.getQueryInterface().describeTable(model.getTableName()).then((table) => new Set(Object.keys(table)));
    described.set(model, columns);
    columns.catch(() => described.delete(model));
  }
  return (await columns).has(column);
}
