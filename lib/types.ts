/** Shared types of koa-fast-crud: the one source of truth that every other module imports from. */
import type { Context } from 'koa';

/** An HTTP verb as @koa/router names its registration methods. */
export type Verb = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One row of the spec's route table: what `crud` may register for a controller method.
 * @example { verb: 'get', suffix: '/{id:uuid}', method: 'read', permission: 'view' }
 */
export interface RouteEntry {
  readonly verb: Verb;
  /** Appended to the resource uri, in the spec's notation (`/{id:uuid}/restore`). */
  readonly suffix: string;
  readonly method: string;
  readonly permission: string | null;
}

/**
 * One planned route: a value that `crud` turns into a @koa/router layer.
 * @example { verb: 'get', path: 'products/{id:uuid}', method: 'read', permission: 'view', ability: 'shop.access.view' }
 */
export interface RouteDef {
  readonly verb: Verb;
  /** Resource uri plus suffix, no leading slash, `{name:uuid}` for uuid-constrained parameters. */
  readonly path: string;
  readonly method: string;
  readonly permission: string | null;
  /** `<moduleName>.access.<permission>`, or null when nothing is to be checked. */
  readonly ability: string | null;
}

/** What `planRoutes` needs besides the controller. */
export interface PlanOptions {
  readonly uri: string;
  readonly moduleName?: string | null;
  /** Controller method names not to register (ignored when `only` is non-empty). */
  readonly except?: readonly string[];
  /** When non-empty, only these controller method names are registered. */
  readonly only?: readonly string[];
}

/** A sort direction, as Sequelize spells it. */
export type Direction = 'ASC' | 'DESC';

/**
 * One ordering clause; assignable to a Sequelize `OrderItem`.
 * @example ['created_at', 'DESC']
 */
export type Order = [column: string, direction: Direction];

/**
 * Why a client's request cannot be planned: a tagged value naming the field at fault.
 * The tag doubles as the JSend `error` code.
 */
export type OptionsError =
  | { readonly _tag: 'required'; readonly field: string }
  | { readonly _tag: 'columnNotFound'; readonly field: string };

/** The attribute map of a Sequelize model, as far as planning needs it. */
export interface AttributeSource {
  getAttributes(): { readonly [name: string]: { readonly field?: string | undefined } };
}

/** Resolved configuration, keyed like the spec's `toolkit.fast-crud.*` table. */
export interface FastCrudConfig {
  readonly options: {
    /** Status of a successful options response. */
    readonly http_status: number;
    /** Column used for `value` when the request gives none. */
    readonly default_value: string;
  };
  readonly global: {
    readonly validation: {
      /** Status of a validation failure. */
      readonly http_status: number;
    };
  };
  readonly soft_delete: {
    /** Name (attribute or column) of the soft-delete marker. */
    readonly deleted_at_field: string;
  };
}

/** A partial of T at every depth: what users pass as configuration. */
export type DeepPartial<T> = { readonly [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Configuration as users write it: any part of `FastCrudConfig`, merged over the defaults. */
export type FastCrudConfigInput = DeepPartial<FastCrudConfig>;

/** A configuration key that holds a value it must not hold. */
export interface ConfigError {
  readonly _tag: 'invalidConfig';
  /** Dotted path of the key, e.g. `options.http_status`. */
  readonly key: string;
  readonly value: unknown;
  readonly expected: string;
}

/** One entry of a JSend `fail` body. `field` is null when no single field is at fault. */
export interface FailItem {
  readonly field: string | null;
  readonly error: string;
  readonly message: string;
}

/** The body of every response koa-fast-crud writes. */
export type JSendBody =
  | { readonly status: 'success'; readonly data: unknown; readonly meta: Readonly<Record<string, unknown>> }
  | { readonly status: 'fail'; readonly data: readonly FailItem[]; readonly meta: Readonly<Record<string, unknown>> }
  | { readonly status: 'error'; readonly message: string };

/**
 * What an action returns: the Koa layer writes it to the response.
 * @example { status: 200, body: { status: 'success', data: [], meta: {} } }
 */
export interface Reply {
  readonly status: number;
  readonly body: JSendBody;
}

/** Decides whether the request may use an ability such as `shop.access.view`. */
export type Can = (ctx: Context, ability: string) => boolean | Promise<boolean>;
