/** The class form's hook methods typed by a model, for controllers made with `.for(Model)`. */
import type { Context } from 'koa';
import type { Attributes, FindOptions, Model, ModelStatic } from 'sequelize';
import type { OptionItem } from '../core/options-query.js';
import type { HookResult, WriteData } from '../resource/resource.js';

/**
 * A query as a hook of model M sees it.
 * @example const query: Query<Product> = { where: { price: 10 } };
 */
export type Query<M extends Model> = FindOptions<Attributes<M>>;

/** The search action's hooks (and `modifyFilters`, which exportCsv and options share), typed by the model. */
export interface SearchHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyFilters} */
  modifyFilters(filters: unknown): HookResult<unknown>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifySearchQuery} */
  modifySearchQuery(query: Query<M>): HookResult<Query<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterSearch} */
  afterSearch(rows: Record<string, unknown>[]): HookResult<Record<string, unknown>[]>;
}
/** The options action's hooks, typed by the model. */
export interface OptionsHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyFilters} */
  modifyFilters(filters: unknown): HookResult<unknown>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyOptionsQuery} */
  modifyOptionsQuery(query: Query<M>): HookResult<Query<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterOptions} */
  afterOptions(items: OptionItem[]): HookResult<OptionItem[]>;
}
/** The create action's hooks, typed by the model. */
export interface CreateHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.beforeCreateFill} */
  beforeCreateFill(data: WriteData<M>): HookResult<WriteData<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.beforeCreate} */
  beforeCreate(data: WriteData<M>): HookResult<WriteData<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterCreate} */
  afterCreate(record: M): void | Promise<void>;
}
/** The exportCsv action's hook, typed by the model. */
export interface ExportCsvHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyFilters} */
  modifyFilters(filters: unknown): HookResult<unknown>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyExportCsvQuery} */
  modifyExportCsvQuery(query: Query<M>): HookResult<Query<M>>;
}
/** The read action's hooks, typed by the model. */
export interface ReadHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyReadQuery} */
  modifyReadQuery(query: Query<M>): HookResult<Query<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterRead} */
  afterRead(record: M): void | Promise<void>;
}
/** The update action's hooks, typed by the model. */
export interface UpdateHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.beforeUpdateFill} */
  beforeUpdateFill(data: WriteData<M>): HookResult<WriteData<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyUpdateQuery} */
  modifyUpdateQuery(query: Query<M>): HookResult<Query<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.beforeUpdate} */
  beforeUpdate(record: M, data: WriteData<M>): HookResult<WriteData<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterUpdate} */
  afterUpdate(record: M): void | Promise<void>;
}
/** The delete action's hooks, typed by the model. */
export interface DeleteHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyDeleteQuery} */
  modifyDeleteQuery(query: Query<M>): HookResult<Query<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.beforeDelete} */
  beforeDelete(record: M): void | Promise<void>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterDelete} */
  afterDelete(record: M): void | Promise<void>;
}
/** The softDelete action's hooks, typed by the model. */
export interface SoftDeleteHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifySoftDeleteQuery} */
  modifySoftDeleteQuery(query: Query<M>): HookResult<Query<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.beforeSoftDelete} */
  beforeSoftDelete(record: M): void | Promise<void>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.softDeleteUserId} */
  softDeleteUserId(ctx: Context): unknown;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterSoftDelete} */
  afterSoftDelete(record: M): void | Promise<void>;
}
/** The restore action's hooks, typed by the model. */
export interface RestoreHooks<M extends Model> {
  /** {@inheritDoc koa-fast-crud!ResourceHooks.modifyRestoreQuery} */
  modifyRestoreQuery(query: Query<M>): HookResult<Query<M>>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.beforeRestore} */
  beforeRestore(record: M): void | Promise<void>;
  /** {@inheritDoc koa-fast-crud!ResourceHooks.afterRestore} */
  afterRestore(record: M): void | Promise<void>;
}

/**
 * `Hooks` when the controller instance T has the action, else nothing.
 * @example type H = HooksIf<CrudController, 'read', ReadHooks<Product>>; // ReadHooks<Product>
 */
export type HooksIf<T, Action extends string, Hooks> = T extends Record<Action, unknown> ? Hooks : unknown;

/** What `.for(model)` adds to every controller: `modelClassName()` typed by the model. */
export interface ServesModel<M extends Model> {
  /** The model this controller serves. */
  modelClassName(): ModelStatic<M>;
}

/**
 * A controller instance typed by its model: `modelClassName()` answers `ModelStatic<M>`, and the
 * hooks of the actions it has take `WriteData<M>`, `M` and `FindOptions<Attributes<M>>`.
 * @example class Products extends CrudController.for(Product) { override afterRead(record: Product) { record.price; } }
 */
export type TypedController<T, M extends Model> = T &
  ServesModel<M> &
  HooksIf<T, 'search', SearchHooks<M>> &
  HooksIf<T, 'options', OptionsHooks<M>> &
  HooksIf<T, 'create', CreateHooks<M>> &
  HooksIf<T, 'exportCsv', ExportCsvHooks<M>> &
  HooksIf<T, 'read', ReadHooks<M>> &
  HooksIf<T, 'update', UpdateHooks<M>> &
  HooksIf<T, 'delete', DeleteHooks<M>> &
  HooksIf<T, 'softDelete', SoftDeleteHooks<M>> &
  HooksIf<T, 'restore', RestoreHooks<M>>;
