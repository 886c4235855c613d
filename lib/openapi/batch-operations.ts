/** The OpenAPI operations of the batch routes, and create's array body, for a resource with `batch: true`. */
import { statusOf } from '../core/error-codes.js';
import type { RouteDef } from '../types.js';
import type { JsonSchema } from './attribute-schema.js';
import type { OperationContext } from './operations.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const successOf = (data: JsonSchema) =>
  json({ type: 'object', required: ['status', 'data', 'meta'], properties: { status: { const: 'success' }, data } });
const failResponse = (description: string) => ({ description, content: json(ref('JSendFail')) });

const ifMatch = (required: boolean) => ({
  name: 'If-Match',
  in: 'header',
  required,
  description:
    'The ETags of the records as the client read them (a list, or *): a matched record whose current ETag is not in ' +
    "it is a 412 and nothing is written. Required (428 without it) when the action's require_if_match is on",
  schema: { type: 'string' },
});

/** What the batch operations add to an operation's context: the cap, `batch.max_records`. */
export interface BatchContext extends OperationContext {
  readonly maxRecords: number;
}

const WHAT: Readonly<Record<string, (record: string) => string>> = {
  update: (record) =>
    `Writes the fillable fields of the body to every active ${record} the filter matches, as update writes one, in ` +
    `one transaction, and answers the records as reads return them.`,
  delete: (record) =>
    `Deletes every ${record} the filter matches, as delete removes one, in one transaction, and answers their ` +
    `find-field values.`,
  softDelete: (record) =>
    `Marks every active ${record} the filter matches as deleted, as softDelete marks one, in one transaction, and ` +
    `answers the records.`,
  restore: (record) =>
    `Restores every soft-deleted ${record} the filter matches, as restore restores one, in one transaction, and ` +
    `answers the records.`,
};

const SUMMARY: Readonly<Record<string, string>> = {
  update: 'Update every',
  delete: 'Delete every',
  softDelete: 'Soft-delete every',
  restore: 'Restore every',
};

/**
 * The operation of a batch route (`def.batch`): search's filter parameters (at least one filter is required), the
 * `If-Match` header checked on every matched record (412; 428 when required), the body of update for `PATCH <uri>`,
 * and a reply whose `data` is an array.
 * @example batchOperationFor(def, { ...context, maxRecords: 1000 }, 'products.updateMany')
 */
export function batchOperationFor(def: RouteDef, context: BatchContext, operationId: string): Record<string, unknown> {
  const status = (action: string) => String(context.statuses[action] ?? 200);
  const records = { type: 'array', items: ref(context.record), maxItems: context.maxRecords };
  const refused = {
    [String(context.validationStatus)]: failResponse(
      `No filter (filterRequired), more than ${context.maxRecords} matching records (tooManyRows, nothing changes), ` +
        `or an unknown column, operator or value`,
    ),
  };
  const forbidden =
    def.ability === null ? {} : { [statusOf('forbidden')]: failResponse(`The caller lacks ${def.ability}`) };
  const guarded = def.ability !== null &&
    context.security !== undefined &&
    context.security.length > 0 && { security: context.security.map((requirement) => ({ ...requirement })) };
  // Every matched record is checked against If-Match (412), required (428) when configured.
  const required = context.requireIfMatch?.[def.method] === true;
  const conditional = {
    [statusOf('preconditionFailed')]: failResponse(
      "A matched record's current ETag is not in If-Match: one item per such record, nothing written",
    ),
    ...(required && {
      [statusOf('preconditionRequired')]: failResponse('The request has no If-Match, which this write requires'),
    }),
  };
  const what = WHAT[def.method]?.(context.record) ?? `The batch ${def.method} action.`;
  const cap = ` At most ${context.maxRecords} records (batch.max_records); at least one filter.`;
  const common = {
    operationId,
    tags: [context.tag],
    summary: `${SUMMARY[def.method] ?? def.method} ${context.record} the filter matches`,
    description: `${what}${cap}${def.ability === null ? '' : ` Needs the ability ${def.ability}.`}`,
    ...guarded,
    ...(def.ability !== null && { 'x-ability': def.ability }),
    parameters: [...(context.searchParameters ?? []), ifMatch(required)],
  };
  const responses = (specific: Record<string, unknown>) => ({
    ...specific,
    ...refused,
    ...forbidden,
    ...conditional,
    '500': { description: 'A server fault', content: json(ref('JSendError')) },
    [statusOf('databaseUnavailable')]: {
      description: 'The database is unavailable or the request passed global.timeout_ms: retry after Retry-After',
      content: json(ref('JSendError')),
    },
  });
  switch (def.method) {
    case 'update':
      return {
        ...common,
        requestBody: {
          required: true,
          content: {
            ...json(ref(`${context.input}Patch`)),
            'application/x-www-form-urlencoded': { schema: ref(`${context.input}Patch`) },
          },
        },
        responses: responses({
          [status('update')]: { description: 'The updated records', content: successOf(records) },
          [statusOf('unique')]: failResponse(
            'A unique or foreign-key constraint refused the write, or a matched record is not at the version the ' +
              'body sent (staleVersion; nothing written)',
          ),
        }),
      };
    case 'delete':
      return {
        ...common,
        responses: responses({
          [status('delete')]: {
            description: "The deleted records' find-field values",
            content: successOf({ type: 'array', items: context.idSchema, maxItems: context.maxRecords }),
          },
          [statusOf('foreignKey')]: failResponse('Related records refuse the delete'),
        }),
      };
    default:
      return {
        ...common,
        responses: responses({
          [status(def.method === 'softDelete' ? 'soft_delete' : 'restore')]: {
            description: 'The records',
            content: successOf(records),
          },
        }),
      };
  }
}

/**
 * Create's operation for a resource with batch routes: the body is one object or an array of them (1 to
 * `batch.max_records`), and the reply's `data` the record or the array of records in request order.
 * @example withCreateMany(operationFor(def, context, 'products.create'), context)
 */
export function withCreateMany(operation: Record<string, unknown>, context: BatchContext): Record<string, unknown> {
  const many = { type: 'array', items: ref(context.input), minItems: 1, maxItems: context.maxRecords };
  const body = { oneOf: [ref(context.input), many] };
  const created = { oneOf: [ref(context.record), { type: 'array', items: ref(context.record) }] };
  const responses = operation['responses'] as Record<string, { content?: unknown }>;
  const code = Object.keys(responses).find((key) => /^2\d\d$/.test(key))!;
  return {
    ...operation,
    description:
      `${String(operation['description'])} An array of objects creates every record in one transaction (at most ` +
      `${context.maxRecords}, batch.max_records); a failing item fails them all, its fields named after its index ` +
      `(1.price).`,
    requestBody: {
      required: true,
      content: { ...json(body), 'application/x-www-form-urlencoded': { schema: ref(context.input) } },
    },
    responses: { ...responses, [code]: { ...responses[code], content: successOf(created) } },
  };
}
