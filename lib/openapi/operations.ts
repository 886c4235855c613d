/** One OpenAPI operation per planned route: parameters, body and JSend responses by action. */
import { statusOf } from '../core/error-codes.js';
import { OPERATORS } from '../core/filter-parser.js';
import type { RouteDef } from '../types.js';
import type { JsonSchema } from './attribute-schema.js';

/** What an operation needs to know about its resource. */
export interface OperationContext {
  /** Component names of the record and input schemas. */
  readonly record: string;
  readonly input: string;
  readonly idSchema: JsonSchema;
  readonly statuses: Readonly<Record<string, number>>;
  readonly validationStatus: number;
  /** The term search's filter key, or undefined when the resource has no term fields. */
  readonly termKey?: string | undefined;
  /** The association paths filters and sorts may walk (`category`, `order.customer`); none when absent. */
  readonly relations?: readonly string[] | undefined;
  /** The association paths `include` may name; none when absent. */
  readonly includable?: readonly string[] | undefined;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const success = (data: JsonSchema, meta: JsonSchema = { type: 'object' }) =>
  json({ type: 'object', required: ['status', 'data', 'meta'], properties: { status: { const: 'success' }, data, meta } });
const failResponse = (description: string) => ({ description, content: json(ref('JSendFail')) });

const query = (name: string, schema: JsonSchema, description: string, required = false) => ({ name, in: 'query', required, description, schema });

const includeParameter = (includable: readonly string[] | undefined) =>
  includable === undefined || includable.length === 0
    ? []
    : [{ ...query('include', { type: 'array', items: { enum: [...includable] } }, 'Associations to load with each record, comma-separated'), style: 'form', explode: false }];

const relationText = (relations: readonly string[] | undefined) =>
  relations === undefined || relations.length === 0
    ? ''
    : `; filter[association.column] matches records with a related row that matches (associations: ${relations.join(', ')})`;

const searchParameters = (termKey: string | undefined, relations?: readonly string[]) => [
  {
    name: 'filter',
    in: 'query',
    style: 'deepObject',
    explode: true,
    description:
      `filter[column][operator]=value; operators: ${Object.keys(OPERATORS).join(', ')} (none means eq)` +
      (termKey === undefined ? '' : `; filter[${termKey}]=text searches the term fields`) +
      relationText(relations),
    schema: { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }] } },
  },
  query('sort', { type: 'string', examples: ['-price,name'] }, 'Comma-separated columns, a leading - for descending' + (relations === undefined || relations.length === 0 ? '' : '; association.column sorts through belongs-to and has-one associations')),
];

const PAGE_PARAMETERS = [
  query('page', { type: 'integer', minimum: 1, default: 1 }, 'Page number, from 1'),
  query('perPage', { type: 'integer', minimum: 1 }, 'Rows per page (capped at search.max_per_page)'),
  query('skipPagination', { type: 'boolean' }, 'true returns every row'),
];

/**
 * The OpenAPI operation of a planned route: summary, parameters, request body, responses and `x-ability`.
 * @example operationFor(def, context) // { operationId: 'products.read', parameters: [...], responses: { 200: …, 404: … }, 'x-ability': 'shop.access.view' }
 */
export function operationFor(def: RouteDef, context: OperationContext, operationId: string): Record<string, unknown> {
  const id = { name: 'id', in: 'path', required: true, schema: context.idSchema };
  const status = (action: string) => String(context.statuses[action] ?? 200);
  const invalid = { [String(context.validationStatus)]: failResponse('The request names an unknown column, operator or value') };
  const notFound = { [statusOf('recordNotFound')]: failResponse('No record for this id (or it is soft-deleted)') };
  const forbidden = def.ability === null ? {} : { [statusOf('forbidden')]: failResponse(`The caller lacks ${def.ability}`) };
  // A form body has the same fields, in bracket syntax (`tags[0]=red`), parsed within the query-string limits.
  const body = (schema: string) => ({ required: true, content: { ...json(ref(schema)), 'application/x-www-form-urlencoded': { schema: ref(schema) } } });
  const writeErrors = {
    ...invalid,
    [statusOf('unique')]: failResponse('A unique or foreign-key constraint refused the write'),
    [statusOf('contentTooLarge')]: failResponse('The body is larger than global.body_limit'),
    [statusOf('unsupportedMediaType')]: failResponse('The body is neither JSON nor a form (application/x-www-form-urlencoded)'),
  };
  const record = success(ref(context.record));
  const common = { operationId, tags: [context.record], ...(def.ability !== null && { 'x-ability': def.ability }) };
  const responses = (specific: Record<string, unknown>) => ({ ...specific, ...forbidden, '500': { description: 'A server fault', content: json(ref('JSendError')) } });
  switch (def.method) {
    case 'search':
      return { ...common, summary: `Search ${context.record} records`, parameters: [...searchParameters(context.termKey, context.relations), ...PAGE_PARAMETERS, ...includeParameter(context.includable)], responses: responses({ [status('search')]: { description: 'A page of records', content: success({ type: 'array', items: ref(context.record) }, { type: 'object', properties: { pagination: ref('Pagination') } }) }, ...invalid }) };
    case 'options':
      return { ...common, summary: `${context.record} options for select boxes`, parameters: [query('label', { type: 'string' }, 'Column returned as label', true), query('value', { type: 'string' }, 'Column returned as value (default options.default_value)')], responses: responses({ [status('options')]: { description: 'Label/value pairs ordered by label', content: success({ type: 'array', items: ref('OptionItem') }) }, ...invalid }) };
    case 'create':
      return { ...common, summary: `Create a ${context.record}`, requestBody: body(context.input), responses: responses({ [status('create')]: { description: 'The created record', content: record }, ...writeErrors }) };
    case 'exportCsv':
      return { ...common, summary: `Export ${context.record} records as CSV`, parameters: searchParameters(context.termKey, context.relations), responses: responses({ [status('export_csv')]: { description: 'A CSV download', content: { 'text/csv': { schema: { type: 'string' } } } }, ...invalid }) };
    case 'read':
      return { ...common, summary: `Read a ${context.record}`, parameters: [id, ...includeParameter(context.includable)], responses: responses({ [status('read')]: { description: 'The record', content: record }, ...notFound }) };
    case 'update':
      return { ...common, summary: `Update a ${context.record} (partial)`, parameters: [id], requestBody: body(`${context.input}Patch`), responses: responses({ [status('update')]: { description: 'The updated record', content: record }, ...writeErrors, ...notFound }) };
    case 'delete':
      return { ...common, summary: `Delete a ${context.record}`, parameters: [id], responses: responses({ [status('delete')]: { description: 'Deleted', content: success({ type: 'null' }) }, ...notFound, [statusOf('foreignKey')]: failResponse('Related records refuse the delete') }) };
    case 'softDelete':
    case 'restore': {
      const action = def.method === 'softDelete' ? 'soft_delete' : 'restore';
      return { ...common, summary: `${def.method === 'softDelete' ? 'Soft-delete' : 'Restore'} a ${context.record}`, parameters: [id], responses: responses({ [status(action)]: { description: 'The record', content: record }, ...invalid, ...notFound }) };
    }
    default:
      return { ...common, summary: def.method, responses: responses({ '200': { description: 'A custom action' } }) };
  }
}
