/** openApiDocument: an OpenAPI 3.1 description of every resource, built from route plans and models. */
import { camelCase, pascalCase } from 'change-case';
import { DEFAULT_CONFIG } from '../core/config.js';
import { ERROR_CODES } from '../core/error-codes.js';
import { RECORD_ACTIONS, findFieldOf, type RecordAction } from '../core/find-field.js';
import { planRoutes, type ControllerShape } from '../core/plan-routes.js';
import type { AggregatePolicy } from '../core/aggregate-policy.js';
import { aggregateChoices } from './aggregate-operation.js';
import { isSingular, type RelationModel } from '../core/relation-paths.js';
import type { AttributeSource, CrudMethod, FastCrudConfig, FieldPolicy, PlanOptions } from '../types.js';
import { objectSchema, requiredOnCreate, attributeSchema, type JsonSchema } from './attribute-schema.js';
import { operationFor } from './operations.js';
import { relationInputProperties } from './relation-inputs.js';
import { batchOperationFor, withCreateMany } from './batch-operations.js';
import { fieldsParameter, filterParameters, includeParameter, sortParameter } from './query-parameters.js';

/** One resource as `crud` registers it, with its model and field policy. */
export interface OpenApiResource extends PlanOptions {
  readonly Controller: ControllerShape;
  readonly model: AttributeSource & { readonly name: string };
  readonly policy: FieldPolicy;
  readonly config?: FastCrudConfig;
  /** The term search's filter key (`termKey`) when the controller has term fields. */
  readonly termKey?: string | undefined;
  /** True when its term search is by words in a full-text index (`search.fullText`). */
  readonly fullText?: boolean | undefined;
  /** The aggregate policy of a resource declared with `aggregate` (its route is planned with `aggregate: true`). */
  readonly aggregatePolicy?: AggregatePolicy | undefined;
}

/** The document's title, version and servers, its resources, and how callers authenticate. */
export interface OpenApiOptions {
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description?: string;
    readonly contact?: Readonly<Record<string, string>>;
    readonly license?: Readonly<Record<string, string>>;
  };
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
  readonly resources: readonly OpenApiResource[];
  /**
   * The security schemes (OpenAPI `components.securitySchemes`) a caller may use on the routes an
   * ability guards; each such operation lists them as alternatives in its `security`. Default, when
   * any route has an ability: `{ bearerAuth: { type: 'http', scheme: 'bearer' } }`; `{}` for none.
   */
  readonly securitySchemes?: Readonly<Record<string, JsonSchema>>;
}

/** The security scheme the document offers when abilities guard routes and the options name none. */
const DEFAULT_SECURITY_SCHEMES: Readonly<Record<string, JsonSchema>> = Object.freeze({
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'The credentials your app checks before it asks can() for the ability a route names (x-ability)',
  },
});

/**
 * An OpenAPI 3.1 document: a path per planned route (`{id:uuid}` becomes `{id}` with
 * `format: uuid`), query parameters, request bodies from the fillable attributes, JSend responses
 * per action and error, and each route's ability as `x-ability`, with a `security` requirement.
 * A filter parameter per filterable column and operator (`filter[price][gte]`), typed by the
 * column; `sort` and `include` as lists of the names they take. A tag per resource, a summary and
 * a description per operation. Hidden attributes never appear.
 * Pure: it reads the plans, the models' attribute maps and the policies.
 * @example
 * openApiDocument({
 *   info: { title: 'Shop', version: '1' },
 *   resources: [{ uri: 'products', moduleName: 'shop', Controller, model: Product, policy }],
 * })
 */
