/**
 * The stages every action passes its query, write data and rows through: the resource's hook first, then each plugin.
 */
import type { FindOptions } from 'sequelize';
import { scopeQuery } from '../compile/row-scope.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import type { ActionScope } from '../resource/scope.js';
import type { CommittedContext, CrudMethod, PluginContext, ReadRequirement } from '../types.js';

/** The hooks that may change a query before it runs, one per action. */
export type QueryHook =
  | 'modifySearchQuery'
  | 'modifyOptionsQuery'
  | 'modifyExportCsvQuery'
  | 'modifyReadQuery'
  | 'modifyUpdateQuery'
  | 'modifyDeleteQuery'
  | 'modifySoftDeleteQuery'
  | 'modifyRestoreQuery';

/**
 * The query an action runs: the planned one after its modify-query hook, then after every
 * plugin's `query` stage, then kept to the request's row scopes, its own rows and every include's
 * (so a scope holds whatever a hook or a plugin did).
 * @example const query = await queryStage(scope, 'read', 'modifyReadQuery', planned);
 */
export async function queryStage(
  scope: ActionScope,
  action: CrudMethod,
  hook: QueryHook,
  planned: FindOptions,
): Promise<FindOptions> {
  const scopes = await rowScopesOf(scope, action);
  let query = ((await scope.hook(hook, planned)) as FindOptions | undefined) ?? planned;
  for (const plugin of scope.resource.plugins)
    if (plugin.query) query = await plugin.query(query, pluginContext(scope, action));
  return scopeQuery(scope.model, query, scopes);
}

/**
 * The data create or update writes, after every plugin's `data` stage.
 * @example const data = await dataStage(scope, 'create', hooked);
 */
export async function dataStage(
  scope: ActionScope,
  action: 'create' | 'update',
  data: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let staged = data;
  for (const plugin of scope.resource.plugins)
    if (plugin.data) staged = await plugin.data(staged, pluginContext(scope, action));
  return staged;
}

/**
 * The serialized records a reply carries, after every plugin's `rows` stage.
 * @example const rows = await rowsStage(scope, 'search', serialized);
 */
export async function rowsStage(
  scope: ActionScope,
  action: CrudMethod,
  rows: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  let staged = rows;
  for (const plugin of scope.resource.plugins)
    if (plugin.rows) staged = await plugin.rows(staged, pluginContext(scope, action));
  return staged;
}

/**
 * Where the reads of a read action must run, after every plugin's `readFrom` stage: undefined when no
 * plugin asks; `{ primary: true }` when one asks for the writer, or when two ask for different
 * transactions to be visible (the writer sees both).
 * @example const requirement = await readStage(scope, 'read');
 */
export async function readStage(scope: ActionScope, action: CrudMethod): Promise<ReadRequirement | undefined> {
  let found: ReadRequirement | undefined;
  for (const plugin of scope.resource.plugins) {
    const asked = plugin.readFrom ? await plugin.readFrom(pluginContext(scope, action)) : undefined;
    if (asked === undefined || (asked.primary !== true && asked.visible === undefined)) continue;
    const differs = found?.visible !== undefined && found.visible !== asked.visible;
    found = asked.primary === true || found?.primary === true || differs ? { primary: true } : asked;
  }
  return found;
}

/**
 * Tells every plugin's `committed` stage that a write committed (its transaction is over).
 * @example await committedStage(scope, 'update', { transactionId: '7412', committedAt: Date.now() });
 */
export async function committedStage(
  scope: ActionScope,
  action: CrudMethod,
  write: Pick<CommittedContext, 'transactionId' | 'committedAt'>,
): Promise<void> {
  for (const plugin of scope.resource.plugins)
    if (plugin.committed) await plugin.committed({ ...pluginContext(scope, action), transaction: undefined, ...write });
}

function pluginContext(scope: ActionScope, action: CrudMethod): PluginContext {
  return { action, ctx: scope.ctx, config: scope.config, model: scope.model, transaction: scope.transaction };
}
