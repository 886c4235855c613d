/**
 * The request scope every action runs in: the bound resource, the request, the hooks and the answers, for either form.
 */
import type { Context } from 'koa';
import type { Model, Transaction } from 'sequelize';
import type { BaseController } from '../controller/base-controller.js';
import { statusOf } from '../core/error-codes.js';
import { failItemOf, fail, success } from '../core/jsend.js';
import type { FailItem, FastCrudConfig, Reply } from '../types.js';
import { declarationKey, unsafeBindResource, type BoundResource } from './bind.js';
import { resourceOfController, resourceOfInstance } from './controller-resource.js';
import type { HookContext, HookName, ResourceHooks } from './resource.js';

/**
 * The reply builders an action uses: the spec's `answer*` helpers. A controller is one; the resource form uses
 * `jsendAnswers`.
 */
export interface Answers {
  answerSuccess(data: unknown, code?: number, meta?: Readonly<Record<string, unknown>>): Reply;
  answerRequired(field: string, status?: number): Reply;
  answerColumnNotFound(field: string, status?: number): Reply;
  answerFail(items: readonly FailItem[], status?: number): Reply;
  answerNotFound(field?: string): Reply;
}

type AnyHook = (...args: never[]) => unknown;
type HookArgs<K extends HookName> =
  Parameters<NonNullable<ResourceHooks<Model>[K]>> extends [...infer A, HookContext<Model>] ? A : never;
type HookValue<K extends HookName> = Awaited<ReturnType<NonNullable<ResourceHooks<Model>[K]>>>;

/** A request body as the write actions read it: the parsed value, and whether it came as a form. */
export interface RequestBody {
  /** The parsed body; undefined when the request has none. */
  readonly value: unknown;
  /** True for `application/x-www-form-urlencoded`: every value is a string (or a list or object of them). */
  readonly form: boolean;
}

/** Reads a request's body within `limit` bytes: the Koa layer's `readBody`, which hands it to every scope. */
export type BodyReader = (ctx: Context, limit: number) => Promise<RequestBody>;

/** One request of one resource: what an action reads, and the hooks it calls. */
export interface ActionScope<M extends Model = Model> extends HookContext<M> {
  readonly resource: BoundResource<M>;
  readonly answers: Answers;
  /** Reads the request's body (create and update); the Koa layer supplies it. */
  readonly readBody: BodyReader;
  /** The write under way; set by `inTransaction`, seen by hooks. */
  transaction: Transaction | undefined;
  /** True when the resource (or controller) has the hook. */
  hasHook(name: HookName): boolean;
  /** Calls a hook when there is one; undefined when there is none or it returned nothing. */
  hook<K extends HookName>(name: K, ...args: HookArgs<K>): Promise<HookValue<K> | undefined>;
}

const DEFAULT_HOOK: unique symbol = Symbol('koa-fast-crud: a mixin default hook');

/**
 * Marks a mixin's own hook methods, which do nothing: a class form's `hasHook` is false for them
 * until a class overrides them, as a resource's is for a hook it does not declare.
 * @example markDefaultHooks(SearchAction.prototype, ['modifyFilters', 'modifySearchQuery']);
 */
export function markDefaultHooks(prototype: object, names: readonly HookName[]): void {
  for (const name of names) {
    const hook = (prototype as Record<string, object>)[name]!;
    if (!(DEFAULT_HOOK in hook)) Object.defineProperty(hook, DEFAULT_HOOK, { value: true });
  }
}

/**
 * The scope of a request to a `resource()`: its hooks get the scope as their last argument.
 * @example const reply = await searchAction(resourceScope(bound, ctx, readBody));
 */
export function resourceScope<M extends Model>(
  resource: BoundResource<M>,
  ctx: Context,
  readBody: BodyReader,
): ActionScope<M> {
  const hooks = resource.hooks as Readonly<Record<string, AnyHook | undefined>>;
  const scope: ActionScope<M> = {
    ctx,
    config: resource.config,
    model: resource.model,
    resource,
    answers: jsendAnswers(resource.config),
    readBody,
    transaction: undefined,
    hasHook: (name) => hooks[name] !== undefined,
    hook: async (name, ...args) =>
      (await (hooks[name] as ((...a: unknown[]) => unknown) | undefined)?.call(hooks, ...args, scope)) as never,
  };
  return scope;
}

/** What the library attaches to a controller instance (one per request): its body reader, bound resource and scope. */
interface Attached {
  readBody: BodyReader | undefined;
  resource: BoundResource | undefined;
  scope: ActionScope | undefined;
}

/**
 * The key of `Attached` on a controller instance: a non-enumerable symbol property, not WeakMaps keyed by the
 * instance, since a class-form controller lives for one request and an entry per request in a WeakMap is an
 * ephemeron for V8's garbage collector to trace (see the dispatcher's `SETTLE`).
 */
const ATTACHED = Symbol('koa-fast-crud: attached');

/** The record attached to a controller instance, made on first use. */
function attached(controller: object): Attached {
  const found = (controller as { [ATTACHED]?: Attached })[ATTACHED];
  if (found !== undefined) return found;
  const made: Attached = { readBody: undefined, resource: undefined, scope: undefined };
  Object.defineProperty(controller, ATTACHED, { value: made });
  return made;
}

