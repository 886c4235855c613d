/** Search's query parameters, one per filterable column and operator, as generators and the explorer send them. */
import { enumValues, kindOf, maxLength, type ValueKind } from '../core/attribute-kinds.js';
import { DATE_PATTERNS } from '../core/date-bounds.js';
import { FILTER_GROUP_DEPTH, FILTER_GROUPS, operatorApplies } from '../core/filter-parser.js';
import { OPERATORS } from '../core/operators.js';
import { QS_OPTIONS } from '../core/qs-limits.js';
import type { RelationModel } from '../core/relation-paths.js';
import { reachOf } from '../core/relation-policy.js';
import type { AttributeDefinition, FieldPolicy, Operator } from '../types.js';
import { BY_KIND, type JsonSchema } from './attribute-schema.js';

/** One OpenAPI query parameter. */
export interface QueryParameter {
  readonly name: string;
  readonly in: 'query';
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
  readonly style?: 'form' | 'deepObject';
  readonly explode?: boolean;
  readonly example?: unknown;
}

/** What the search parameters of a resource are read from. */
export interface SearchShape {
  readonly model: RelationModel;
  readonly policy: FieldPolicy;
  /** The term search's filter key, or undefined when the resource has no term fields. */
  readonly termKey?: string | undefined;
  /** True when the term search is by words in a full-text index (`search.fullText`), not LIKE's "contains". */
  readonly fullText?: boolean | undefined;
}

/** What each operator means, for the parameter's description. */
const MEANING: Readonly<Record<Operator, string>> = {
  eq: 'equals the value',
  neq: 'differs from the value (NULL does not match)',
  like: 'contains the text, case-insensitively',
  gt: 'is greater than the value',
  gte: 'is greater than or equal to the value',
  lt: 'is less than the value',
  lte: 'is less than or equal to the value',
  gtn: 'is greater than the value, or NULL',
  ltn: 'is less than the value, or NULL',
  in: 'is one of the values',
  nin: 'is none of the values (NULL does not match)',
  btw: 'lies between the two values, both included',
  nn: 'is not NULL',
  null: 'is NULL',
  json: 'contains the JSON value',
};

const DATE_TEXT: Partial<Readonly<Record<ValueKind, string>>> = {
  date: ' A date bound (2026, 2026-01, 2026-01-31) or an instant (2026-01-31T09:30:00Z).',
  dateonly: ' A date bound: YYYY-MM-DD, YYYY-MM or YYYY.',
};

/**
 * One query parameter, optional unless `extra` says otherwise.
 * @example queryParameter('page', { type: 'integer' }, 'Page number').in // 'query'
 */
export const queryParameter = (
  name: string,
  schema: JsonSchema,
  description: string,
  extra: Partial<QueryParameter> = {},
): QueryParameter => ({ name, in: 'query', required: false, description, schema, ...extra });

/** The schema of one filter value on a column of this kind: what the filter parser coerces it to. */
function valueSchema(definition: AttributeDefinition, op: Operator): JsonSchema {
  if (op === 'like' || op === 'json') return { type: 'string' };
  const kind = kindOf(definition);
  switch (kind) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'uuid':
      return BY_KIND[kind]!;
    case 'date':
      return { type: 'string', pattern: `${DATE_PATTERNS.calendar}|${DATE_PATTERNS.instant}` };
    case 'dateonly':
      return { type: 'string', pattern: DATE_PATTERNS.calendar };
    case 'enum': {
      const values = enumValues(definition);
      return { type: 'string', ...(values.length > 0 && { enum: [...values] }) };
    }
    case 'string': {
      const length = maxLength(definition);
      return { type: 'string', ...(length !== undefined && { maxLength: length }) };
    }
    default:
      return { type: 'string' };
  }
}

/**
 * The parameter `filter[<name>][<op>]` for one filterable column and one operator the parser
 * takes on it: a scalar typed by the column, an array for the list operators (repeated, as
 * `filter[price][in]=1&filter[price][in]=2`, or comma-separated), `true` for those that take none.
 */
