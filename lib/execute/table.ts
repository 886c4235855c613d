/**
 * The columns of a model's table as the database describes them, kept per Sequelize instance (at
 * most `TABLE_LIMIT` tables) and described again when a column is asked for that the kept
 * description lacks, or when a query on a kept column fails: a column added to the table is usable
 * without a restart, and one dropped is an unknown column (a 400), not a server fault. Another
 * process may change the table at any moment, so a caller that needs the table as it is now takes
 * only a description asked for after its own moment (`since`), never one that was already under way.
 */
import type { Model, ModelStatic } from 'sequelize';
import { stateOf, TABLE_LIMIT, type TableEntry } from './state.js';

/**
 * True when the model's table has the column, as the database describes it now (the options
 * action's check of an undeclared value column, spec options rule 3): a kept description without
 * the column is replaced by one asked for after this call began.
 * @example await tableHasColumn(Category, 'legacy_code') // true
 */
export async function tableHasColumn(model: ModelStatic<Model>, column: string): Promise<boolean> {
  const asked = performance.now();
  if ((await tableColumns(model)).has(column)) return true;
  return (await tableColumns(model, asked)).has(column);
}

/**
 * The names of the columns of the model's table, as the database describes it: kept for the
 * model (a failed description is not kept); with `since` (a `performance.now()` moment), only a
 * description asked for at or after it (concurrent callers share one). The least recently used
 * table goes when `TABLE_LIMIT` are kept.
 * @example await tableColumns(Category) // Set { 'id', 'name', 'legacy_code' }
 * @example await tableColumns(Category, performance.now()) // described now
 */
export function tableColumns(model: ModelStatic<Model>, since?: number): Promise<ReadonlySet<string>> {
  const state = stateOf(model.sequelize!);
  const { tables } = state;
  const kept = tables.get(model);
  if (kept !== undefined) tables.delete(model);
  if (kept !== undefined && (since === undefined || kept.started >= since)) {
    tables.set(model, kept);
    return kept.columns;
  }
  if (kept !== undefined) state.spans.delete(model);
  const started = performance.now();
  const describing = model.sequelize!.getQueryInterface().describeTable(model.getTableName());
  const entry: TableEntry = { columns: describing.then((table) => new Set(Object.keys(table))), started };
  if (tables.size >= TABLE_LIMIT) tables.delete(tables.keys().next().value!);
  tables.set(model, entry);
  entry.columns.catch(() => {
    if (tables.get(model) === entry) tables.delete(model);
  });
  return entry.columns;
}
