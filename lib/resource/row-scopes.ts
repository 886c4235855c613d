/**
 * Row scopes: which models a plugin scopes (registered with the resources `crud` binds), and the
 * scopes one request resolves for them. A scope belongs to the model, not to the resource it was
 * given with, so it holds wherever the model is reached.
 */
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import type { CrudMethod, CrudPlugin, RowScope, RowScopes } from '../types.js';
import type { BoundResource } from './bind.js';
import type { ActionScope } from './scope.js';

/** No model scoped: what a request resolves on a Sequelize instance without scoping plugins. */
export const NO_ROW_SCOPES: RowScopes = new Map();

/**
 * The scoping plugins of each model, per Sequelize instance: the app owns it through its instance,
 * and two apps on two instances never see each other's scopes.
 */
const scoped = new WeakMap<Sequelize, Map<ModelStatic<Model>, Set<CrudPlugin>>>();

/**
 * Records that the bound resource's plugins with a `rowScope` stage scope its model, from now on
 * for every resource on the model's Sequelize instance, whatever the order of registration.
 * @example registerRowScopes(bound)
 */
export function registerRowScopes(resource: BoundResource): void {
  const plugins = resource.plugins.filter((plugin) => plugin.rowScope !== undefined);
  if (plugins.length === 0) return;
  const sequelize = resource.model.sequelize!;
  const models = scoped.get(sequelize) ?? new Map<ModelStatic<Model>, Set<CrudPlugin>>();
  scoped.set(sequelize, models);
  const set = models.get(resource.model) ?? new Set<CrudPlugin>();
  models.set(resource.model, set);
  for (const plugin of plugins) set.add(plugin);
}

const resolved = new WeakMap<ActionScope, Promise<RowScopes>>();

/**
 * The row scopes of the scope's request, every scoped model's, asked of the plugins once per
 * request. A plugin that throws for the served model (a request with no tenant) ends the request.
 * @example const scopes = await rowScopesOf(scope, 'search');
 */
export function rowScopesOf(scope: ActionScope, action: CrudMethod): Promise<RowScopes> {
  // An instance without scoped models (most apps) answers the same settled promise, remembering nothing.
  const models = scoped.get(scope.model.sequelize!);
  if (models === undefined) return UNSCOPED;
  const known = resolved.get(scope);
  if (known !== undefined) return known;
  const scopes = resolve(scope, action, models);
  resolved.set(scope, scopes);
  return scopes;
}

const UNSCOPED: Promise<RowScopes> = Promise.resolve(NO_ROW_SCOPES);

/**
 * `NO_ROW_SCOPES` when the scope's Sequelize instance has no scoped models (most apps), known without asking any
 * plugin; else undefined, and `rowScopesOf` asks them. Lets a request's hot path do without an `await`.
 * @example const scopes = unscoped(scope) ?? (await rowScopesOf(scope, 'search'));
 */
export function unscoped(scope: ActionScope): RowScopes | undefined {
  return scoped.has(scope.model.sequelize!) ? undefined : NO_ROW_SCOPES;
}

async function resolve(
  scope: ActionScope,
  action: CrudMethod,
  models: ReadonlyMap<ModelStatic<Model>, ReadonlySet<CrudPlugin>>,
): Promise<RowScopes> {
  // The served model first, so that its own plugins refuse a request before any other is asked.
  const ordered = [...models].sort(([a], [b]) => Number(b === scope.model) - Number(a === scope.model));
  const scopes = new Map<ModelStatic<Model>, RowScope[]>();
  for (const [model, plugins] of ordered) {
    const list: RowScope[] = [];
    for (const plugin of plugins) {
      const own = model === scope.model && scope.resource.plugins.includes(plugin);
      const context = {
        action,
        ctx: scope.ctx,
        config: scope.config,
        model: scope.model,
        transaction: scope.transaction,
        own,
      };
      list.push(await plugin.rowScope!(model, context));
    }
    scopes.set(model, list);
  }
  return scopes;
}

/**
 * The request's scopes as a string, equal for equal scopes: a search plan prepared under one
 * scope is reused only under the same. Undefined when a value has no stable text (an object).
 * @example scopesKey(new Map([[Book, [{ attribute: 'libraryId', values: [7] }]]])) // '[["Book",[["libraryId",[7]]]]]'
 */
export function scopesKey(scopes: RowScopes): string | undefined {
  const plain = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  const entries: unknown[] = [];
  for (const [model, list] of scopes) {
    if (!list.every(({ values }) => values.every(plain))) return undefined;
    entries.push([model.name, list.map(({ attribute, values }) => [attribute, values])]);
  }
  return JSON.stringify(entries);
}