function filterParameter(name: string, definition: AttributeDefinition, op: Operator): QueryParameter {
  const arity = OPERATORS[op];
  const item = valueSchema(definition, op);
  const schema: JsonSchema =
    arity === 'one'
      ? item
      : arity === 'none'
        ? { type: 'boolean', enum: [true] }
        : {
            type: 'array',
            items: item,
            minItems: arity === 'two' ? 2 : 1,
            maxItems: arity === 'two' ? 2 : QS_OPTIONS.arrayLimit,
          };
  const meaning = MEANING[op];
  const lists =
    arity === 'list' || arity === 'two'
      ? ' Repeat the parameter per value, or send one comma-separated value.'
      : arity === 'none'
        ? ' Send true.'
        : '';
  return queryParameter(
    `filter[${name}][${op}]`,
    schema,
    `Rows whose ${name} ${meaning}.${DATE_TEXT[kindOf(definition)] ?? ''}${lists}`,
    arity === 'list' || arity === 'two' ? { style: 'form', explode: true } : {},
  );
}

/**
 * Every filter parameter of a resource: each filterable column, then each filterable column of
 * each association the relation policy opens (`filter[category.name][like]`), times every operator
 * the filter parser takes on that column's kind; then `filter[$or]` and `filter[$and]` when there is any, and the
 * term search (`filter[<termKey>]`).
 * @example filterParameters({ model: Product, policy }).map((p) => p.name) // ['filter[id][eq]', …]
 */
export function filterParameters(shape: SearchShape): QueryParameter[] {
  const columns = (model: RelationModel, names: Iterable<string>, prefix: string) => {
    const attributes = model.getAttributes();
    return [...names].flatMap((name) => {
      const definition = attributes[name];
      if (definition === undefined) return [];
      const kind = kindOf(definition);
      return (Object.keys(OPERATORS) as Operator[])
        .filter((op) => operatorApplies(op, kind))
        .map((op) => filterParameter(prefix + name, definition, op));
    });
  };
  const related = Object.entries(shape.policy.relations ?? {}).flatMap(([path, relation]) => {
    const target = reachOf(shape.model, path);
    return target === undefined ? [] : columns(target.model, relation.filterable, `${path}.`);
  });
  const term =
    shape.termKey === undefined
      ? []
      : [
          queryParameter(
            `filter[${shape.termKey}]`,
            { type: 'string' },
            shape.fullText === true
              ? 'Rows in which every word of the text begins a word of some term field, case-insensitively ' +
                  '(full-text search: letters and digits are words, everything else separates them)'
              : 'Rows any of whose term fields contains the text, case-insensitively',
          ),
        ];
  const own = columns(shape.model, shape.policy.filterable, '');
  const groups = own.length + related.length > 0 ? groupParameters() : [];
  return [...own, ...related, ...groups, ...term];
}

/**
 * `filter[$or]` and `filter[$and]`: lists of filter objects written in brackets, as a deep object
 * (`filter[$or][0][name][like]=x&filter[$or][1][price][lt]=5`), nested at most `FILTER_GROUP_DEPTH` deep. The
 * example is the empty list, which sends nothing: Swagger UI's "Try it out" sends a parameter's example (else a sample
 * it makes up) with every request, and writes a list of objects as JSON text, which no server reads (OpenAPI leaves a
 * deep object's nesting undefined).
 */
function groupParameters(): QueryParameter[] {
  return Object.entries(FILTER_GROUPS).map(([key, group]) =>
    queryParameter(
      `filter[${key}]`,
      {
        // No minItems: the example, [], is what sends nothing (a query string has no empty list to send anyway).
        type: 'array',
        maxItems: QS_OPTIONS.arrayLimit,
        items: {
          type: 'object',
          additionalProperties: true,
          description:
            'A filter object, as filter itself: {column: {operator: value}} (a bare value means eq), and nested ' +
            '$or or $and lists',
        },
      },
      `Rows that match ${group === 'or' ? 'any' : 'every one'} of the listed filters, each written in brackets ` +
        `after its index: filter[${key}][0][name][like]=x&filter[${key}][1][price][lt]=5. Every column filter ` +
        `above may be used in an item, and $or and $and nest ${FILTER_GROUP_DEPTH} deep ` +
        `(filter[$or][0][$and][0][$or][0][price][lt]=5); ANDed with the other filters.`,
      { style: 'deepObject', explode: true, example: [] },
    ),
  );
}

