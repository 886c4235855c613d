/** bindResource: a resource resolved against one configuration and checked, once, when `crud` registers it. */
import { Model as SequelizeModel, type Model, type ModelStatic } from 'sequelize';
import { findColumn } from '../core/columns.js';
import { fullTextColumnProblems, fullTextProblems, type FullTextOption } from '../core/full-text.js';
import {
  aggregateDeclarationProblems,
  resolveAggregatePolicy,
  type AggregatePolicy,
} from '../core/aggregate-policy.js';
import { resolvePolicy } from '../core/field-policy.js';
import { resolveRelations } from '../core/relation-policy.js';
import { isParanoid } from '../compile/soft-delete.js';
import { planRowShape, type RowShape, type ShapeModel } from '../core/row-shape.js';
import { checkResource } from '../core/resource-check.js';
import { isStandardSchema } from '../core/standard-schema.js';
import type { CrudMethod, CrudPlugin, FastCrudConfig, FieldPolicy } from '../types.js';
import type { RelationDeclarations } from '../core/relation-policy.js';
import type { Resource, ResourceHooks, ResourcePolicy, ResourceValidation } from './resource.js';

/**
 * What every action reads: the model, the configuration, the resolved field policy, the term
 * search, the export settings, the soft-delete columns and the plugins. Computed once per
 * registration, never per request.
 */
export interface BoundResource<M extends Model = Model> {
  /** The controller's or model's name, for messages. */
  readonly name: string;
  readonly model: ModelStatic<M>;
  readonly config: FastCrudConfig;
  readonly policy: FieldPolicy;
  readonly termKey: string;
  readonly termFields: readonly string[];
  /** `search.fullText`: the term search's words are found in a full-text index; undefined: LIKE. */
  readonly fullText: FullTextOption | undefined;
  readonly csvColumns: Readonly<Record<string, string>> | undefined;
  readonly csvFileName: string | undefined;
  /** The deleted-at attribute (`soft_delete.deleted_at_field`), when the model has one. */
  readonly deletedAt: string | undefined;
  /** The deleted-by attribute (`soft_delete.deleted_by_field`), when the model has one. */
  readonly deletedBy: string | undefined;
  /** True for a `paranoid` model: Sequelize owns its deleted-at column. */
  readonly paranoid: boolean;
  /** The schemas create and update bodies must pass. */
  readonly validate: ResourceValidation;
  /** The resource form's hooks; the class form's are the controller's methods. */
  readonly hooks: ResourceHooks<M>;
  /** The resource's plugins, then the `crud` call's, then the app's. */
  readonly plugins: readonly CrudPlugin[];
  /** The declarations it was bound from, as one string: the class form compares a request's with it. */
  readonly declarationKey: string;
  /** How search reads rows: raw rows of the visible attributes (the fast path), or instances, and why. */
  readonly searchShape: RowShape;
  /** True when the resource declared `batch: true`: create takes an array body, and the batch routes are served. */
  readonly batch: boolean;
  /** True when the resource declared `live: true`: its writes record change events, and its feed is served. */
  readonly live: boolean;
  /** The aggregate policy when the resource declared `aggregate`; undefined: the aggregates route is not served. */
  readonly aggregate: AggregatePolicy | undefined;
  /** The actions `crud` registered routes for (none when bound outside `crud`): create's `Location` needs read's. */
  readonly routed: readonly CrudMethod[];
}

/**
 * Resolves a resource against a configuration and checks it: throws a TypeError naming `label`
 * (`crud('products', ProductController)`), the key, the bad value and the nearest valid name for
 * an uninitialised model, unknown names, csv paths, a find field a uuid route cannot reach (or that is
 * one column of a composite key), a validation schema that is not a Standard Schema, create or update
 * without a declared `fillable`, a configured column name that is hidden or a near miss, or a plugin's
 * own complaint. `methods` are the actions being registered.
 * @example unsafeBindResource(products, config, [], ['search', 'read'], "crud('products')")
 */
