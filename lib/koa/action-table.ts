/** The action table, beside `crud`: each route-table method name to the lifecycle that serves it for a `resource()`. */
import { createAction } from '../actions/create.js';
import { deleteAction } from '../actions/delete.js';
import { exportCsvAction } from '../actions/export-csv.js';
import { optionsAction } from '../actions/options.js';
import { readAction } from '../actions/read.js';
import { searchAction } from '../actions/search.js';
import { restoreAction, softDeleteAction } from '../actions/soft-delete.js';
import { updateAction } from '../actions/update.js';
import { changesAction } from '../actions/changes.js';
import { aggregateAction } from '../actions/aggregate.js';
import type { CrudMethod, Reply } from '../types.js';
import { deleteManyAction, restoreManyAction, softDeleteManyAction } from '../actions/batch-delete.js';
import { updateManyAction } from '../actions/batch-update.js';
import type { ActionScope } from '../resource/scope.js';

/**
 * The lifecycle of every standard action: the same functions the class form's mixins call.
 * @example await ACTIONS.read(resourceScope(bound, ctx))
 */
export const ACTIONS: Readonly<Record<CrudMethod, (scope: ActionScope) => Promise<Reply | undefined>>> = Object.freeze({
  search: searchAction,
  options: optionsAction,
  create: createAction,
  exportCsv: exportCsvAction,
  read: readAction,
  update: updateAction,
  delete: deleteAction,
  softDelete: softDeleteAction,
  restore: restoreAction,
  changes: changesAction,
  aggregate: aggregateAction,
});

/**
 * The lifecycle of each batch route, by its single action's method: the records a `filter[...]` matches, in one
 * transaction (create many is create's route with an array body).
 * @example await BATCH_ACTIONS.update!(resourceScope(bound, ctx))
 */
export const BATCH_ACTIONS: Readonly<Partial<Record<CrudMethod, (scope: ActionScope) => Promise<Reply>>>> =
  Object.freeze({
    update: updateManyAction,
    delete: deleteManyAction,
    softDelete: softDeleteManyAction,
    restore: restoreManyAction,
  });
