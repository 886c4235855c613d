/**
 * docs/guide/validation.md: create and update bodies validated by zod schemas, in both forms, and a
 * ZodError thrown by a hook. spec/docs/validation-page.spec.ts sends every request the page shows
 * to this app and compares the replies with the page.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { z } from 'zod';
import { CrudController, crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export const Product = sequelize.define(
  'ValidatedProduct',
  {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    sku: { type: DataTypes.STRING(20), allowNull: false, unique: true },
    name: { type: DataTypes.STRING(60), allowNull: false },
    price: { type: DataTypes.DECIMAL(10, 2), allowNull: false },
    tags: { type: DataTypes.JSON, allowNull: true },
  },
  { tableName: 'validated_products', timestamps: false },
);

// #region schemas
const product = z.object({
  // A transform: what the schema outputs is what gets written.
  sku: z.string().trim().toUpperCase().regex(/^[A-Z]{2}-\d{3}$/, 'Use two letters, a dash and three digits'),
  name: z.string().min(2),
  // z.coerce: a form body sends the price as text.
  price: z.coerce.number().positive(),
  tags: z.array(z.object({ name: z.string().min(1) })).max(5).optional(),
});

/** Create: every field above. */
export const createProduct = product;
/** Update: a partial body, so each field is optional. */
export const updateProduct = product.partial();
// #endregion schemas

// #region resource
export const products = resource(Product, {
  policy: { fillable: ['sku', 'name', 'price', 'tags'] },
  validate: { create: createProduct, update: updateProduct },
});
// #endregion resource

// #region class
export class ProductController extends CrudController {
  override fillable = ['sku', 'name', 'price', 'tags'];
  override createValidateRules = createProduct;
  override updateValidateRules = updateProduct;

  modelClassName() {
    return Product;
  }
}
// #endregion class

// #region hook
const pricing = z.object({ price: z.number().max(1000, 'Prices over 1000 need a manager') });

export const guarded = resource(Product, {
  policy: { fillable: ['sku', 'name', 'price'] },
  hooks: {
    // The ZodError that parse throws is answered like a failed schema.
    beforeCreate(data) {
      pricing.parse(data);
    },
  },
});
// #endregion hook

const router = new Router({ prefix: '/api' });
crud(router, 'products', products);
crud(router, 'catalog', ProductController);
crud(router, 'guarded', guarded);
// #region status
crud(router, 'strict-products', products, { config: { global: { validation: { http_status: 422 } } } });
// #endregion status

export const app = new Koa().use(router.routes()).use(router.allowedMethods());