export function unsafeBindResource<M extends Model>(
  resource: Resource<M>,
  config: FastCrudConfig,
  plugins: readonly CrudPlugin[],
  methods: readonly CrudMethod[],
  label: string,
): BoundResource<M> {
  const { model, spec } = resource;
  if (model.sequelize === undefined || model.getAttributes() === undefined) {
    throw new TypeError(
      `${label}: the model ${model.name} is not initialised: call ${model.name}.init(attributes, { sequelize }) or ` +
        `sequelize.define(…) before registering it`,
    );
  }
  const all = [...(spec.plugins ?? []), ...plugins];
  // The compiler requires a policy with fillable; JavaScript callers and the class form may leave them out.
  const declaredPolicy: Partial<ResourcePolicy<M>> = spec.policy ?? {};
  const declared = {
    hidden: declaredPolicy.hidden,
    fillable: declaredPolicy.fillable,
    sortable: declaredPolicy.sortable,
    filterable: declaredPolicy.filterable,
    termFields: spec.search?.termFields,
    csvColumns: spec.csv?.columns as Readonly<Record<string, string>> | undefined,
    relations: spec.relations as RelationDeclarations | undefined,
  };
  const problems = [
    ...checkResource(model, declared, config, methods),
    ...validationProblems(spec.validate),
    ...fullTextProblems(spec.search?.fullText),
    ...all.flatMap((plugin) => {
      const problem = plugin.check?.(model);
      return problem === undefined ? [] : [`plugin ${plugin.name}: ${problem}`];
    }),
  ];
  if (problems.length > 0) throw new TypeError(`${label}: ${problems.join('; ')}`);
  const policy = {
    ...resolvePolicy(model, { ...declared, fillable: fillableNames(declared.fillable) }, config),
    relations: resolveRelations(model, declared.relations),
  };
  // What the resolved policy decides: full text over filterable text columns, aggregates over allowed ones.
  const aggregate = (spec.aggregate as unknown) === false ? undefined : spec.aggregate;
  const unresolved = [
    ...fullTextColumnProblems(model, spec.search?.termFields ?? [], policy, spec.search?.fullText),
    ...aggregateDeclarationProblems(model, aggregate, policy),
  ];
  if (unresolved.length > 0) throw new TypeError(`${label}: ${unresolved.join('; ')}`);
  return Object.freeze({
    name: resource.name,
    model,
    config,
    policy,
    termKey: spec.search?.termKey ?? 'term',
    termFields: spec.search?.termFields ?? [],
    fullText: spec.search?.fullText === false ? undefined : spec.search?.fullText,
    csvColumns: declared.csvColumns,
    csvFileName: spec.csv?.fileName,
    deletedAt: findColumn(model, config.soft_delete.deleted_at_field)?.attribute,
    deletedBy: findColumn(model, config.soft_delete.deleted_by_field)?.attribute,
    paranoid: isParanoid(model),
    validate: Object.freeze({ create: spec.validate?.create, update: spec.validate?.update }),
    hooks: spec.hooks ?? {},
    plugins: all,
    declarationKey: declarationKey(resource),
    searchShape: planRowShape(
      model as unknown as ShapeModel,
      policy.visible,
      model.sequelize.getDialect(),
      config.search.method,
      hasCustomToJSON(model),
    ),
    batch: spec.batch === true,
    live: spec.live === true,
    aggregate: aggregate === undefined ? undefined : resolveAggregatePolicy(model, aggregate),
    routed: Object.freeze([...methods]),
  });
}

/**
 * The names `resolvePolicy` takes: none for `'all'` (every writable attribute), and an empty list
 * for an undeclared fillable, so that nothing is mass-assignable until declared (registration
 * already refuses create and update without it; a request's variant of a class-form controller may still drop it).
 */
function fillableNames(fillable: readonly string[] | 'all' | undefined): readonly string[] | undefined {
  return fillable === 'all' ? undefined : (fillable ?? []);
}

/** True when the model's class (or one between it and Sequelize's Model) defines its own `toJSON`. */
export function hasCustomToJSON(model: ModelStatic<Model>): boolean {
  return (model.prototype as { toJSON: unknown }).toJSON !== SequelizeModel.prototype.toJSON;
}

/** A problem for each validation schema that is not a Standard Schema of version 1. */
function validationProblems(validate: ResourceValidation | undefined): string[] {
  return (['create', 'update'] as const).flatMap((action) => {
    const schema = validate?.[action];
    return schema === undefined || isStandardSchema(schema)
      ? []
      : [
          `validate.${action} (the class form's ${action}ValidateRules) is not a Standard Schema (version 1): pass ` +
            `a zod, valibot or arktype schema, or an object with a '~standard' property`,
        ];
  });
}

/**
 * The declarations of a resource as one string, equal for equal declarations.
 * @example declarationKey(resourceOfInstance(controller)) === bound.declarationKey
 */
export function declarationKey<M extends Model>(resource: Resource<M>): string {
  const { policy, search, csv, relations } = resource.spec;
  return JSON.stringify([policy, search ?? {}, csv ?? {}, relations ?? {}]);
}
