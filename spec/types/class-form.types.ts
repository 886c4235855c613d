/**
 * Type tests of the class form: `CrudController.for(Model)` types the hook overrides by the model,
 * `override` of a hook the class lacks is an error (noImplicitOverride), and plain class-form code
 * written before `.for()` still compiles. Only type-checked, never run.
 */
import type Router from '@koa/router';
import type { Attributes, FindOptions, Model, ModelStatic } from 'sequelize';
import { BaseController, CrudController, Options, crud, tenantScope, type WriteData } from '../../lib/index.js';
import { Loose, Product, Tag } from './models.types.js';
import { z } from 'zod';

declare const router: Router;

/** Proves at compile time that `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_proof: T): void {}

/** Correct: the hooks take the model's types. */
export class ProductController extends CrudController.for(Product) {
  override hidden = ['password'];
  override fillable = ['name', 'price'];
  override termFields = ['name'];
  override beforeCreate(data: WriteData<Product>) {
    return { ...data, price: (data.price ?? 0) + 1 };
  }
  override afterRead(record: Product) {
    void record.category?.name;
  }
  override modifySearchQuery(query: FindOptions<Attributes<Product>>) {
    return { ...query, where: { price: 1 } };
  }
}

expectType<Equal<ReturnType<ProductController['modelClassName']>, ModelStatic<Product>>>(true);

crud(router, 'products', ProductController, {
  plugins: [tenantScope('tenantId', (ctx) => ctx.get('x-tenant') || undefined)],
});

/** A misspelt hook override. */
export class MisspeltHook extends CrudController.for(Product) {
  // @ts-expect-error CrudController has no beforeCreat to override
  override beforeCreat(data: WriteData<Product>) {
    return data;
  }
}

/** A hook of an action the controller lacks: options only, so no beforeCreate. */
export class TagController extends Options(BaseController).for(Tag) {
  override modifyOptionsQuery(query: FindOptions<Attributes<Tag>>) {
    return query;
  }
  // @ts-expect-error an options-only controller has no beforeCreate
  override beforeCreate(data: WriteData<Tag>) {
    return data;
  }
}

/** Wrong hook argument and return types. */
export class WrongTypes extends CrudController.for(Product) {
  // @ts-expect-error price is a number, not a string
  override beforeCreate() {
    return { price: 'cheap' };
  }
  override afterRead(record: Product) {
    // @ts-expect-error Product has no attribute nonexistent
    void record.nonexistent;
  }
  // @ts-expect-error record is a Product, not a string
  override afterUpdate(record: string) {
    void record;
  }
}

/** Class-form code written before `.for()`: untyped hooks still compile. */
export class PlainProducts extends CrudController {
  override hidden = ['password'];
  override fillable = 'all' as const;
  modelClassName() {
    return Product;
  }
  override beforeCreate(data: Record<string, unknown>) {
    return { ...data, name: String(data['name']).trim() };
  }
  override afterRead(record: Model) {
    void record.get('name');
  }
  override modifyReadQuery(query: FindOptions) {
    return { ...query, include: [{ association: 'category' }] };
  }
}

crud(router, 'plain', PlainProducts, { except: ['exportCsv'] });

/** An untyped define model through `.for()`: any hook data compiles; registration checks the names. */
export class LooseController extends CrudController.for(Loose) {
  override fillable = ['cod'];
  override beforeCreate(data: WriteData<InstanceType<typeof Loose>>) {
    return { ...data, whatever: 1 };
  }
}

// @ts-expect-error no action is called serch
crud(router, 'plain', PlainProducts, { only: ['serch'] });

/** fillable: a list of names, or 'all' (as const, or readonly, so that it stays the literal); nothing else. */
export class EverythingController extends CrudController.for(Product) {
  override readonly fillable = 'all';
}
export class WrongFillable extends CrudController.for(Product) {
  // @ts-expect-error fillable is a list or 'all', not another string
  override fillable = 'everything' as const;
}

// The class form's validation rules: any Standard Schema, or none; not anything else.
export class ValidatedController extends CrudController.for(Product) {
  override createValidateRules = z.object({ name: z.string().min(2) });
  override updateValidateRules = undefined;
}
export class WronglyValidatedController extends CrudController.for(Product) {
  // @ts-expect-error a parse function is not a Standard Schema
  override createValidateRules = { parse: (body: unknown) => body };
}
