/** tenantScope: every action of a resource sees, writes and finds only the request's tenant's rows. */
import type { Context } from 'koa';
import { Op, type FindOptions, type WhereOptions } from 'sequelize';
import { findColumn } from '../core/columns.js';
import { clientError } from '../core/error-reply.js';
import type { CrudPlugin, PluginContext } from '../types.js';

/**
 * A plugin that scopes a resource to a tenant: every query (search, exportCsv, options, and the
 * `{id}` lookup of read, update, delete, softDelete and restore) gets `attribute = tenant`, create
 * writes the tenant, and update never moves a row to another tenant. A request with no tenant
 * (`tenantOf` gives null or undefined) is a 403 JSend fail: it fails closed.
 * @example crud(router, 'invoices', invoices, { plugins: [tenantScope('tenantId', (ctx) => ctx.state.user?.tenantId)] })
 */
export function tenantScope(attribute: string, tenantOf: (ctx: Context) => unknown): CrudPlugin {
  const tenant = async ({ ctx }: PluginContext): Promise<unknown> => {
    const value = await tenantOf(ctx);
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
    check: (model) => (findColumn(model, attribute) === undefined ? `${model.name} has no attribute ${attribute} to scope tenants by` : undefined),
    query: async (query: FindOptions, context): Promise<FindOptions> => {
      const scoped: WhereOptions = { [keyOf(context.model)]: await tenant(context) };
      return { ...query, where: query.where === undefined ? scoped : { [Op.and]: [query.where, scoped] } };
    },
    data: async (data, context) => {
      const key = keyOf(context.model);
      const { [key]: _ignored, ...rest } = data;
      return context.action === 'create' ? { ...rest, [key]: await tenant(context) } : rest;
    },
  };
}
