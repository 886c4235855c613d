/** Plugins at work: invoices scoped to the caller's tenant, and a plugin of our own that stamps the creator. */
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import { DataTypes, Model, Sequelize, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { createFastCrud, resource, tenantScope, type CrudPlugin } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export class Invoice extends Model<InferAttributes<Invoice>, InferCreationAttributes<Invoice>> {
  declare id: CreationOptional<string>;
  declare tenantId: string;
  declare number: string;
  declare total: number;
  declare createdBy: CreationOptional<string | null>;
  declare deletedAt: CreationOptional<Date | null>;
}
Invoice.init(
  {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    tenantId: { type: DataTypes.STRING(40), allowNull: false },
    number: { type: DataTypes.STRING(20), allowNull: false },
    total: { type: DataTypes.DECIMAL(10, 2), allowNull: false },
    createdBy: DataTypes.STRING(40),
    deletedAt: DataTypes.DATE,
  },
  { sequelize, tableName: 'invoices', underscored: true },
);

/** Stands in for your authentication: `x-user` names a user of one tenant. */
const USERS: Readonly<Record<string, { id: string; tenantId: string }>> = {
  ada: { id: 'ada', tenantId: 'acme' },
  grace: { id: 'grace', tenantId: 'globex' },
};
export const authenticate: Middleware = async (ctx, next) => {
  ctx.state['user'] = USERS[ctx.get('x-user')];
  await next();
};
const userOf = (ctx: Context) => ctx.state['user'] as { id: string; tenantId: string } | undefined;

// #region plugin
/** Writes who created a row into `attribute`, and never lets a body set it. */
export function stampCreator(attribute: string): CrudPlugin {
  return {
    name: `stampCreator(${attribute})`,
    // At registration: a model without the attribute is refused, naming this plugin.
    check: (model) => (attribute in model.getAttributes() ? undefined : `${model.name} has no attribute ${attribute}`),
    // Create and update: after the body was checked and the hooks ran.
    data: (data, { action, ctx }) => {
      const { [attribute]: _fromClient, ...rest } = data;
      return action === 'create' ? { ...rest, [attribute]: userOf(ctx)?.id ?? null } : rest;
    },
  };
}
// #endregion plugin

// #region app
export const invoices = resource(Invoice, {
  policy: { fillable: ['number', 'total'] },
  // This resource's own plugins run first.
  plugins: [stampCreator('createdBy')],
});

// Every resource of the app is scoped to the caller's tenant; no tenant is a 403.
const { crud } = createFastCrud({ plugins: [tenantScope('tenantId', (ctx) => userOf(ctx)?.tenantId)] });

export const router = new Router({ prefix: '/api' });
crud(router, 'invoices', invoices);

export const app = new Koa().use(authenticate).use(router.routes()).use(router.allowedMethods());
// #endregion app
