import assert from 'node:assert/strict';
import * as E from 'fp-ts/lib/Either.js';
import { buildOptionsQuery, parseSort, planRoutes, processSort } from 'koa-fast-crud/core';
import { Category } from './minimal/app.js';

class ReadOnlyController {
  search() {}
  options() {}
  read() {}
}

// Which routes crud() would register, as plain values.
assert.deepEqual(planRoutes(ReadOnlyController, { uri: '/shop/categories', moduleName: 'shop', except: ['search'] }), [
  { verb: 'get', path: 'shop/categories/options', method: 'options', permission: null, ability: null },
  { verb: 'get', path: 'shop/categories/{id:uuid}', method: 'read', permission: 'view', ability: 'shop.access.view' },
]);

// `sort=createdAt,-price` as Sequelize order clauses, appended to what is there.
assert.deepEqual(parseSort(' createdAt , -price,'), [['created_at', 'ASC'], ['price', 'DESC']]);
assert.deepEqual(processSort({ order: [['id', 'ASC']] }, '-name').order, [['id', 'ASC'], ['name', 'DESC']]);

// The options query, or the reason there is none.
assert.deepEqual(
  buildOptionsQuery(Category, 'name', undefined),
  E.right({
    attributes: [['id', 'value'], ['name', 'label']],
    where: { deletedAt: null },
    order: [['name', 'ASC']],
    raw: true,
  }),
);
assert.deepEqual(buildOptionsQuery(Category, undefined, 'id'), E.left({ _tag: 'required', field: 'label' }));
assert.deepEqual(buildOptionsQuery(Category, 'colour', 'id'), E.left({ _tag: 'columnNotFound', field: 'colour' }));
