/** openApiDocument: an OpenAPI 3.1 description of every resource, built from route plans and models. */
import { camelCase, pascalCase } from 'change-case';
import { DEFAULT_CONFIG } from '../core/config.js';
import { ERROR_CODES } from '../core/error-codes.js';
import { RECORD_ACTIONS, findFieldOf, type RecordAction } from '../core/find-field.js';
import { planRoutes, type ControllerShape } from '../core/plan-routes.js';
import type { AttributeSource, CrudMethod, FastCrudConfig, FieldPolicy, PlanOptions } from '../types.js';
import { objectSchema, requiredOnCreate, attributeSchema, type JsonSchema } from './attribute-schema.js';
import { operationFor } from './operations.js';

/** One resource as `crud` registers it, with its model and field policy. */
export interface OpenApiResource extends PlanOptions {
  readonly Controller: ControllerShape;
  readonly model: AttributeSource & { readonly name: string };
  readonly policy: FieldPolicy;
  readonly config?: FastCrudConfig;
  /** The term search's filter key (`termKey`) when the controller has term fields. */
  readonly termKey?: string | undefined;
}

/** The document's title, version and servers, and its resources. */
export interface OpenApiOptions {
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly servers?: readonly { readonly url: string }[];
  readonly resources: readonly OpenApiResource[];
}

/**
 * An OpenAPI 3.1 document: a path per planned route (`{id:uuid}` becomes `{id}` with
 * `format: uuid`), query parameters, request bodies from the fillable attributes, JSend responses
 * per action and error, and each route's ability as `x-ability`. Hidden attributes never appear.
 * Pure: it reads the plans, the models' attribute maps and the policies.
 * @example openApiDocument({ info: { title: 'Shop', version: '1' }, resources: [{ uri: 'products', moduleName: 'shop', Controller, model: Product, policy }] })
 */
export function openApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = { ...SHARED_SCHEMAS };
  for (const resource of options.resources) {
    const name = pascalCase(resource.model.name);
    const config = resource.config ?? DEFAULT_CONFIG;
    schemas[name] = objectSchema(resource.model, resource.policy.visible, [], dialectOf(resource.model));
    schemas[`${name}Input`] = objectSchema(resource.model, resource.policy.fillable, requiredOnCreate(resource.model, resource.policy.fillable));
    schemas[`${name}InputPatch`] = { ...objectSchema(resource.model, resource.policy.fillable), minProperties: 1 };
    const statuses = {
      search: config.search.http_status, options: config.options.http_status, create: config.create.http_status,
      export_csv: config.export_csv.http_status, read: config.read.http_status, update: config.update.http_status,
      delete: config.delete.http_status, soft_delete: config.soft_delete.http_status, restore: config.restore.http_status,
    };
    const plan = planRoutes(resource.Controller, { ...resource, optionsPermission: resource.optionsPermission ?? config.options.permission });
    for (const def of plan) {
      const path = `/${def.path.replace(/\{(\w+):uuid\}/g, '{$1}')}`;
      // update and restore answer several verbs: their ids carry the verb to stay unique.
      const manyVerbs = plan.filter((other) => other.method === def.method).length > 1;
      const operationId = `${camelCase(resource.uri)}.${def.method}${manyVerbs ? pascalCase(def.verb) : ''}`;
      (paths[path] ??= {})[def.verb] = operationFor(def, { record: name, input: `${name}Input`, idSchema: idSchemaOf(resource.model, config, def.method), statuses, validationStatus: config.global.validation.http_status, termKey: resource.termKey, ...relationsOf(resource.policy) }, operationId);
    }
  }
  return {
    openapi: '3.1.0',
    info: { ...options.info },
    ...(options.servers && { servers: options.servers.map((s) => ({ ...s })) }),
    paths,
    components: { schemas },
  };
}

/**
 * The schema of `{id}` on an action's route: a UUID while routes take `{id:uuid}`, else the type of
 * the action's find field, from the resolver the lookups use.
 */
function idSchemaOf(model: AttributeSource, config: FastCrudConfig, method: CrudMethod): JsonSchema {
  if (config.global.find_field_is_uuid) return { type: 'string', format: 'uuid' };
  const findField = Object.hasOwn(RECORD_ACTIONS, method) ? findFieldOf(model, config, method as RecordAction) : undefined;
  return findField ? attributeSchema({ ...findField.definition, allowNull: false }) : { type: 'string' };
}

const SHARED_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  FailItem: {
    type: 'object',
    required: ['field', 'error', 'message'],
    properties: { field: { type: ['string', 'null'] }, error: { type: 'string', examples: [...ERROR_CODES, 'conflict'] }, message: { type: 'string' }, value: {} },
  },
  JSendFail: {
    type: 'object',
    required: ['status', 'data', 'meta'],
    properties: { status: { const: 'fail' }, data: { type: 'array', items: { $ref: '#/components/schemas/FailItem' } }, meta: { type: 'object' } },
  },
  JSendError: { type: 'object', required: ['status', 'message'], properties: { status: { const: 'error' }, message: { type: 'string' } } },
  OptionItem: { type: 'object', required: ['label', 'value'], properties: { label: {}, value: {} } },
  // With search.count 'exact' or 'estimate': current, perPage, pagesCount, count (and estimated when
  // the count is PostgreSQL's estimate); with 'none': current, perPage, hasMore.
  Pagination: {
    type: 'object',
    required: ['current', 'perPage'],
    properties: {
      current: { type: 'integer' },
      perPage: { type: 'integer' },
      pagesCount: { type: 'integer' },
      count: { type: 'integer' },
      estimated: { type: 'boolean', description: 'true when count is the database planner\'s estimate (search.count: estimate)' },
      hasMore: { type: 'boolean', description: 'with search.count: none, instead of count and pagesCount: whether a next page has rows' },
    },
  },
};

/** The dialect of a model's Sequelize instance, when it has one: replies are described as its driver returns them. */
function dialectOf(model: object): string | undefined {
  return (model as { sequelize?: { getDialect?: () => string } }).sequelize?.getDialect?.();
}

/** The association paths a policy opens, and those it lets `include` load, for the operations. */
function relationsOf(policy: FieldPolicy): { relations: string[]; includable: string[] } {
  const entries = Object.entries(policy.relations ?? {});
  return { relations: entries.map(([path]) => path), includable: entries.flatMap(([path, relation]) => (relation.include ? [path] : [])) };
}
