/**
 * tenantScope: a model's rows belong to tenants, and a request reaches only its own tenant's, however it reaches them.
 */
import type { Context } from 'koa';
import { findColumn } from '../core/columns.js';
import { clientError } from '../core/error-reply.js';
import type { CrudPlugin, PluginContext } from '../types.js';

/**
 * A plugin that scopes a model to a tenant: `attribute = tenant` on every query that reaches the
 * model's rows, through any resource once one resource over the model is registered with it:
 * search, exportCsv and options, the `{id}` lookup of read, update, delete, softDelete and
 * restore, `include` at every level, filters and sorts through associations and CSV dot paths.
 * A foreign key a client writes must point at a row of the request's tenant. Create writes the
 * tenant, and update never moves a row to another tenant. A request with no tenant (`tenantOf`
 * gives null or undefined) is a 403 JSend fail on the resources given the plugin (it fails
 * closed), and reaches none of the scoped rows through any other resource.
 * @example
 * crud(router, 'invoices', invoices, { plugins: [tenantScope('tenantId', (ctx) => ctx.state.user?.tenantId)] })
 */
export function tenantScope(attribute: string, tenantOf: (ctx: Context) => unknown): CrudPlugin {
  // The tenant of a request, asked once however many models and stages need it.
  const tenants = new WeakMap<Context, Promise<unknown>>();
  const tenant = (ctx: Context): Promise<unknown> => {
    const known = tenants.get(ctx) ?? Promise.resolve(tenantOf(ctx));
    tenants.set(ctx, known);
    return known;
  };
  const required = async ({ ctx }: PluginContext): Promise<unknown> => {
    const value = await tenant(ctx);
    if (value === undefined || value === null) throw clientError(403, 'forbidden', 'This request has no tenant');
    return value;
  };
  // The attribute the tenant column is, per model: found once (check() has proved it exists).
  const keys = new WeakMap<object, string>();
  const keyOf = (model: PluginContext['model']): string => {
    const key = keys.get(model) ?? findColumn(model, attribute)!.attribute;
    keys.set(model, key);
    return key;
  };
  return {
    name: `tenantScope(${attribute})`,
    check: (model) =>
      findColumn(model, attribute) === undefined
        ? `${model.name} has no attribute ${attribute} to scope tenants by`
        : undefined,
    rowScope: async (model, context) => {
      const value = context.own ? await required(context) : await tenant(context.ctx);
      return { attribute: keyOf(model), values: value === undefined || value === null ? [] : [value] };
    },
    data: async (data, context) => {
      const key = keyOf(context.model);
      const { [key]: _ignored, ...rest } = data;
      return context.action === 'create' ? { ...rest, [key]: await required(context) } : rest;
    },
  };
}
