/**
 * The sort planner on its own (docs/guide/sorting.md): parseSort and processSort as values, and
 * the same `sort` parameter in a route of your own, checked against a sortable list.
 */
import assert from 'node:assert/strict';
import Router from '@koa/router';
import { Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from 'koa-fast-crud';
import { allowedColumn, fail, parseSort, processSort, resolvePolicy, singleParam, type Order } from 'koa-fast-crud/core';
import { defineDemoModels } from '../demo/models.js';

// #region parse
// Items are trimmed, empty ones skipped; `-` means descending; names become snake_case.
assert.deepEqual(parseSort(' createdAt , -price,,'), [['created_at', 'ASC'], ['price', 'DESC']]);
assert.deepEqual(parseSort(''), []);
// parseSort checks no column: that is the caller's job.
assert.deepEqual(parseSort('-colourName'), [['colour_name', 'DESC']]);

// processSort appends the clauses to the order already there, in new options.
const base = { where: { sku: 'BK-001' }, order: [['name', 'ASC']] as [string, string][] };
const sorted = processSort(base, '-price');
assert.deepEqual(sorted.order, [['name', 'ASC'], ['price', 'DESC']]);
assert.deepEqual(sorted.where, { sku: 'BK-001' });
assert.deepEqual(base.order, [['name', 'ASC']]); // unchanged
// #endregion parse

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
export const { Category, Product } = defineDemoModels(sequelize);

// #region own-route
const sortable = resolvePolicy(Product, { sortable: ['name', 'price'] }, DEFAULT_CONFIG).sortable;

export const reports = new Router().get('/reports/cheapest', async (ctx) => {
  const order: Order[] = [];
  for (const [name, direction] of parseSort(singleParam(ctx.query['sort']) ?? 'price')) {
    // By attribute, column or snake_case name; undefined when not sortable.
    const column = allowedColumn(Product, sortable, name);
    if (column === undefined) {
      const message = `The sort column "${name}" was not found`;
      const reply = fail(400, [{ field: name, error: 'columnNotFound', message }]);
      ctx.status = reply.status;
      ctx.body = reply.body;
      return;
    }
    order.push([column.attribute, direction]);
  }
  ctx.body = await Product.findAll({
    attributes: ['sku', 'name', 'price'],
    where: { deletedAt: null },
    order: [...order, ['id', 'ASC']], // the primary key breaks ties
    limit: 3,
  });
});
// #endregion own-route
