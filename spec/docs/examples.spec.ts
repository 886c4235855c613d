import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import Koa from 'koa';
import { router as manyResources } from '../../docs/examples/many-resources.js';
import { Tag } from '../../docs/examples/tag-controller.js';
import Router from '@koa/router';
import { crud } from '../../lib/index.js';
import { app as minimalApp, Category, sequelize } from '../../docs/examples/minimal/app.js';
import { router as classFormRouter } from '../../docs/examples/minimal/class-form.js';
import { router as guardedRouter } from '../../docs/examples/guarded.js';
import { categories as hookedCategories } from '../../docs/examples/resource-hooks.js';
import { TypedCategoryController } from '../../docs/examples/typed-controller.js';
import { CategoryController as HookedCategoryController } from '../../docs/examples/hooks.js';
import { Order, router as ordersRouter } from '../../docs/examples/integer-keys.js';
import { serveDemoInSuite } from '../support/demo.js';
import { serve } from '../support/http.js';

describe('docs/examples', () => {
  before(async () => {
    await sequelize.sync({ force: true });
    await Category.bulkCreate([{ name: 'Garden' }, { name: 'Books' }, { name: 'Gone', deletedAt: new Date() }]);
    await Tag.bulkCreate([{ slug: 'sale', title: 'On sale' }]);
  });

  it('minimal/app.ts serves category options', async () => {
    const server = await serve(minimalApp);
    try {
      const res = await server.get('/api/categories/options?label=name');
      assert.deepEqual(res.body.data.map((i: { label: string }) => i.label), ['Books', 'Garden']);
    } finally {
      await server.close();
    }
  });

  it('minimal/class-form.ts serves the same options', async () => {
    const server = await serve(new Koa().use(classFormRouter.routes()));
    try {
      const res = await server.get('/api/categories/options?label=name');
      assert.deepEqual(res.body.data.map((i: { label: string }) => i.label), ['Books', 'Garden']);
    } finally {
      await server.close();
    }
  });

  it('guarded.ts checks the ability before every route but options', async () => {
    const app = new Koa().use(async (ctx, next) => {
      ctx.state['abilities'] = ctx.get('x-abilities').split(',');
      await next();
    });
    const server = await serve(app.use(guardedRouter.routes()));
    try {
      assert.equal((await server.get('/api/categories')).status, 403);
      assert.equal((await server.request('GET', '/api/categories', { headers: { 'x-abilities': 'shop.access.search' } })).status, 200);
      assert.equal((await server.get('/api/categories/options?label=name')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('resource-hooks.ts and typed-controller.ts run their typed hooks', async () => {
    const router = new Router();
    crud(router, 'hooked', hookedCategories);
    crud(router, 'typed', TypedCategoryController);
    const server = await serve(new Koa().use(router.routes()));
    const post = (path: string, body: unknown) => server.request('POST', path, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    try {
      const hooked = await post('/hooked', { name: '  Tools  ' });
      assert.equal(hooked.body.data.name, 'Tools', hooked.text);
      const typed = await post('/typed', { name: '  Toys ' });
      assert.equal(typed.body.data.name, 'Toys', typed.text);
      assert.equal((await server.get(`/typed/${typed.body.data.id}`)).body.data.name, 'TOYS');
      await Category.destroy({ where: { name: ['Tools', 'Toys'] } });
    } finally {
      await server.close();
    }
  });

  it('registration-errors.ts: crud refuses a misspelt name with the message shown', async () => {
    await import('../../docs/examples/registration-errors.js');
  });

  it('integer-keys.ts: with find_field_is_uuid off, {id} finds an integer key, and a non-integer is a 404', async () => {
    const order = await Order.create({ reference: 'A-7' });
    const server = await serve(new Koa().use(ordersRouter.routes()));
    try {
      const found = await server.get(`/api/orders/${order.id}`);
      assert.equal(found.status, 200);
      assert.equal(found.body.data.reference, 'A-7');
      const refused = await server.get('/api/orders/abc');
      assert.equal(refused.status, 404);
      assert.equal(refused.body.data[0].error, 'recordNotFound');
    } finally {
      await server.close();
    }
  });

  it('planners.ts holds', async () => {
    await import('../../docs/examples/planners.js');
  });

  it('many-resources.ts, resource-hooks.ts, hooks.ts and tag-controller.ts serve what they say', async () => {
    const app = new Koa().use(async (ctx, next) => {
      ctx.state['abilities'] = ctx.get('x-abilities').split(',');
      await next();
    });
    const classForm = new Router({ prefix: '/class-form' });
    crud(classForm, 'categories', HookedCategoryController);
    const server = await serve(app.use(manyResources.routes()).use(classForm.routes()));
    try {
      assert.deepEqual((await server.get('/categories/options?label=name&startsWith=G')).body.data.map((i: { label: string }) => i.label), ['GARDEN']);
      assert.deepEqual((await server.get('/class-form/categories/options?label=name&startsWith=G')).body.data.map((i: { label: string }) => i.label), ['GARDEN']);
      assert.deepEqual((await server.get('/tags/options?label=title')).body.data, [{ label: 'On sale', value: 'sale' }]);
      assert.equal((await server.get('/tags/options')).status, 422);
      assert.equal((await server.get('/tags')).status, 404);
    } finally {
      await server.close();
    }
  });
});

describe('the demo app', () => {
  const demo = serveDemoInSuite();

  it('serves category options without the soft-deleted category', async () => {
    const res = await demo().get('/api/categories/options?label=name');
    assert.deepEqual(res.body.data.map((i: { label: string }) => i.label), ['Books', 'Garden', 'Kitchen', 'Music', 'Toys']);
  });

  it('serves product options by sku without the soft-deleted product', async () => {
    const res = await demo().get('/api/products/options?label=sku&value=name');
    assert.equal(res.body.data.length, 7);
    assert.ok(!res.body.data.some((i: { label: string }) => i.label === 'TY-002'));
  });
});
