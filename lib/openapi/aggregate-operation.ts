/** The aggregates route's OpenAPI operation (`GET <uri>/aggregate`), and the names its parameters take. */
import { MEASURES, groupable, isNumeric, type AggregatePolicy, type Measure } from '../core/aggregate-policy.js';
import type { RelationModel } from '../core/relation-paths.js';
import { reachOf } from '../core/relation-policy.js';
import type { FieldPolicy } from '../types.js';
import type { JsonSchema } from './attribute-schema.js';
import { queryParameter, type QueryParameter } from './query-parameters.js';

/** The names an aggregate request may use: the group columns and paths, and each measure's columns. */
export interface AggregateChoices {
  readonly groupBy: readonly string[];
  readonly measures: Readonly<Record<Measure, readonly string[]>>;
}

/**
 * The names a resource's aggregate policy opens, as `planAggregate` checks them: filterable columns (not JSON) and the
 * filterable attributes of singular relation paths to group by, filterable numeric columns per measure, each list
 * narrowed by the declaration's.
 * @example aggregateChoices(Product, policy, { measures: {} }).measures.sum // ['price', 'stock']
 */
export function aggregateChoices(
  model: RelationModel,
  policy: FieldPolicy,
  declared: AggregatePolicy,
): AggregateChoices {
  const filterable = [...policy.filterable];
  const paths = Object.entries(policy.relations ?? {}).flatMap(([path, relation]) => {
    const reach = reachOf(model, path);
    if (reach === undefined || !reach.singular) return [];
    return [...relation.filterable].filter((a) => groupable(reach.model, a)).map((a) => `${path}.${a}`);
  });
  const groups = [...filterable.filter((a) => groupable(model, a)), ...paths];
  const measures = Object.fromEntries(
    MEASURES.map((measure) => [
      measure,
      filterable.filter((a) => isNumeric(model, a) && (declared.measures[measure]?.has(a) ?? true)),
    ]),
  ) as Record<Measure, string[]>;
  return { groupBy: groups.filter((name) => declared.groupBy?.has(name) ?? true), measures };
}

const NAMES = { sum: 'sums', avg: 'averages', min: 'minimums', max: 'maximums' } as const;

/**
 * The query parameters of an aggregate request: `aggregate[count]`, one `aggregate[<measure>]` per measure that has
 * columns, `groupBy`, then the resource's filters.
 * @example aggregateParameters(choices, filters).map((p) => p.name) // ['aggregate[count]', 'aggregate[sum]', …]
 */
export function aggregateParameters(choices: AggregateChoices, filters: readonly QueryParameter[]): QueryParameter[] {
  const list = (names: readonly string[]) => names.join(', ');
  return [
    queryParameter('aggregate[count]', { const: '*' }, "Each group's number of records (count in each row)", {
      required: false,
    }),
    ...MEASURES.flatMap((measure) =>
      choices.measures[measure].length === 0
        ? []
        : [
            queryParameter(
              `aggregate[${measure}]`,
              { type: 'string' },
              `Comma-separated numeric columns whose ${NAMES[measure]} each row carries under ${measure} ` +
                `(${measure}.<column>, a JSON number or null): ${list(choices.measures[measure])}`,
              { required: false },
            ),
          ],
    ),
    ...(choices.groupBy.length === 0
      ? []
      : [
          queryParameter(
            'groupBy',
            { type: 'string' },
            'Comma-separated columns and relation paths, one row per distinct combination, each under its name (a ' +
              `path's key is flat: "category.name"); none: one row over every record: ${list(choices.groupBy)}`,
            { required: false },
          ),
        ]),
    ...filters,
  ];
}

/**
 * The schema of one row of an aggregate reply: the group values under their names, then `count` and the measures.
 * @example aggregateRowSchema.properties.count // { type: 'integer', minimum: 0 }
 */
export const aggregateRowSchema: JsonSchema = Object.freeze({
  type: 'object',
  description: 'One group: its values under the groupBy names, then the measures asked for',
  properties: {
    count: { type: 'integer', minimum: 0 },
    ...Object.fromEntries(
      MEASURES.map((measure) => [measure, { type: 'object', additionalProperties: { type: ['number', 'null'] } }]),
    ),
  },
  additionalProperties: true,
});
