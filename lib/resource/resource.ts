/** resource(): a model and what clients may do with it, typed by the model, as one value `crud` and OpenAPI read. */
import type { Context } from 'koa';
import type { Attributes, CreationAttributes, FindOptions, Model, ModelStatic, Transaction } from 'sequelize';
import type { OptionItem } from '../core/options-query.js';
import { CRUD_METHODS } from '../core/route-table.js';
import type { CrudMethod, CrudPlugin, FastCrudConfig } from '../types.js';

/**
 * The name of one of the model's attributes: a misspelt name is a compile error.
 * @example const name: AttributeName<Product> = 'price';
 */
export type AttributeName<M extends Model> = Extract<keyof Attributes<M>, string>;

/**
 * The associations declared on a model class (`declare category?: NonAttribute<Category>`), by name.
 * Sequelize's own `_model` (a type-only field of every instance) is not one.
 */
type AssociationName<M extends Model> = Exclude<{
  [K in keyof M]-?: NonNullable<M[K]> extends Model | readonly Model[] ? K : never;
}[keyof M] & string, '_model'>;

type Target<T> = NonNullable<T> extends readonly (infer E)[] ? E : NonNullable<T>;

/**
 * A CSV column: an attribute, or `association.attribute` one level into a declared association
 * (deeper paths are checked when `crud` is called).
 * @example const path: CsvPath<Product> = 'category.name';
 */
export type CsvPath<M extends Model> =
  | AttributeName<M>
  | { [K in AssociationName<M>]: Target<M[K]> extends Model ? `${K}.${AttributeName<Target<M[K]>> | `${string}.${string}`}` : never }[AssociationName<M>];

/**
 * Write data as hooks see it: the model's creation attributes, any of them.
 * @example const data: WriteData<Product> = { name: 'Kite' };
 */
export type WriteData<M extends Model> = Partial<CreationAttributes<M>>;

/** What a hook may return: nothing (keep the value it was given), or a replacement, maybe later. */
export type HookResult<T> = T | void | Promise<T | void>;

/**
 * The request a hook of a `resource()` runs in: the Koa context, the resolved configuration, the
 * model, and during a write its transaction (use it for your own queries).
 * @example afterCreate(record, { transaction }) { return AuditLog.create({ id: record.id }, { transaction }); }
 */
export interface HookContext<M extends Model = Model> {
  readonly ctx: Context;
  readonly config: FastCrudConfig;
  readonly model: ModelStatic<M>;
  readonly transaction: Transaction | undefined;
}

/**
 * The hooks of a `resource()`, each typed by the model; every one is optional and may be async.
 * A hook that returns nothing keeps what it was given; one that returns a value replaces it.
 * The names and order are the class form's (`CrudController`'s methods), with the request last.
 * @example { beforeCreate: (data, { ctx }) => ({ ...data, ownerId: ctx.state.user.id }) }
 */
export interface ResourceHooks<M extends Model> {
  modifyFilters?(filters: unknown, context: HookContext<M>): HookResult<unknown>;
  modifySearchQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  afterSearch?(rows: Record<string, unknown>[], context: HookContext<M>): HookResult<Record<string, unknown>[]>;
  modifyOptionsQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  afterOptions?(items: OptionItem[], context: HookContext<M>): HookResult<OptionItem[]>;
  beforeCreateFill?(data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  beforeCreate?(data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  afterCreate?(record: M, context: HookContext<M>): void | Promise<void>;
  modifyExportCsvQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  modifyReadQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  afterRead?(record: M, context: HookContext<M>): void | Promise<void>;
  beforeUpdateFill?(data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  modifyUpdateQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  beforeUpdate?(record: M, data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  afterUpdate?(record: M, context: HookContext<M>): void | Promise<void>;
  modifyDeleteQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  beforeDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  afterDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  modifySoftDeleteQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  beforeSoftDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  /** Who is soft-deleting, for the deleted-by column; default `ctx.state.user?.id ?? null`. */
  softDeleteUserId?(context: HookContext<M>): unknown;
  afterSoftDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  modifyRestoreQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  beforeRestore?(record: M, context: HookContext<M>): void | Promise<void>;
  afterRestore?(record: M, context: HookContext<M>): void | Promise<void>;
}

/** Every hook name, as the class form's methods and `ResourceHooks` spell them. */
export type HookName = keyof ResourceHooks<Model>;

/**
 * What a client may do with each attribute. `fillable` is required: a list, or `'all'` for every
 * writable attribute (all but the key, the timestamps and the soft-delete columns), so that writing
 * everything is a choice the code shows.
 * @example { fillable: ['name', 'price'], hidden: ['secret'] }
 */
export interface ResourcePolicy<M extends Model> {
  readonly fillable: readonly AttributeName<M>[] | 'all';
  /** Never serialized, filtered, sorted, nor used as an options label or value. */
  readonly hidden?: readonly AttributeName<M>[];
  /** Default: every attribute not hidden (JSON attributes never). */
  readonly sortable?: readonly AttributeName<M>[];
  /** Default: every attribute not hidden. */
  readonly filterable?: readonly AttributeName<M>[];
}

/** Everything `resource()` takes besides the model. */
export interface ResourceSpec<M extends Model> {
  readonly policy: ResourcePolicy<M>;
  /** The term search: the filter key (default `term`) and the columns it looks in, any of which may match. */
  readonly search?: { readonly termFields?: readonly AttributeName<M>[]; readonly termKey?: string };
  /** The export's columns with their headers (default: every visible attribute) and file name (default: the table name). */
  readonly csv?: { readonly columns?: { readonly [P in CsvPath<M>]?: string }; readonly fileName?: string };
  readonly hooks?: ResourceHooks<M>;
  /** Plugins that act on every action of this resource, after its hooks. */
  readonly plugins?: readonly CrudPlugin[];
  /** The actions to offer (default: all nine); `crud`'s `only`/`except` narrow them further. */
  readonly actions?: readonly CrudMethod[];
}

/**
 * A resource: one model, its policy, hooks, plugins and export settings. `crud(router, uri, resource)`
 * registers it; `openApiResource(uri, resource)` describes it. A plain, frozen value.
 */
export interface Resource<M extends Model = Model> {
  readonly kind: 'resource';
  /** The name errors and the OpenAPI document use: the model's name. */
  readonly name: string;
  readonly model: ModelStatic<M>;
  readonly spec: ResourceSpec<M>;
  readonly actions: readonly CrudMethod[];
}

/**
 * Makes a resource of a model. Every name is checked against the model's attributes by the
 * compiler, and again (with column names and association paths) when `crud` registers it.
 * @example
 * export const products = resource(Product, {
 *   policy: { fillable: ['sku', 'name', 'price'], hidden: ['secret'] },
 *   search: { termFields: ['name', 'sku'] },
 *   hooks: { beforeCreate: (data, { ctx }) => ({ ...data, createdBy: ctx.state.user.id }) },
 * });
 */
export function resource<M extends Model>(model: ModelStatic<M>, spec: ResourceSpec<M>): Resource<M> {
  return Object.freeze({ kind: 'resource', name: model.name, model, spec, actions: spec.actions ?? CRUD_METHODS });
}

/**
 * True for a value `resource()` made.
 * @example isResource(resource(Product, { policy: { fillable: 'all' } })) // true
 */
export function isResource(value: unknown): value is Resource {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'resource';
}
