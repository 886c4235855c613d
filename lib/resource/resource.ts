/** resource(): a model and what clients may do with it, typed by the model, as one value `crud` and OpenAPI read. */
import type { AggregateDeclaration } from '../core/aggregate-policy.js';
import type { Context } from 'koa';
import type { Attributes, CreationAttributes, FindOptions, Model, ModelStatic, Transaction } from 'sequelize';
import type { FullTextOption } from '../core/full-text.js';
import type { OptionItem } from '../core/options-query.js';
import { CRUD_METHODS } from '../core/route-table.js';
import type { StandardSchemaV1 } from '../core/standard-schema.js';
import type { CrudMethod, CrudPlugin, FastCrudConfig } from '../types.js';

/**
 * The name of one of the model's attributes: a misspelt name is a compile error.
 * @example const name: AttributeName<Product> = 'price';
 */
export type AttributeName<M extends Model> = Extract<keyof Attributes<M>, string>;

/**
 * The single-valued associations declared on a model class (`declare category?: NonAttribute<Category>`), by name.
 * Sequelize's own `_model` (a type-only field of every instance) is not one.
 * @example const name: AssociationName<Product> = 'category';
 */
export type AssociationName<M extends Model> = Exclude<
  { [K in keyof M]-?: NonNullable<M[K]> extends Model ? K : never }[keyof M] & string,
  '_model'
>;

/**
 * The associations declared on a model class, single-valued (`NonAttribute<Category>`) or many
 * (`NonAttribute<Tag[]>`), by name, with the model each reaches.
 * @example type T = AssociatedModels<Product>['tags']; // Tag
 */
export type AssociatedModels<M extends Model> = {
  [
    K in Exclude<keyof M & string, '_model'> as NonNullable<M[K]> extends Model | readonly Model[] ? K : never
  ]: NonNullable<M[K]> extends readonly (infer T extends Model)[] ? T : NonNullable<M[K]>;
};

/**
 * What a resource opens of one association: the attributes kept from clients (`hidden`), those
 * filters and sorts may name (default: every one not hidden), whether `include` may load it, and
 * whether a create or update body may write it (`write`, with a has-many's `fillable`).
 * @example { hidden: ['secret'], filterable: ['name'], include: true }
 */
export interface RelationSpec<T extends Model> {
  readonly hidden?: readonly AttributeName<T>[];
  readonly filterable?: readonly AttributeName<T>[];
  readonly sortable?: readonly AttributeName<T>[];
  readonly include?: boolean;
  /**
   * True when a create or update body may write the association (`"tags": [1, 3]` for a belongs-to-many, nested rows
   * for a has-many on create); default false.
   */
  readonly write?: boolean;
  /** The attributes each nested row of a has-many opened with `write` may set: required for has-many. */
  readonly fillable?: readonly AttributeName<T>[];
}

/**
 * The association paths a resource opens, typed by the associated model where the model class
 * declares it; deeper paths (`order.customer`) and `define` models take strings, checked when `crud` is called.
 * @example
 * const relations: RelationSpecs<Product> = {
 *   category: { include: true },
 *   'order.customer': { filterable: ['email'] },
 * };
 */
export type RelationSpecs<M extends Model> =
  string extends AttributeName<M>
    ? Readonly<Record<string, RelationSpec<Model>>>
    : {
        readonly [K in keyof AssociatedModels<M>]?: AssociatedModels<M>[K] extends infer T extends Model
          ? RelationSpec<T>
          : never;
      } & {
        readonly [path: `${string}.${string}`]: RelationSpec<Model>;
      };

/**
 * A CSV column: an attribute, or `association.attribute` one level into a declared association
 * (deeper paths are checked when `crud` is called).
 * @example const path: CsvPath<Product> = 'category.name';
 */