export function openApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = { ...SHARED_SCHEMAS };
  const tags: { name: string; description: string }[] = [];
  const operationIds = new Set<string>();
  const guarded = options.resources.some(
    (resource) => resource.moduleName !== undefined && resource.moduleName !== null,
  );
  const securitySchemes = options.securitySchemes ?? (guarded ? DEFAULT_SECURITY_SCHEMES : {});
  const security = Object.keys(securitySchemes).map((scheme) => ({ [scheme]: [] }));
  for (const resource of options.resources) {
    const name = unique(pascalCase(resource.model.name), (candidate) => Object.hasOwn(schemas, candidate));
    const config = resource.config ?? DEFAULT_CONFIG;
    const dialect = dialectOf(resource.model);
    schemas[name] = withIncluded(
      objectSchema(
        resource.model,
        resource.policy.visible,
        alwaysReturned(resource.model, resource.policy.visible),
        dialect,
      ),
      resource.model,
      resource.policy,
      '',
      dialect,
    );
    const relational = (action: 'create' | 'update') =>
      relationInputProperties(resource.model, resource.policy, action, config.global.find_field);
    schemas[`${name}Input`] = withProperties(
      objectSchema(
        resource.model,
        resource.policy.fillable,
        requiredOnCreate(resource.model, resource.policy.fillable),
      ),
      relational('create'),
    );
    schemas[`${name}InputPatch`] = {
      ...withProperties(objectSchema(resource.model, resource.policy.fillable), relational('update')),
      minProperties: 1,
    };
    const tag = unique(resource.uri, (candidate) => tags.some((t) => t.name === candidate));
    tags.push({ name: tag, description: `${name} records at /${resource.uri}` });
    const statuses = {
      search: config.search.http_status,
      options: config.options.http_status,
      create: config.create.http_status,
      export_csv: config.export_csv.http_status,
      read: config.read.http_status,
      update: config.update.http_status,
      delete: config.delete.http_status,
      soft_delete: config.soft_delete.http_status,
      restore: config.restore.http_status,
    };
    const shape = {
      model: resource.model as RelationModel,
      policy: resource.policy,
      termKey: resource.termKey,
      fullText: resource.fullText,
    };
    const searchParameters = [...filterParameters(shape), sortParameter(shape)];
    const plan = planRoutes(resource.Controller, {
      ...resource,
      optionsPermission: resource.optionsPermission ?? config.options.permission,
    });
    const context = {
      record: name,
      input: `${name}Input`,
      statuses,
      validationStatus: config.global.validation.http_status,
      tag,
      searchParameters,
      optionsMaxLimit: config.options.max_limit,
      includeParameter: includeParameter(shape),
      fieldsParameters: { records: fieldsParameter(shape, true), csv: fieldsParameter(shape, false) },
      security,
      readable: plan.some((route) => route.method === 'read'),
      ...(resource.aggregatePolicy !== undefined && {
        aggregate: aggregateChoices(resource.model, resource.policy, resource.aggregatePolicy),
      }),
      requireIfMatch: {
        update: config.update.require_if_match,
        delete: config.delete.require_if_match,
        softDelete: config.delete.require_if_match,
        restore: config.restore.require_if_match,
      },
    };
    for (const def of plan) {
      const path = `/${def.path.replace(/\{(\w+):uuid\}/g, '{$1}')}`;
      // update and restore answer several verbs: their ids carry the verb to stay unique.
      const manyVerbs = plan.filter((other) => other.method === def.method && other.batch === def.batch).length > 1;
      const single = def.batch !== true;
      // A batch route's id is its action's with `Many` (`products.updateMany`).
      const suffix = single ? (manyVerbs ? pascalCase(def.verb) : '') : 'Many';
      const operationId = unique(`${camelCase(resource.uri)}.${def.method}${suffix}`, (candidate) =>
        operationIds.has(candidate),
      );
      operationIds.add(operationId);
      const full = { ...context, idSchema: idSchemaOf(resource.model, config, def.method) };
      const batch = { ...full, maxRecords: config.batch.max_records };
      const operation = single ? operationFor(def, full, operationId) : batchOperationFor(def, batch, operationId);
      (paths[path] ??= {})[def.verb] =
        def.method === 'create' && resource.batch === true ? withCreateMany(operation, batch) : operation;
    }
  }
  return {
    openapi: '3.1.0',
    info: { ...options.info },
    ...(options.servers && { servers: options.servers.map((s) => ({ ...s })) }),
    tags,
    paths,
    components: {
      schemas,
      ...(Object.keys(securitySchemes).length > 0 && { securitySchemes: { ...securitySchemes } }),
    },
  };
}

/** An object schema with more properties. */
function withProperties(schema: JsonSchema, more: Record<string, JsonSchema>): JsonSchema {
  if (Object.keys(more).length === 0) return schema;
  return { ...schema, properties: { ...(schema['properties'] as Record<string, JsonSchema>), ...more } };
}

/** `name`, or `name2`, `name3`… : the first that `taken` does not claim. */
function unique(name: string, taken: (candidate: string) => boolean): string {
  let candidate = name;
  for (let n = 2; taken(candidate); n++) candidate = `${name}${n}`;
  return candidate;
}