/**
 * Tells a controller instance how to read its request's body: BaseController's constructor passes
 * the Koa layer's reader, so the actions it mixes in never import the Koa layer.
 * @example attachBodyReader(this, readBody)
 */
export function attachBodyReader(controller: object, readBody: BodyReader): void {
  attached(controller).readBody = readBody;
}

/** A controller whose constructor did not attach a reader (one that is not a BaseController) reads no body. */
const noBodyReader: BodyReader = () =>
  Promise.reject(
    new TypeError('This controller has no body reader: extend BaseController, whose constructor attaches one'),
  );

/**
 * Tells a controller instance the resource its route registered, so it is not resolved again.
 * @example attachResource(new Controller(ctx, config), bound)
 */
export function attachResource<T extends object>(controller: T, resource: BoundResource): T {
  attached(controller).resource = resource;
  return controller;
}

/**
 * The scope of a class-form controller's request: its hooks are the controller's methods, its
 * answers the controller's `answer*` helpers, and `this.transaction` follows the write.
 * @example return searchAction(controllerScope(this));
 */
export function controllerScope(controller: BaseController): ActionScope {
  const attachments = attached(controller);
  const cached = attachments.scope;
  if (cached) return cached;
  const resource = boundResourceOf(controller);
  const methods = controller as unknown as Readonly<Record<string, AnyHook | undefined>>;
  const scope: ActionScope = {
    ctx: controller.ctx,
    config: controller.config,
    model: resource.model,
    resource,
    answers: controller,
    readBody: attachments.readBody ?? noBodyReader,
    get transaction() {
      return controller.transaction;
    },
    set transaction(transaction) {
      controller.transaction = transaction;
    },
    hasHook: (name) => typeof methods[name] === 'function' && !(DEFAULT_HOOK in methods[name]),
    hook: async (name, ...args) => {
      const method = methods[name] as ((...a: unknown[]) => unknown) | undefined;
      // The class form's softDeleteUserId takes the Koa context; every other hook takes its value.
      return (await method?.apply(controller, name === 'softDeleteUserId' ? [controller.ctx] : args)) as never;
    },
  };
  attachments.scope = scope;
  return scope;
}

/**
 * The bound resource of a controller: the one `crud` registered (or one resolved once per class
 * and configuration), or, when this request's declarations differ from it, that variant, bound
 * once and kept (at most `MAX_VARIANTS` per resource).
 */
function boundResourceOf(controller: BaseController): BoundResource {
  const registered = attached(controller).resource ?? boundForClass(controller);
  const declared = resourceOfInstance(controller);
  const key = declarationKey(declared);
  if (key === registered.declarationKey) return registered;
  const known = variants.get(registered) ?? new Map<string, BoundResource>();
  variants.set(registered, known);
  // Bound with no methods, so the registration checks are not run per request; the routes stay the registered ones.
  const variant =
    known.get(key) ??
    Object.freeze({
      ...unsafeBindResource(declared, controller.config, registered.plugins, [], controller.constructor.name),
      routed: registered.routed,
    });
  if (known.size >= MAX_VARIANTS) known.clear();
  known.set(key, variant);
  return variant;
}

/** How many request-dependent declaration variants a resource keeps bound. */
const MAX_VARIANTS = 32;
const variants = new WeakMap<BoundResource, Map<string, BoundResource>>();
const perClass = new WeakMap<object, WeakMap<FastCrudConfig, BoundResource>>();

function boundForClass(controller: BaseController): BoundResource {
  const Controller = controller.constructor as Parameters<typeof resourceOfController>[0];
  const byConfig = perClass.get(Controller) ?? new WeakMap<FastCrudConfig, BoundResource>();
  perClass.set(Controller, byConfig);
  const resolved =
    byConfig.get(controller.config) ??
    unsafeBindResource(resourceOfController(Controller, controller.config), controller.config, [], [], Controller.name);
  byConfig.set(controller.config, resolved);
  return resolved;
}

const answerSets = new WeakMap<FastCrudConfig, Answers>();

/**
 * The spec's `answer*` helpers over a configuration: JSend replies at the configured statuses.
 * @example jsendAnswers(config).answerRequired('label') // 400, [{ field: 'label', error: 'required', … }]
 */
export function jsendAnswers(config: FastCrudConfig): Answers {
  const cached = answerSets.get(config);
  if (cached) return cached;
  const validation = config.global.validation.http_status;
  const answers: Answers = Object.freeze({
    answerSuccess: (data: unknown, code = 200, meta: Readonly<Record<string, unknown>> = {}) =>
      success(data, code, meta),
    answerRequired: (field: string, status = statusOf('required', validation)) =>
      fail(status, [failItemOf({ _tag: 'required', field })]),
    answerColumnNotFound: (field: string, status = statusOf('columnNotFound', validation)) =>
      fail(status, [failItemOf({ _tag: 'columnNotFound', field })]),
    answerFail: (items: readonly FailItem[], status = validation) => fail(status, items),
    answerNotFound: (field = 'id') =>
      fail(statusOf('recordNotFound'), [{ field, error: 'recordNotFound', message: 'The record was not found' }]),
  });
  answerSets.set(config, answers);
  return answers;
}