export type CsvPath<M extends Model> =
  | AttributeName<M>
  | {
      [K in AssociationName<M>]: NonNullable<M[K]> extends infer T extends Model
        ? `${K}.${AttributeName<T> | `${string}.${string}`}`
        : never;
    }[AssociationName<M>];

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
  /** Search, exportCsv and options: the parsed `filter` object, before it is checked; return the filters to use. */
  modifyFilters?(filters: unknown, context: HookContext<M>): HookResult<unknown>;
  /** Search: the compiled find options, before they run; change them in place or return new ones. */
  modifySearchQuery?(
    query: FindOptions<Attributes<M>>,
    context: HookContext<M>,
  ): HookResult<FindOptions<Attributes<M>>>;
  /** Search: the serialized rows, before the reply; change them in place or return new ones. */
  afterSearch?(rows: Record<string, unknown>[], context: HookContext<M>): HookResult<Record<string, unknown>[]>;
  /** Options: the planned find options, before they run (spec options rule 6). */
  modifyOptionsQuery?(
    query: FindOptions<Attributes<M>>,
    context: HookContext<M>,
  ): HookResult<FindOptions<Attributes<M>>>;
  /** Options: the `{label, value}` items, before the reply (spec options rule 8). */
  afterOptions?(items: OptionItem[], context: HookContext<M>): HookResult<OptionItem[]>;
  /** Create: the client's fillable fields, before anything else; return the fields to use. */
  beforeCreateFill?(data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  /** Create: inside the transaction, just before the insert; return the data to write. */
  beforeCreate?(data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  /** Create: inside the transaction, with the created record; throwing rolls the insert back. */
  afterCreate?(record: M, context: HookContext<M>): void | Promise<void>;
  /** ExportCsv: the compiled find options, before the first batch. */
  modifyExportCsvQuery?(
    query: FindOptions<Attributes<M>>,
    context: HookContext<M>,
  ): HookResult<FindOptions<Attributes<M>>>;
  /** Read: the `{id}` lookup, before it runs. */
  modifyReadQuery?(query: FindOptions<Attributes<M>>, context: HookContext<M>): HookResult<FindOptions<Attributes<M>>>;
  /** Read: the found record, before the reply. */
  afterRead?(record: M, context: HookContext<M>): void | Promise<void>;
  /** Update: the client's fillable fields, before anything else; return the fields to use. */
  beforeUpdateFill?(data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  /** Update: the `{id}` lookup, inside the transaction, before it runs. */
  modifyUpdateQuery?(
    query: FindOptions<Attributes<M>>,
    context: HookContext<M>,
  ): HookResult<FindOptions<Attributes<M>>>;
  /** Update: inside the transaction, with the record and the fields about to be written; return the fields to write. */
  beforeUpdate?(record: M, data: WriteData<M>, context: HookContext<M>): HookResult<WriteData<M>>;
  /** Update: inside the transaction, with the updated record; throwing rolls the update back. */
  afterUpdate?(record: M, context: HookContext<M>): void | Promise<void>;
  /** Delete: the `{id}` lookup, inside the transaction, before it runs. */
  modifyDeleteQuery?(
    query: FindOptions<Attributes<M>>,
    context: HookContext<M>,
  ): HookResult<FindOptions<Attributes<M>>>;
  /** Delete: inside the transaction, before the row goes; throw to keep it. */
  beforeDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  /** Delete: inside the transaction, after the row went; throwing brings it back. */
  afterDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  /** SoftDelete: the `{id}` lookup, inside the transaction, before it runs. */
  modifySoftDeleteQuery?(
    query: FindOptions<Attributes<M>>,
    context: HookContext<M>,
  ): HookResult<FindOptions<Attributes<M>>>;
  /** SoftDelete: inside the transaction, before the row is marked; changes to the record are saved with the mark. */
  beforeSoftDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  /** SoftDelete: who is soft-deleting, for the deleted-by column; default `ctx.state.user?.id ?? null`. */
  softDeleteUserId?(context: HookContext<M>): unknown;
  /** SoftDelete: inside the transaction, after the row was marked; throwing undoes the mark. */
  afterSoftDelete?(record: M, context: HookContext<M>): void | Promise<void>;
  /** Restore: the `{id}` lookup (soft-deleted rows only), inside the transaction, before it runs. */
  modifyRestoreQuery?(
    query: FindOptions<Attributes<M>>,
    context: HookContext<M>,
  ): HookResult<FindOptions<Attributes<M>>>;
  /** Restore: inside the transaction, before the marks are cleared; changes to the record are saved with it. */
  beforeRestore?(record: M, context: HookContext<M>): void | Promise<void>;
  /** Restore: inside the transaction, after the marks were cleared; throwing undoes the restore. */
  afterRestore?(record: M, context: HookContext<M>): void | Promise<void>;
}

/** Every hook name, as the class form's methods and `ResourceHooks` spell them. */
export type HookName = keyof ResourceHooks<Model>;

/**
 * What a client may do with each attribute. `fillable` is required: a list, or `'all'` for every
 * writable attribute (all but the key, the timestamps and the soft-delete columns), so that writing
 * everything is a choice the code shows. A resource without it (from JavaScript) is refused when
 * `crud` registers create or update.
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

/**
 * The schemas a create or update body must pass, through the Standard Schema interface, so zod,
 * valibot, arktype or any other implementation works. A schema checks the body as the client sent
 * it (a form body's values are strings); its output, after transforms, is what gets written,
 * limited to fillable fields. A failure answers the validation status with one `schema` item per issue.
 * @example
 * ({
 *   create: z.object({ name: z.string().min(2), price: z.number().positive() }),
 *   update: z.object({ name: z.string().min(2).optional() }),
 * })
 */
export interface ResourceValidation {
  /** The schema of a create body (the class form's `createValidateRules`). */
  readonly create?: StandardSchemaV1 | undefined;
  /** The schema of an update body, a partial one (the class form's `updateValidateRules`). */
  readonly update?: StandardSchemaV1 | undefined;
}

/** Everything `resource()` takes besides the model. */
export interface ResourceSpec<M extends Model> {
  readonly policy: ResourcePolicy<M>;
  /**
   * The term search: the filter key (default `term`) and the columns it looks in, any of which may match; `fullText`
   * searches them by words in a full-text index (made by `fullTextIndex`) instead of LIKE's "contains".
   */
  readonly search?: {
    readonly termFields?: readonly AttributeName<M>[];
    readonly termKey?: string;
    /** True, or `{ language }` (PostgreSQL's text search configuration, default `simple`); default false: LIKE. */
    readonly fullText?: FullTextOption;
  };
  /**
   * The export's columns with their headers (default: every visible attribute) and file name (default: the table name).
   */
  readonly csv?: { readonly columns?: { readonly [P in CsvPath<M>]?: string }; readonly fileName?: string };
  /** Schemas the create and update bodies must pass (the class form's `createValidateRules`/`updateValidateRules`). */
  readonly validate?: ResourceValidation;
  readonly hooks?: ResourceHooks<M>;
  /** Plugins that act on every action of this resource, after its hooks. */
  readonly plugins?: readonly CrudPlugin[];
  /**
   * Association paths clients may filter (`filter[category.name]`), sort (`sort=category.name`,
   * belongs-to and has-one only) and include (`include=category`) through; a path not listed is closed.
   */
  readonly relations?: RelationSpecs<M>;
  /**
   * True: the batch routes too — `POST <uri>` with an array body creates many, and `PATCH <uri>?filter[...]`,
   * `DELETE <uri>?filter[...]`, `DELETE <uri>/soft?filter[...]` and `PATCH <uri>/restore?filter[...]` act on every
   * record the filter matches, in one transaction, at most `batch.max_records` (the class form's `batch` field).
   */
  readonly batch?: boolean;
  /**
   * True: the change feed too — `GET <uri>/changes` streams an event for each committed write of the model
   * (Server-Sent Events; see the live updates guide), and every write records its event in the outbox model
   * `FastCrudChange` (the class form's `live` field).
   */
  readonly live?: boolean;
  /**
   * `true`: the aggregates route too — `GET <uri>/aggregate?aggregate[count]=*&aggregate[sum]=price&groupBy=status`
   * answers counts, sums, averages, minimums and maximums by group, under search's permission. `true` groups by every
   * filterable column (and belongs-to path the relations open) and measures every filterable numeric column; an
   * object narrows each list (`{ groupBy: ['status'], sum: ['price'] }`). Closed when absent (the class form's
   * `aggregate` field). See the aggregates guide.
   */
  readonly aggregate?: AggregateDeclaration;
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
