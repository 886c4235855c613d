/** README's first line, in an app: one resource, its routes guarded by abilities. */
import Router from '@koa/router';
import type { Context } from 'koa';
import { crud } from 'koa-fast-crud';
import { categories } from './minimal/app.js';

/** Your authorization decides; here a middleware has put the request's abilities on ctx.state. */
const can = (ctx: Context, ability: string) => (ctx.state['abilities'] as string[] | undefined)?.includes(ability) ?? false;

export const router = new Router({ prefix: '/api' });
crud(router, 'categories', categories, { moduleName: 'shop', can });
