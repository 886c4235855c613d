import Router from '@koa/router';
import type { Context } from 'koa';
import { createFastCrud } from 'koa-fast-crud';
import { categories } from './resource-hooks.js';
import { TagController } from './tag-controller.js';

const can = (ctx: Context, ability: string) => (ctx.state['abilities'] as string[] | undefined)?.includes(ability) ?? false;

const { crud } = createFastCrud({ can, config: { global: { validation: { http_status: 422 } } } });

export const router = new Router();
crud(router, 'categories', categories, { moduleName: 'shop' });
crud(router, 'tags', TagController, { moduleName: 'shop', config: { options: { default_value: 'slug' } } });
