/** Models the type tests share: class models, a typed `define` model and an untyped one. Only type-checked, never run. */
import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type ModelStatic,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';

declare const sequelize: Sequelize;

/** A category, the target of Product's association. */
export class Category extends Model<InferAttributes<Category>, InferCreationAttributes<Category>> {
  declare id: CreationOptional<string>;
  declare name: string;
}

/** A product: a number, a hidden secret, a tenant and a declared association. */
export class Product extends Model<InferAttributes<Product>, InferCreationAttributes<Product>> {
  declare id: CreationOptional<string>;
  declare name: string;
  declare price: number;
  declare password: string | null;
  declare tenantId: string;
  declare categoryId: string | null;
  declare category?: NonAttribute<Category>;
}

/** A tag: served by a controller that only has the options action. */
export class Tag extends Model<InferAttributes<Tag>, InferCreationAttributes<Tag>> {
  declare id: CreationOptional<string>;
  declare title: string;
}

/** The attributes of the typed `define` model. */
export interface ItemAttributes {
  id: number;
  label: string;
  weight: number;
}

/** An instance of the typed `define` model: `sequelize.define<ItemInstance>(…)`. */
export interface ItemInstance extends Model<ItemAttributes, Partial<ItemAttributes>>, ItemAttributes {}

/** A model made with `sequelize.define<ItemInstance>`: its names are checked like a class model's. */
export const Item: ModelStatic<ItemInstance> = sequelize.define<ItemInstance>('Item', {
  id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
  label: DataTypes.STRING,
  weight: DataTypes.INTEGER,
});

/**
 * A model made with an untyped `sequelize.define`: its attributes are `any` to the compiler, so any
 * string compiles as a name. Such models are checked at registration instead (spec/http/registration.spec.ts).
 */
export const Loose = sequelize.define('Loose', {
  id: { type: DataTypes.INTEGER, primaryKey: true },
  code: DataTypes.STRING,
});