/**
 * `sort`: a list of the sortable columns (those of belongs-to and has-one associations as
 * `category.name`), each ascending or, with a leading `-`, descending. Comma-separated or repeated.
 * @example sortParameter({ model: Product, policy }).schema // { type: 'array', items: { enum: ['id', '-id', …] } }
 */
export function sortParameter(shape: SearchShape): QueryParameter {
  const related = Object.entries(shape.policy.relations ?? {}).flatMap(([path, relation]) => {
    const target = reachOf(shape.model, path);
    return target?.singular
      ? [...relation.sortable]
          .filter((name) => target.model.getAttributes()[name] !== undefined)
          .map((name) => `${path}.${name}`)
      : [];
  });
  const names = [...shape.policy.sortable, ...related];
  const keys = new Set(
    Object.entries(shape.model.getAttributes()).flatMap(([name, definition]) => (definition.primaryKey ? [name] : [])),
  );
  const example = names.filter((name) => !keys.has(name)).slice(0, 2);
  return queryParameter(
    'sort',
    { type: 'array', items: { type: 'string', enum: names.flatMap((name) => [name, `-${name}`]) } },
    'Columns to order by, in order; a leading - sorts descending',
    {
      style: 'form',
      explode: false,
      ...(example.length > 0 && { example: example.map((name, index) => (index === 0 ? `-${name}` : name)) }),
    },
  );
}

/**
 * `include`: the associations the relation policy lets a client load with each record; undefined when none.
 * @example includeParameter({ model: Product, policy })?.schema
 *   // { type: 'array', items: { type: 'string', enum: ['category'] } }
 */
export function includeParameter(shape: SearchShape): QueryParameter | undefined {
  const includable = Object.entries(shape.policy.relations ?? {}).flatMap(([path, relation]) =>
    relation.include ? [path] : [],
  );
  if (includable.length === 0) return undefined;
  return queryParameter(
    'include',
    { type: 'array', items: { type: 'string', enum: includable } },
    'Associations to load with each record',
    { style: 'form', explode: false, example: [includable[0]] },
  );
}

/** The page parameters of search. */
export const PAGE_PARAMETERS: readonly QueryParameter[] = [
  queryParameter('page', { type: 'integer', minimum: 1, default: 1 }, 'Page number, from 1'),
  queryParameter('perPage', { type: 'integer', minimum: 1 }, 'Rows per page (capped at search.max_per_page)'),
  queryParameter('skipPagination', { type: 'boolean' }, 'true returns every row'),
  queryParameter(
    'cursor',
    { type: 'string' },
    'Cursor pagination: empty for the first page, then meta.pagination.next or prev, sent with the same sort and ' +
      'filter (perPage may change); not with page or skipPagination',
  ),
];

/**
 * `fields`: the sparse fieldset, a list of the visible fields each record keeps; with `related`, also the visible
 * fields of each association the resource may include (`category.name`, which needs `include=category`) and the
 * association itself, kept whole. exportCsv's has the model's own fields alone (it reads no include).
 * @example fieldsParameter({ model: Product, policy }, true).schema
 *   // { type: 'array', items: { type: 'string', enum: ['id', 'name', …, 'category', 'category.id', …] } }
 */
export function fieldsParameter(shape: SearchShape, related: boolean): QueryParameter {
  const own = Object.keys(shape.model.getAttributes()).filter((name) => shape.policy.visible.has(name));
  const paths = !related
    ? []
    : Object.entries(shape.policy.relations ?? {}).flatMap(([path, relation]) => {
        const target = reachOf(shape.model, path);
        if (target === undefined || !relation.include) return [];
        const names = Object.keys(target.model.getAttributes()).filter((name) => relation.visible.has(name));
        return [path, ...names.map((name) => `${path}.${name}`)];
      });
  return queryParameter(
    'fields',
    { type: 'array', items: { type: 'string', enum: [...own, ...paths] } },
    related
      ? 'The fields each record keeps, in this order (every visible field when absent); a field of an association ' +
          'needs it in include'
      : 'The columns of the CSV, in this order (every column when absent)',
    { style: 'form', explode: false },
  );
}