/**
 * The attributes every reply holds: each visible one but a VIRTUAL (a write's reply is read back,
 * so a nullable column is there as null rather than missing).
 */
function alwaysReturned(model: AttributeSource, visible: ReadonlySet<string>): string[] {
  const attributes = model.getAttributes();
  return [...visible].filter((name) => (attributes[name]?.type as { key?: string } | undefined)?.key !== 'VIRTUAL');
}

/**
 * A record schema with a property per association `include` may load below `prefix`: an object
 * (or null) through belongs-to and has-one, an array through the others; present only when included.
 */
function withIncluded(
  schema: JsonSchema,
  model: RelationModel,
  policy: FieldPolicy,
  prefix: string,
  dialect: string | undefined,
): JsonSchema {
  const children = Object.entries(policy.relations ?? {}).filter(
    ([path, relation]) => relation.include && path.startsWith(prefix) && !path.slice(prefix.length).includes('.'),
  );
  if (children.length === 0) return schema;
  const properties = { ...(schema['properties'] as Record<string, JsonSchema>) };
  for (const [path, relation] of children) {
    const name = path.slice(prefix.length);
    const association = model.associations?.[name];
    if (association === undefined) continue;
    const target = association.target;
    const row = withIncluded(
      objectSchema(target, relation.visible, alwaysReturned(target, relation.visible), dialect),
      target,
      policy,
      `${path}.`,
      dialect,
    );
    properties[name] = isSingular(association) ? { ...row, type: ['object', 'null'] } : { type: 'array', items: row };
  }
  return { ...schema, properties };
}

/**
 * The schema of `{id}` on an action's route: a UUID while routes take `{id:uuid}`, else the type of
 * the action's find field, from the resolver the lookups use.
 */
function idSchemaOf(model: AttributeSource, config: FastCrudConfig, method: CrudMethod): JsonSchema {
  if (config.global.find_field_is_uuid) return { type: 'string', format: 'uuid' };
  const findField = Object.hasOwn(RECORD_ACTIONS, method)
    ? findFieldOf(model, config, method as RecordAction)
    : undefined;
  return findField ? attributeSchema({ ...findField.definition, allowNull: false }) : { type: 'string' };
}

const SHARED_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  FailItem: {
    type: 'object',
    required: ['field', 'error', 'message'],
    properties: {
      field: { type: ['string', 'null'] },
      error: { type: 'string', examples: [...ERROR_CODES, 'conflict'] },
      message: { type: 'string' },
      value: {},
    },
  },
  JSendFail: {
    type: 'object',
    required: ['status', 'data', 'meta'],
    properties: {
      status: { const: 'fail' },
      data: { type: 'array', items: { $ref: '#/components/schemas/FailItem' } },
      meta: { type: 'object' },
    },
  },
  JSendError: {
    type: 'object',
    required: ['status', 'message'],
    properties: {
      status: { const: 'error' },
      message: { type: 'string' },
      code: { enum: ['databaseUnavailable', 'databaseTimeout'], description: 'On a 503: what failed; absent on a 500' },
    },
  },
  OptionItem: { type: 'object', required: ['label', 'value'], properties: { label: {}, value: {} } },
  // With search.count 'exact' or 'estimate': current, perPage, pagesCount, count (and estimated when
  // the count is PostgreSQL's estimate); with 'none': current, perPage, hasMore. A cursor page (cursor=) has perPage,
  // next and prev, and count (and estimated) unless search.count is none.
  Pagination: {
    type: 'object',
    required: ['perPage'],
    properties: {
      current: { type: 'integer' },
      perPage: { type: 'integer' },
      pagesCount: { type: 'integer' },
      count: { type: 'integer' },
      estimated: {
        type: 'boolean',
        description: "true when count is the database planner's estimate (search.count: estimate)",
      },
      hasMore: {
        type: 'boolean',
        description: 'with search.count: none, instead of count and pagesCount: whether a next page has rows',
      },
      next: {
        type: ['string', 'null'],
        description: 'on a cursor page: the cursor of the next page, null on the last',
      },
      prev: {
        type: ['string', 'null'],
        description: 'on a cursor page: the cursor of the previous page, null on the first',
      },
    },
  },
};

/** The dialect of a model's Sequelize instance, when it has one: replies are described as its driver returns them. */
function dialectOf(model: object): string | undefined {
  return (model as { sequelize?: { getDialect?: () => string } }).sequelize?.getDialect?.();
}
