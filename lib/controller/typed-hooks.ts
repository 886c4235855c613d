/** The class form's hook methods typed by a model, for controllers made with `.for(Model)`. */
import type { Context } from 'koa';
import type { Attributes, FindOptions, Model, ModelStatic } from 'sequelize';
import type { OptionItem } from '../core/options-query.js';
import type { HookResult, WriteData } from '../resource/resource.js';

type Query<M extends Model> = FindOptions<Attributes<M>>;

/** The search action's hooks (and `modifyFilters`, which exportCsv shares), typed by the model. */
export interface SearchHooks<M extends Model> {
  modifyFilters(filters: unknown): HookResult<unknown>;
  modifySearchQuery(query: Query<M>): HookResult<Query<M>>;
  afterSearch(rows: Record<string, unknown>[]): HookResult<Record<string, unknown>[]>;
}
/** The options action's hooks, typed by the model. */
export interface OptionsHooks<M extends Model> {
  modifyOptionsQuery(query: Query<M>): HookResult<Query<M>>;
  afterOptions(items: OptionItem[]): HookResult<OptionItem[]>;
}
/** The create action's hooks, typed by the model. */
export interface CreateHooks<M extends Model> {
  beforeCreateFill(data: WriteData<M>): HookResult<WriteData<M>>;
  beforeCreate(data: WriteData<M>): HookResult<WriteData<M>>;
  afterCreate(record: M): void | Promise<void>;
}
/** The exportCsv action's hook, typed by the model. */
export interface ExportCsvHooks<M extends Model> {
  modifyFilters(filters: unknown): HookResult<unknown>;
  modifyExportCsvQuery(query: Query<M>): HookResult<Query<M>>;
}
/** The read action's hooks, typed by the model. */
export interface ReadHooks<M extends Model> {
  modifyReadQuery(query: Query<M>): HookResult<Query<M>>;
  afterRead(record: M): void | Promise<void>;
}
/** The update action's hooks, typed by the model. */
export interface UpdateHooks<M extends Model> {
  beforeUpdateFill(data: WriteData<M>): HookResult<WriteData<M>>;
  modifyUpdateQuery(query: Query<M>): HookResult<Query<M>>;
  beforeUpdate(record: M, data: WriteData<M>): HookResult<WriteData<M>>;
  afterUpdate(record: M): void | Promise<void>;
}
/** The delete action's hooks, typed by the model. */
export interface DeleteHooks<M extends Model> {
  modifyDeleteQuery(query: Query<M>): HookResult<Query<M>>;
  beforeDelete(record: M): void | Promise<void>;
  afterDelete(record: M): void | Promise<void>;
}
/** The softDelete action's hooks, typed by the model. */
export interface SoftDeleteHooks<M extends Model> {
  modifySoftDeleteQuery(query: Query<M>): HookResult<Query<M>>;
  beforeSoftDelete(record: M): void | Promise<void>;
  softDeleteUserId(ctx: Context): unknown;
  afterSoftDelete(record: M): void | Promise<void>;
}
/** The restore action's hooks, typed by the model. */
export interface RestoreHooks<M extends Model> {
  modifyRestoreQuery(query: Query<M>): HookResult<Query<M>>;
  beforeRestore(record: M): void | Promise<void>;
  afterRestore(record: M): void | Promise<void>;
}

type If<T, Action extends string, Hooks> = T extends Record<Action, unknown> ? Hooks : unknown;

/**
 * A controller instance typed by its model: `modelClassName()` answers `ModelStatic<M>`, and the
 * hooks of the actions it has take `WriteData<M>`, `M` and `FindOptions<Attributes<M>>`.
 * @example class Products extends CrudController.for(Product) { override afterRead(record: Product) { record.price; } }
 */
export type TypedController<T, M extends Model> = T & { modelClassName(): ModelStatic<M> } &
  If<T, 'search', SearchHooks<M>> & If<T, 'options', OptionsHooks<M>> & If<T, 'create', CreateHooks<M>> &
  If<T, 'exportCsv', ExportCsvHooks<M>> & If<T, 'read', ReadHooks<M>> &
  If<T, 'update', UpdateHooks<M>> & If<T, 'delete', DeleteHooks<M>> & If<T, 'softDelete', SoftDeleteHooks<M>> &
  If<T, 'restore', RestoreHooks<M>>;
