/**
 * Type tests of `resource()`: misspelt names, hooks and CSV paths are compile errors, and the
 * correct forms compile clean. Only type-checked (by `tsc -p tsconfig.json` in `npm test`), never run.
 * Each `@ts-expect-error` sits right above the one short line that holds its error.
 */
import type Router from '@koa/router';
import type { Attributes, FindOptions } from 'sequelize';
import { crud, resource, tenantScope, type WriteData } from '../../lib/index.js';
import { Item, Loose, Product } from './models.types.js';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';

declare const router: Router;

/** Proves at compile time that `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_proof: T): void {}

// Correct forms compile clean, and hooks see the model's types.
export const products = resource(Product, {
  policy: { fillable: ['name', 'price'], hidden: ['password'], sortable: ['price'], filterable: ['name'] },
  search: { termFields: ['name'] },
  csv: { columns: { name: 'Name', 'category.name': 'Category', price: 'Price' }, fileName: 'products' },
  plugins: [tenantScope('tenantId', (ctx) => (ctx.state as { tenant?: string }).tenant)],
  hooks: {
    beforeCreate(data) {
      expectType<Equal<typeof data, WriteData<Product>>>(true);
      return { ...data, price: (data.price ?? 0) + 1 };
    },
    afterRead(record) {
      expectType<Equal<typeof record, Product>>(true);
      void record.category?.name;
    },
    modifySearchQuery(query) {
      expectType<Equal<typeof query, FindOptions<Attributes<Product>>>>(true);
      return { ...query, where: { price: 1 } };
    },
    beforeUpdate: (record, data) => ({ ...data, name: record.name.trim() }),
  },
});

export const everything = resource(Product, { policy: { fillable: 'all' } });

crud(router, 'products', products, { only: ['search', 'read'], except: ['restore'] });

// Misspelt policy names.
resource(Product, {
  policy: {
    // @ts-expect-error 'nme' is not an attribute of Product
    fillable: ['nme'],
    // @ts-expect-error 'pasword' is not an attribute of Product
    hidden: ['pasword'],
    // @ts-expect-error 'prce' is not an attribute of Product
    sortable: ['prce'],
    // @ts-expect-error 'nam' is not an attribute of Product
    filterable: ['nam'],
  },
  // @ts-expect-error 'nmae' is not an attribute of Product
  search: { termFields: ['nmae'] },
});

// A fillable that is neither a list nor 'all'.
// @ts-expect-error only 'all' stands for every attribute
resource(Product, { policy: { fillable: 'every' } });

// An association is not an attribute: it cannot be hidden.
// @ts-expect-error 'category' is a NonAttribute
resource(Product, { policy: { fillable: [], hidden: ['category'] } });

// A misspelt hook is an excess property.
resource(Product, {
  policy: { fillable: 'all' },
  hooks: {
    // @ts-expect-error no hook is called beforeCreat
    beforeCreat: (data: WriteData<Product>) => data,
  },
});

// Wrong hook argument and return types.
resource(Product, {
  policy: { fillable: 'all' },
  hooks: {
    // @ts-expect-error price is a number, not a string
    beforeCreate: () => ({ price: 'cheap' }),
    afterRead(record) {
      // @ts-expect-error Product has no attribute nonexistent
      void record.nonexistent;
    },
  },
});

// Misspelt CSV paths: an association's attribute, and an attribute.
resource(Product, {
  policy: { fillable: 'all' },
  // @ts-expect-error Category has no attribute nme
  csv: { columns: { 'category.nme': 'Category' } },
});
resource(Product, {
  policy: { fillable: 'all' },
  // @ts-expect-error Product has no attribute nme
  csv: { columns: { nme: 'Name' } },
});
resource(Product, {
  policy: { fillable: 'all' },
  // @ts-expect-error Product has no association categry
  csv: { columns: { 'categry.name': 'Category' } },
});
resource(Product, {
  policy: { fillable: 'all' },
  // @ts-expect-error _model is Sequelize's type-only field, not an association
  csv: { columns: { '_model.name': 'Name' } },
});

// Misspelt only / except entries and actions.
// @ts-expect-error no action is called serch
crud(router, 'products', products, { only: ['serch'] });
// @ts-expect-error no action is called softdelete
crud(router, 'products', products, { except: ['softdelete'] });
// @ts-expect-error no action is called remove
resource(Product, { policy: { fillable: 'all' }, actions: ['remove'] });

// A model made with sequelize.define<ItemInstance>(…): typos are caught, hooks are typed.
export const items = resource(Item, {
  policy: { fillable: ['label', 'weight'], sortable: ['weight'] },
  search: { termFields: ['label'] },
  hooks: { beforeCreate: (data) => ({ ...data, weight: data.weight ?? 0 }) },
});
// @ts-expect-error 'wieght' is not an attribute of Item
resource(Item, { policy: { fillable: ['wieght'] } });
resource(Item, {
  policy: { fillable: 'all' },
  // @ts-expect-error weight is a number, not a string
  hooks: { beforeCreate: () => ({ weight: 'heavy' }) },
});

// A model made with an untyped sequelize.define: its attributes are `any` to the compiler, so any
// name compiles here. registration (crud, openApiResource) checks such names against the model
// and throws with the nearest valid name (spec/http/registration.spec.ts).
export const loose = resource(Loose, { policy: { fillable: ['cod', 'anything'] }, search: { termFields: ['nope'] } });

// Validation schemas: any Standard Schema (zod, valibot, arktype) compiles; anything else does not.
export const validated = resource(Product, {
  policy: { fillable: ['name', 'price'] },
  validate: { create: z.object({ name: z.string().min(2) }), update: v.partial(v.object({ name: v.string() })) },
});
export const arkValidated = resource(Product, {
  policy: { fillable: 'all' },
  validate: { create: type({ name: 'string' }) },
});
export const unvalidated = resource(Product, {
  policy: { fillable: 'all' },
  // @ts-expect-error a function is not a Standard Schema
  validate: { create: (body: unknown) => body },
});
