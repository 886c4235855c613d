/**
 * The aggregate policy: which columns and relation paths an aggregate request (`GET <uri>/aggregate`) may group by, and
 * which numeric columns each measure (sum, avg, min, max) may take, resolved from a resource's `aggregate` declaration.
 */
import type { AttributeSource, FieldPolicy } from '../types.js';
import { kindOf } from './attribute-kinds.js';
import { findColumn } from './columns.js';
import { isRelationPath } from './relation-paths.js';

/** The measures an aggregate request may ask for a column (`aggregate[sum]=price`), besides the row count. */
export type Measure = 'sum' | 'avg' | 'min' | 'max';

/** Every measure, in the order a reply row lists them. */
export const MEASURES: readonly Measure[] = Object.freeze(['sum', 'avg', 'min', 'max']);

/**
 * What a resource declares with `aggregate`: `true` opens grouping by every filterable column and every measure of
 * every filterable numeric column; an object narrows each list (a list left out keeps that default). Names are
 * attribute or column names; `groupBy` also takes relation paths (`category.name`), which the relation policy must
 * allow as it does for filters.
 * @example const aggregate: AggregateDeclaration = { groupBy: ['status', 'category.name'], sum: ['price'], avg: [] };
 */
export type AggregateDeclaration =
  | true
  | {
      /** Columns and belongs-to paths a request may group by; default: every filterable one. */
      readonly groupBy?: readonly string[] | undefined;
      /** Numeric columns `aggregate[sum]` may take; default: every filterable numeric column. */
      readonly sum?: readonly string[] | undefined;
      /** Numeric columns `aggregate[avg]` may take; default: every filterable numeric column. */
      readonly avg?: readonly string[] | undefined;
      /** Numeric columns `aggregate[min]` may take; default: every filterable numeric column. */
      readonly min?: readonly string[] | undefined;
      /** Numeric columns `aggregate[max]` may take; default: every filterable numeric column. */
      readonly max?: readonly string[] | undefined;
    };

/**
 * A resolved aggregate policy: attribute names (and `path.attribute` keys for relation paths) per list. A list that is
 * undefined allows what the field policy allows: every filterable column (and path) to group by, every filterable
 * numeric column to measure.
 */
export interface AggregatePolicy {
  readonly groupBy?: ReadonlySet<string> | undefined;
  readonly measures: Readonly<Partial<Record<Measure, ReadonlySet<string>>>>;
}

/**
 * Resolves a declaration against the model: names become attribute names (a relation path stays as declared), names
 * that are not attributes are dropped (`aggregateDeclarationProblems` refuses them at registration).
 * @example resolveAggregatePolicy(Product, { sum: ['price'] }).measures.sum // Set { 'price' }
 * @example resolveAggregatePolicy(Product, true) // { measures: {} }
 */
export function resolveAggregatePolicy(model: AttributeSource, declared: AggregateDeclaration): AggregatePolicy {
  if (declared === true) return { measures: {} };
  const named = (names: readonly string[] | undefined, paths: boolean) =>
    names === undefined
      ? undefined
      : new Set(
          names.flatMap((name) =>
            paths && isRelationPath(name) ? [name] : (findColumn(model, name)?.attribute ?? []),
          ),
        );
  const groupBy = named(declared.groupBy, true);
  const measures = Object.fromEntries(
    MEASURES.flatMap((measure) => {
      const set = named(declared[measure], false);
      return set === undefined ? [] : [[measure, set]];
    }),
  );
  return { ...(groupBy !== undefined && { groupBy }), measures };
}

/**
 * The problems of a declaration, one sentence each: a name that is not an attribute, a measure's column that is not
 * numeric or not filterable, a group column that is not filterable. Relation paths are checked per request against
 * the relation policy (as filters are).
 * @example aggregateDeclarationProblems(Product, { sum: ['name'] }, policy)
 *   // ['aggregate.sum names "name", which is not a filterable numeric attribute of Product']
 */
export function aggregateDeclarationProblems(
  model: AttributeSource & { readonly name: string },
  declared: AggregateDeclaration | undefined,
  policy: FieldPolicy,
): string[] {
  if (declared === undefined || declared === true) return [];
  if (typeof declared !== 'object' || declared === null) return ['aggregate must be true or an object of lists'];
  const lists: readonly (Measure | 'groupBy')[] = ['groupBy', ...MEASURES];
  const unknownKeys = Object.keys(declared)
    .filter((key) => !(lists as readonly string[]).includes(key))
    .map((key) => `aggregate has no list ${JSON.stringify(key)} (it takes ${lists.join(', ')})`);
  return [
    ...unknownKeys,
    ...lists.flatMap((list) =>
      (declared[list] ?? []).flatMap((name) => {
        if (list === 'groupBy' && isRelationPath(name)) return [];
        const found = findColumn(model, name)?.attribute;
        const ok =
          found !== undefined &&
          policy.filterable.has(found) &&
          (list === 'groupBy' ? groupable(model, found) : isNumeric(model, found));
        const what = list === 'groupBy' ? 'a filterable attribute' : 'a filterable numeric attribute';
        return ok ? [] : [`aggregate.${list} names ${JSON.stringify(name)}, which is not ${what} of ${model.name}`];
      }),
    ),
  ];
}

/**
 * True for an attribute a measure may take: an integer or a decimal/floating-point number.
 * @example isNumeric(Product, 'price') // true
 */
export function isNumeric(model: AttributeSource, attribute: string): boolean {
  const definition = model.getAttributes()[attribute];
  const kind = definition === undefined ? undefined : kindOf(definition);
  return kind === 'integer' || kind === 'number';
}

/**
 * True for an attribute a request may group by: any but JSON, which has no equality on PostgreSQL.
 * @example groupable(Product, 'status') // true
 */
export function groupable(model: AttributeSource, attribute: string): boolean {
  const definition = model.getAttributes()[attribute];
  return definition !== undefined && kindOf(definition) !== 'json';
}
