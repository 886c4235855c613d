/**
 * resolveRelationPath: a client's dot path (`order.customer.email`) checked against a model's associations and the
 * relation policy.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { AttributeSource, Direction, ErrorCode, FailItem, Order, RelationPolicy } from '../types.js';
import type { ResolvedColumn } from './columns.js';
import { allowedColumn } from './field-policy.js';
import { findFieldNamed } from './find-field.js';

/** The kinds of association Sequelize declares, as its `associationType` names them. */
export type AssociationType = 'BelongsTo' | 'HasOne' | 'HasMany' | 'BelongsToMany';

/** One association of a model, as far as planning reads it (a Sequelize association satisfies it). */
export interface AssociationShape {
  readonly associationType: AssociationType | (string & {});
  readonly target: RelationModel;
}

/** A model with its name, attributes and associations, as the path resolver reads it. */
export interface RelationModel extends AttributeSource {
  readonly name: string;
  readonly associations?: Readonly<Record<string, AssociationShape>> | undefined;
}

/** A checked dot path: the associations walked, the model reached and its attribute. */
export interface RelationPath {
  /** Association names from the resource's model outwards, e.g. `['order', 'customer']`. */
  readonly relation: readonly string[];
  /** The model the last association reaches. */
  readonly model: RelationModel;
  readonly column: ResolvedColumn;
  /** True when every step is belongs-to or has-one: one related value per row, so it can be sorted on. */
  readonly singular: boolean;
}

/** Which list of the relation policy a path is checked against. */
export type RelationUse = 'filterable' | 'sortable';

/** The most associations one path may walk (`a.b.c.column`). */
export const MAX_RELATION_DEPTH = 3;

const SINGULAR: ReadonlySet<string> = new Set(['BelongsTo', 'HasOne']);

/**
 * True for an association that gives one record (belongs-to, has-one), not a list.
 * @example isSingular(Product.associations.category) // true
 */
export function isSingular(association: AssociationShape): boolean {
  return SINGULAR.has(association.associationType);
}

/**
 * True for a client's name that walks associations (`category.name`), as opposed to a column of the model.
 * @example isRelationPath('category.name') // true
 */
export function isRelationPath(name: string): boolean {
  return name.includes('.');
}

/**
 * Resolves `association[.association…].attribute`: each association must exist on the model it
 * is reached from and be declared in the relation policy (by its path from the resource's model);
 * the attribute must be in that association's `use` list. `id` names the related model's find
 * field (`findField`, else its primary key). Left is a `columnNotFound` item naming the whole path.
 * @example resolveRelationPath(Product, 'category.name', policy.relations, 'filterable', 'id')
 *   // right({ relation: ['category'], model: Category, column: { attribute: 'name', column: 'name' }, singular: true
 *   // })
 */
export function resolveRelationPath(
  model: RelationModel,
  path: string,
  policies: Readonly<Record<string, RelationPolicy>> | undefined,
  use: RelationUse,
  findField: string,
): E.Either<FailItem<ErrorCode>, RelationPath> {
  const steps = path.split('.');
  const name = steps.pop()!;
  const notFound = (why: string) =>
    E.left<FailItem<ErrorCode>>({
      field: path,
      error: 'columnNotFound',
      message: `The path ${JSON.stringify(path)} was not found: ${why}`,
    });
  if (steps.length === 0 || steps.length > MAX_RELATION_DEPTH)
    return notFound(`a path walks 1 to ${MAX_RELATION_DEPTH} associations`);
  let source = model;
  let singular = true;
  let policy: RelationPolicy | undefined;
  for (const [index, step] of steps.entries()) {
    const association = Object.hasOwn(source.associations ?? {}, step) ? source.associations![step] : undefined;
    const prefix = steps.slice(0, index + 1).join('.');
    policy = policies !== undefined && Object.hasOwn(policies, prefix) ? policies[prefix] : undefined;
    if (association === undefined || policy === undefined)
      return notFound(`${JSON.stringify(prefix)} is not an association this resource opens`);
    singular &&= isSingular(association);
    source = association.target;
  }
  const attribute = name === 'id' ? (findFieldNamed(source, findField)?.attribute ?? name) : name;
  const column = allowedColumn(source, policy![use], attribute);
  if (column === undefined)
    return notFound(
      `${JSON.stringify(name)} is not a ${use === 'filterable' ? 'filterable' : 'sortable'} column of ` +
        `${JSON.stringify(steps.join('.'))}`,
    );
  return E.right({ relation: steps, model: source, column, singular });
}

/**
 * For a filter key that walks associations, its resolved path against the relation policy's
 * filterable columns; undefined for a plain column name (the caller resolves that as before).
 * @example relationTarget(Product, 'category.name', settings) // right({ relation: ['category'], … })
 */
export function relationTarget(
  model: AttributeSource,
  name: string,
  settings: {
    readonly policy: { readonly relations?: Readonly<Record<string, RelationPolicy>> | undefined };
    readonly findField?: string | undefined;
  },
): E.Either<FailItem<ErrorCode>, RelationPath> | undefined {
  if (!isRelationPath(name)) return undefined;
  return resolveRelationPath(
    model as RelationModel,
    name,
    settings.policy.relations,
    'filterable',
    settings.findField ?? 'id',
  );
}

/**
 * The ordering clause of a sort item that walks associations: `association….attribute` by
 * attribute name, for belongs-to and has-one paths only (a has-many path has no single value per row).
 * @example relationSort(Product, 'category.name', 'DESC', policy.relations, 'id') // right(['category.name', 'DESC'])
 */
export function relationSort(
  model: AttributeSource,
  name: string,
  direction: Direction,
  policies: Readonly<Record<string, RelationPolicy>> | undefined,
  findField: string,
): E.Either<FailItem<ErrorCode>, Order> {
  return E.flatMap((path: RelationPath): E.Either<FailItem<ErrorCode>, Order> =>
    path.singular
      ? E.right([[...path.relation, path.column.attribute].join('.'), direction])
      : E.left({
          field: name,
          error: 'invalidValue',
          message:
            `${name} cannot be sorted on: it goes through a has-many association, ` +
            'which has no single value per row',
        }),
  )(resolveRelationPath(model as RelationModel, name, policies, 'sortable', findField));
}
