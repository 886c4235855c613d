/** The two forms of a resource, class and `resource()`, built from one spec: every model-based HTTP suite runs over both. */
import type Router from '@koa/router';
import type { Model, ModelStatic } from 'sequelize';
import {
  BaseController,
  Create,
  Delete,
  ExportCsv,
  Options,
  Read,
  Restore,
  Search,
  SoftDelete,
  Update,
  crud,
  resource,
  type CrudMethod,
  type CrudOptions,
  type HookContext,
  type ResourceSpec,
  type RouteDef,
} from '../../lib/index.js';
import type { AbstractConstructor } from '../../lib/controller/base-controller.js';
import type { ControllerClass } from '../../lib/koa/route-middleware.js';
import type { RelationDeclarations } from '../../lib/core/relation-policy.js';

/** One way of registering a resource; suites name it in their titles and give it its own tables. */
export interface Form {
  readonly name: 'class' | 'resource';
  /** A letter for table and model names, so the forms never share rows (`act` + `c` → `actc_products`). */
  readonly initial: 'c' | 'r';
  /** Registers `spec` over `model` on the router, as `crud` does, in this form. */
  register<M extends Model>(
    router: Router,
    uri: string,
    model: ModelStatic<M>,
    spec: ResourceSpec<M>,
    options?: CrudOptions,
  ): RouteDef[];
}

type Mixin = (Base: AbstractConstructor<BaseController>) => AbstractConstructor<BaseController>;

/** The action mixins in CrudController's order, so the full set builds the same chain. */
const MIXINS: readonly (readonly [CrudMethod, Mixin])[] = [
  ['search', Search],
  ['options', Options],
  ['create', Create],
  ['exportCsv', ExportCsv],
  ['read', Read],
  ['update', Update],
  ['delete', Delete],
  ['softDelete', SoftDelete],
  ['restore', Restore],
];

type AnyHook = (...args: unknown[]) => unknown;

/**
 * A genuine class-form controller for a spec: the mixins of its actions on BaseController, its
 * declarations as fields, and each hook as a method that calls the spec's hook with the
 * controller as the HookContext (`this.ctx`, `this.config`, `this.model`, `this.transaction`).
 * @example crud(router, 'products', controllerOf(Product, { policy: { fillable: 'all' } }))
 */
export function controllerOf<M extends Model>(model: ModelStatic<M>, spec: ResourceSpec<M>): ControllerClass {
  const actions = spec.actions ?? MIXINS.map(([method]) => method);
  const Base = MIXINS.reduce<AbstractConstructor<BaseController>>(
    (B, [method, mixin]) => (actions.includes(method) ? mixin(B) : B),
    BaseController,
  );
  class SpecController extends Base {
    override hidden: readonly string[] = spec.policy.hidden ?? [];
    override fillable = spec.policy.fillable;
    override sortable = spec.policy.sortable;
    override filterable = spec.policy.filterable;
    override termFields: readonly string[] = spec.search?.termFields ?? [];
    override termKey = spec.search?.termKey ?? 'term';
    override fullText = spec.search?.fullText ?? false;
    override relations = spec.relations as RelationDeclarations | undefined;
    csvColumns = spec.csv?.columns as Readonly<Record<string, string>> | undefined;
    csvFileName = spec.csv?.fileName;
    override createValidateRules = spec.validate?.create;
    override updateValidateRules = spec.validate?.update;
    override batch = spec.batch === true;
    override live = spec.live === true;
    override aggregate = spec.aggregate ?? false;
    modelClassName(): ModelStatic<M> {
      return model;
    }
    /** So that `this` is a HookContext. */
    get model(): ModelStatic<M> {
      return model;
    }
  }
  for (const [name, hook] of Object.entries(spec.hooks ?? {}) as [string, AnyHook][]) {
    // The class form's softDeleteUserId takes the Koa context; every other hook takes its values.
    const method =
      name === 'softDeleteUserId'
        ? function (this: HookContext<M>) {
            return hook(this);
          }
        : function (this: HookContext<M>, ...args: unknown[]) {
            return hook(...args, this);
          };
    Object.defineProperty(SpecController.prototype, name, { value: method, writable: true, configurable: true });
  }
  return SpecController;
}

/** Both forms, class first. */
export const FORMS: readonly Form[] = [
  {
    name: 'class',
    initial: 'c',
    register: (router, uri, model, spec, options) => crud(router, uri, controllerOf(model, spec), options),
  },
  {
    name: 'resource',
    initial: 'r',
    register: (router, uri, model, spec, options) => crud(router, uri, resource(model, spec), options),
  },
];
