/**
 * Row scopes compiled: the condition of a scoped model as a where (the query's own rows and every
 * include, at every level) or as SQL (the subqueries of filters and sorts through associations).
 */
import {
  Association,
  Op,
  Sequelize,
  type FindOptions,
  type Includeable,
  type IncludeOptions,
  type Model,
  type ModelStatic,
  type WhereOptions,
} from 'sequelize';
import type { RowScope, RowScopes } from '../types.js';

/** Matches no row: a scope with no values. */
const NONE = '1 = 0';

/**
 * The where that keeps a model's rows to its scopes, keyed by attribute; undefined when the model
 * is not scoped.
 * @example scopeWhere(Book, scopes) // { [Op.and]: [{ libraryId: 7 }] }
 */
export function scopeWhere(model: ModelStatic<Model>, scopes: RowScopes): WhereOptions | undefined {
  const list = scopes.get(model);
  return list === undefined || list.length === 0
    ? undefined
    : { [Op.and]: list.map((scope) => condition(scope, scope.attribute)) };
}

/**
 * The SQL condition that keeps the rows of `model`, named `alias` in a subquery, to its scopes;
 * undefined when the model is not scoped. Values go through the dialect's escaping.
 * @example scopeSql(Book, scopes, 'books_1') // '("books_1"."library_id" = 7)'
 */
export function scopeSql(model: ModelStatic<Model>, scopes: RowScopes, alias: string): string | undefined {
  const list = scopes.get(model);
  if (list === undefined || list.length === 0) return undefined;
  const attributes = model.getAttributes();
  const where = {
    [Op.and]: list.map((scope) => condition(scope, attributes[scope.attribute]?.field ?? scope.attribute)),
  };
  const generator = model.sequelize!.getQueryInterface().queryGenerator as {
    whereItemsQuery(where: WhereOptions, options: object): string;
  };
  return `(${generator.whereItemsQuery(where, { model, prefix: alias })})`;
}

function condition({ values }: RowScope, key: string): WhereOptions {
  if (values.length === 0) return Sequelize.literal(NONE);
  return { [key]: values.length === 1 ? values[0] : { [Op.in]: [...values] } };
}

/**
 * The query with every scoped model it reaches kept to its scopes: its own rows, and each include
 * at every level (a link table's rows too), whoever wrote the include (the plan or a hook). An
 * include that gets a condition stays as optional as it was, so a parent row is never dropped for
 * a related row it may not see: the related row is left out.
 * @example scopeQuery(Author, { include: [{ association: 'books' }] }, scopes) // books joined with `library_id = 7`
 */
export function scopeQuery(model: ModelStatic<Model>, query: FindOptions, scopes: RowScopes): FindOptions {
  if (scopes.size === 0) return query;
  const own = scopeWhere(model, scopes);
  const include = query.include === undefined ? undefined : scopeIncludes(model, query.include, scopes);
  return {
    ...query,
    ...(own !== undefined && { where: andWhere(query.where, own) }),
    ...(include !== undefined && { include }),
  };
}

function andWhere(where: WhereOptions | undefined, more: WhereOptions): WhereOptions {
  return where === undefined ? more : { [Op.and]: [where, more] };
}

function scopeIncludes(
  source: ModelStatic<Model>,
  include: Includeable | Includeable[],
  scopes: RowScopes,
): IncludeOptions[] {
  const items = Array.isArray(include) ? include : [include];
  return items.flatMap((item) => expand(source, item)).map((item) => scopeInclude(source, item, scopes));
}

interface AssociationLike {
  readonly target: ModelStatic<Model>;
  readonly associationType: string;
  readonly throughModel?: ModelStatic<Model>;
}

/** An include as options naming its association: `'books'`, a model, an association, `{ all: true }` (one level). */
function expand(source: ModelStatic<Model>, item: Includeable): IncludeOptions[] {
  if (typeof item === 'string') return [{ association: item }];
  if (item instanceof Association) return [{ association: item }];
  if (typeof item === 'function') return [{ model: item as ModelStatic<Model> }];
  if ('all' in item && item.all !== undefined) {
    if ('nested' in item && item.nested === true)
      throw new TypeError(
        'An include of { all: true, nested: true } cannot be kept to row scopes: name the associations',
      );
    const wanted = item.all;
    const associations = Object.entries(source.associations) as [string, AssociationLike][];
    return associations
      .filter(([, a]) => wanted === true || a.associationType === wanted)
      .map(([name]) => ({ association: name }));
  }
  return [item as IncludeOptions];
}

function scopeInclude(source: ModelStatic<Model>, item: IncludeOptions, scopes: RowScopes): IncludeOptions {
  const association = associationOf(source, item);
  if (association === undefined) return item;
  const target = association.target;
  const own = scopeWhere(target, scopes);
  const through = association.throughModel === undefined ? undefined : scopeWhere(association.throughModel, scopes);
  const nested = item.include === undefined ? undefined : scopeIncludes(target, item.include, scopes);
  return {
    ...item,
    // A where makes Sequelize join the include as required unless told: keep what the include was.
    ...(own !== undefined && { where: andWhere(item.where, own), required: item.required ?? item.where !== undefined }),
    ...(through !== undefined && { through: { ...item.through, where: andWhere(item.through?.where, through) } }),
    ...(nested !== undefined && { include: nested }),
  };
}

/** The association an include loads, by its name, object, alias or model. */
function associationOf(source: ModelStatic<Model>, item: IncludeOptions): AssociationLike | undefined {
  const associations = source.associations as unknown as Record<string, AssociationLike>;
  const named = item.association ?? item.as;
  if (typeof named === 'string') return Object.hasOwn(associations, named) ? associations[named] : undefined;
  if (named !== undefined) return named;
  return Object.values(associations).find((association) => association.target === item.model);
}
