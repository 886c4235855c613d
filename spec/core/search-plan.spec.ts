import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG } from '../../lib/core/config.js';
import { resolvePolicy } from '../../lib/core/field-policy.js';
import { planSearch } from '../../lib/core/search-plan.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Product = sequelize.define(
  'Product',
  { name: DataTypes.STRING, price: DataTypes.DECIMAL, deletedAt: DataTypes.DATE },
  { underscored: true },
);
const settings = {
  policy: resolvePolicy(Product, {}, DEFAULT_CONFIG),
  termKey: 'term',
  termFields: [],
  config: DEFAULT_CONFIG,
  paginate: true,
};
const planOf = (request: object, s = settings) =>
  E.getOrElseW((left) => assert.fail(JSON.stringify(left)))(planSearch(Product, request, s));

describe('planSearch', () => {
  it('returns the first page of 40 in primary-key order for an empty request', () => {
    assert.deepEqual(
      planSearch(Product, {}, settings),
      E.right({ conditions: [], term: null, order: [['id', 'ASC']], page: { page: 1, perPage: 40 }, trashed: false }),
    );
  });

  it('returns the $or and $and groups of the filter, trashed when a condition inside one is on deleted-at', () => {
    const plan = planOf({ filter: { $or: [{ name: 'a' }, { $and: [{ deletedAt: { nn: '1' } }] }] } });
    assert.deepEqual(plan.conditions, []);
    assert.equal(plan.groups?.[0]?.group, 'or');
    assert.equal(plan.trashed, true);
    assert.equal(planOf({ filter: { $or: [{ name: 'a' }] } }).trashed, false);
    const failed = planSearch(Product, { filter: { $or: [{ price: { gt: 'x' } }] }, sort: 'nope' }, settings);
    assert.deepEqual(
      E.mapLeft((items: { field: string | null }[]) => items.map((item) => item.field))(failed),
      E.left(['filter.$or.0.price', 'nope']),
    );
  });

  it('returns sort clauses by attribute name with the primary key as tiebreak', () => {
    assert.deepEqual(planOf({ sort: '-price,createdAt' }).order, [
      ['price', 'DESC'],
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ]);
  });

  it('returns sort failures naming the column as the client wrote it', () => {
    const plan = planSearch(Product, { sort: '-colourName,price' }, settings);
    assert.deepEqual(
      plan,
      E.left([{ field: 'colourName', error: 'columnNotFound', message: 'The sort column "colourName" was not found' }]),
    );
  });

  it('returns the page asked for, perPage capped at max_per_page (and marked lowered), or no page at all', () => {
    assert.deepEqual(planOf({ page: '3', perPage: '10' }).page, { page: 3, perPage: 10 });
    assert.deepEqual(planOf({ perPage: '9999' }).page, { page: 1, perPage: 500, lowered: true });
    assert.equal(planOf({ skipPagination: 'true' }).page, null);
    const lenient = {
      ...settings,
      config: { ...DEFAULT_CONFIG, search: { ...DEFAULT_CONFIG.search, strict_params: false } },
    };
    assert.equal(planOf({ page: '2' }, { ...lenient, paginate: false }).page, null);
  });

  it('returns unknownParameter for each parameter the action does not read, with the nearest known name, first among the failures', () => {
    const request: object = { perpage: '5', filters: { name: 'x' }, sort: 'colour', _start: '0' };
    const plan = planSearch(Product, request, settings);
    assert.deepEqual(E.isLeft(plan) && plan.left.map((f) => [f.field, f.error]), [
      ['perpage', 'unknownParameter'],
      ['filters', 'unknownParameter'],
      ['_start', 'unknownParameter'],
      ['colour', 'columnNotFound'],
    ]);
    assert.match(E.isLeft(plan) ? plan.left[0]!.message : '', /did you mean 'perPage'\?$/);
    assert.match(E.isLeft(plan) ? plan.left[1]!.message : '', /did you mean 'filter'\?$/);
    assert.doesNotMatch(E.isLeft(plan) ? plan.left[2]!.message : '', /did you mean/);
  });

  it('returns unknownParameter for the page parameters and include on an export (paginate false), which reads filter and sort only', () => {
    const plan = planSearch(Product, { page: '2', include: 'x', sort: 'name' }, { ...settings, paginate: false });
    assert.deepEqual(E.isLeft(plan) && plan.left.slice(0, 2).map((f) => [f.field, f.error]), [
      ['page', 'unknownParameter'],
      ['include', 'unknownParameter'],
    ]);
    assert.deepEqual(planOf({ filter: { name: 'x' }, sort: 'name' }, { ...settings, paginate: false }).page, null);
  });

  it('ignores unknown parameters with search.strict_params false', () => {
    const lenient = {
      ...settings,
      config: { ...DEFAULT_CONFIG, search: { ...DEFAULT_CONFIG.search, strict_params: false } },
    };
    assert.deepEqual(planOf({ perpage: '5', _sort: 'name' }, lenient).page, { page: 1, perPage: 40 });
    // An export reads no include, so without strict_params even a bad one is ignored, not checked.
    assert.equal(
      planOf({ include: 'not.a.relation', sort: 'name' }, { ...lenient, paginate: false }).include,
      undefined,
    );
  });

  it('returns trashed when a condition is on the deleted-at attribute', () => {
    assert.equal(planOf({ filter: { deleted_at: { nn: '1' } } }).trashed, true);
  });

  it('returns every failure at once', () => {
    const plan = planSearch(
      Product,
      { sort: 'colour', page: '0', perPage: 'x', skipPagination: 'maybe', filter: { nope: '1' } },
      settings,
    );
    assert.deepEqual(E.isLeft(plan) && plan.left.map((f) => f.field), ['nope', 'colour', 'skipPagination']);
    const pages = planSearch(Product, { page: '0', perPage: 'x' }, settings);
    assert.deepEqual(E.isLeft(pages) && pages.left.map((f) => f.field), ['page', 'perPage']);
  });
});
