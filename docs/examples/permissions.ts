/** Abilities from the signed-in user's roles: crud checks one before every route but options. */
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import { createFastCrud, resource } from 'koa-fast-crud';
import { Category, Product } from './controllers/shop.js';

// #region can
/** What each role may do, as abilities `<moduleName>.access.<permission>`. */
const ROLE_ABILITIES: Readonly<Record<string, readonly string[]>> = {
  viewer: ['shop.access.search', 'shop.access.view'],
  clerk: [
    'shop.access.search', 'shop.access.view', 'shop.access.exportCsv', 'shop.access.create',
    'shop.access.update',
  ],
  manager: [
    'shop.access.search', 'shop.access.view', 'shop.access.exportCsv', 'shop.access.create',
    'shop.access.update', 'shop.access.delete', 'shop.access.restore',
  ],
};

export interface User {
  readonly id: string;
  readonly roles: readonly string[];
}

/** The ability check: false answers 403; throwing a 401 asks the client to sign in. */
export function can(ctx: Context, ability: string): boolean {
  const user = ctx.state['user'] as User | undefined;
  if (user === undefined) ctx.throw(401, 'Sign in first');
  return user.roles.some((role) => ROLE_ABILITIES[role]?.includes(ability) ?? false);
}
// #endregion can

/** Stands in for your authentication: a bearer token names a user. */
const USERS: Readonly<Record<string, User>> = {
  'viewer-token': { id: 'u-viewer', roles: ['viewer'] },
  'clerk-token': { id: 'u-clerk', roles: ['clerk'] },
  'manager-token': { id: 'u-manager', roles: ['manager'] },
};

export const authenticate: Middleware = async (ctx, next) => {
  const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
  ctx.state['user'] = token === undefined ? undefined : USERS[token];
  await next();
};

// #region app
const categories = resource(Category, { policy: { fillable: ['name'] } });
const products = resource(Product, {
  policy: { fillable: ['sku', 'name', 'price', 'categoryId'] },
  search: { termFields: ['name', 'sku'] },
});

// One ability check and one configuration for every resource of the app.
const { crud } = createFastCrud({ can, config: { global: { validation: { http_status: 422 } } } });

export const router = new Router({ prefix: '/api' });
// Categories are never deleted for good: no DELETE categories/{id} route at all.
crud(router, 'categories', categories, { moduleName: 'shop', except: ['delete'] });
crud(router, 'products', products, { moduleName: 'shop' });

export const app = new Koa().use(authenticate).use(router.routes()).use(router.allowedMethods());
// #endregion app
