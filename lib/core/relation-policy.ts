/**
 * The relation policy: which association paths a resource opens to filters, sorts and includes, resolved, checked, and
 * applied to records.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { ErrorCode, FailItem, FieldPolicy, RelationPolicy } from '../types.js';
import { kindOf } from './attribute-kinds.js';
import { findColumn, knownNames } from './columns.js';
import { didYouMean } from './nearest.js';
import { isSingular, MAX_RELATION_DEPTH, type RelationModel } from './relation-paths.js';
import { isRecord, listText } from './query-params.js';
import { relationWriteOf, relationWriteProblems } from './relation-writes.js';

/**
 * What a resource declares for one association path; names may be attribute or column names of the associated model.
 */
export interface RelationDeclaration {
  /** Never serialized when included, filtered nor sorted. */
  readonly hidden?: readonly string[] | undefined;
  /** Default: every attribute of the associated model not hidden. */
  readonly filterable?: readonly string[] | undefined;
  /** Default: every attribute not hidden (JSON attributes never); only belongs-to and has-one paths sort. */
  readonly sortable?: readonly string[] | undefined;
  /** True when `include=<path>` may load it; default false. */
  readonly include?: boolean | undefined;
  /**
   * True when a create or update body may write it (a one-level belongs-to-many or has-many); default false.
   * See `lib/core/relation-writes.ts`.
   */
  readonly write?: boolean | undefined;
  /** The attributes a nested row of a has-many opened for writing may set; required with `write` for has-many. */
  readonly fillable?: readonly string[] | undefined;
}

/** Declarations by association path (`category`, `order.customer`): a path not listed is closed to clients. */
export type RelationDeclarations = Readonly<Record<string, RelationDeclaration>>;

/**
 * The model a path of associations reaches, and whether every step gives one record (belongs-to,
 * has-one); undefined when a step is not an association.
 * @example reachOf(Order, 'customer') // { model: Customer, singular: true }
 */
export function reachOf(
  model: RelationModel,
  path: string,
): { readonly model: RelationModel; readonly singular: boolean } | undefined {
  let source = model;
  let singular = true;
  for (const step of path.split('.')) {
    const association = Object.hasOwn(source.associations ?? {}, step) ? source.associations![step] : undefined;
    if (association === undefined) return undefined;
    singular &&= isSingular(association);
    source = association.target;
  }
  return { model: source, singular };
}

/**
 * The model a path of associations reaches, or undefined when a step is not an association.
 * @example targetOf(Order, 'customer') // Customer
 */
export function targetOf(model: RelationModel, path: string): RelationModel | undefined {
  return reachOf(model, path)?.model;
}

/**
 * Resolves relation declarations into sets of attribute names of each associated model. Paths
 * or names that do not resolve are dropped (registration refuses them first, with `checkRelations`).
 * @example
 * const relations = resolveRelations(Product, { category: { hidden: ['secret'], include: true } });
 * relations.category.visible.has('secret') // false
 */
export function resolveRelations(
  model: RelationModel,
  declared: RelationDeclarations | undefined,
): Record<string, RelationPolicy> {
  return Object.fromEntries(
    Object.entries(declared ?? {}).flatMap(([path, declaration]) => {
      const target = targetOf(model, path);
      if (target === undefined) return [];
      const attributes = target.getAttributes();
      const named = (names: readonly string[] | undefined) =>
        names?.flatMap((name) => findColumn(target, name)?.attribute ?? []);
      const hidden = new Set(named(declaration.hidden) ?? []);
      const notHidden = (names: readonly string[]) => new Set(names.filter((name) => !hidden.has(name)));
      const all = Object.keys(attributes);
      const policy: RelationPolicy = {
        visible: notHidden(all),
        filterable: notHidden(named(declaration.filterable) ?? all),
        sortable: notHidden(
          (named(declaration.sortable) ?? all).filter((name) => kindOf(attributes[name]!) !== 'json'),
        ),
        include: declaration.include === true,
        ...(declaration.write === true && { write: relationWriteOf(model, path, declaration) }),
      };
      return [[path, policy]];
    }),
  );
}

/**
 * Every problem with relation declarations, as sentences naming the path and the nearest valid
 * name: an unknown association, a path deeper than three associations or whose shorter paths are
 * not declared, and unknown attribute names. Empty when all is well.
 * @example checkRelations(Product, { categry: {} })
 *   // ["relations names 'categry', which is not an association of Product; did you mean 'category'?"]
 */
export function checkRelations(model: RelationModel, declared: RelationDeclarations | undefined): string[] {
  return Object.entries(declared ?? {}).flatMap(([path, declaration]) => {
    const steps = path.split('.');
    if (steps.length > MAX_RELATION_DEPTH)
      return [`relations names '${path}', which walks more than ${MAX_RELATION_DEPTH} associations`];
    let source = model;
    for (const [index, step] of steps.entries()) {
      const association = Object.hasOwn(source.associations ?? {}, step) ? source.associations![step] : undefined;
      if (association === undefined) {
        return [
          `relations names '${path}': '${step}' is not an association of ` +
            `${source.name}${didYouMean(step, Object.keys(source.associations ?? {}))}`,
        ];
      }
      const prefix = steps.slice(0, index + 1).join('.');
      if (index < steps.length - 1 && !Object.hasOwn(declared ?? {}, prefix))
        return [`relations names '${path}' but not '${prefix}', which it goes through`];
      source = association.target;
    }
    const lists = ['hidden', 'filterable', 'sortable', 'fillable'] as const;
    const known = knownNames(source);
    const names = lists.flatMap((key) =>
      (declaration[key] ?? []).flatMap((name) => {
        if (findColumn(source, name) !== undefined) return [];
        return [
          `relations.${path}.${key} names '${name}', which is not an attribute or column of ` +
            `${source.name}${didYouMean(name, known)}`,
        ];
      }),
    );
    return [...names, ...relationWriteProblems(model, path, declaration)];
  });
}

/**
 * The association paths `include=category,order.customer` asks for, each declared with
 * `include: true` (as is every shorter path it goes through, which is loaded too), in order
 * without repeats. Left names the first path that may not be included.
 * @example parseInclude('category,tags', policy.relations) // right(['category', 'tags'])
 */
export function parseInclude(
  raw: unknown,
  policies: Readonly<Record<string, RelationPolicy>> | undefined,
): E.Either<FailItem<ErrorCode>[], string[]> {
  if (raw === undefined || raw === '') return E.right([]);
  const text = listText(raw);
  if (text === undefined)
    return E.left([
      { field: 'include', error: 'invalidValue', message: 'include must be a comma-separated list of associations' },
    ]);
  const includable = Object.entries(policies ?? {}).flatMap(([path, policy]) => (policy.include ? [path] : []));
  const paths: string[] = [];
  for (const item of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const steps = item.split('.');
    const prefixes = steps.map((_, index) => steps.slice(0, index + 1).join('.'));
    const closed = prefixes.find((prefix) => !includable.includes(prefix));
    if (closed !== undefined) {
      const allowed = includable.length === 0 ? 'this resource includes none' : `use one of ${includable.join(', ')}`;
      return E.left([
        {
          field: 'include',
          error: 'invalidValue',
          message: `include names ${JSON.stringify(item)}, which may not be included; ${allowed}`,
        },
      ]);
    }
    for (const prefix of prefixes) if (!paths.includes(prefix)) paths.push(prefix);
  }
  return E.right(paths);
}

/**
 * A serialized record without the attributes the policy does not show, at every level: the
 * model's own, and those of each included association the relation policy declares (an
 * association the policy does not know, say one a hook included, is left as it is).
 * @example visibleRecord(Product, { id: 1, secret: 'x', category: { name: 'Kites', code: 'k' } }, policy)
 *   // { id: 1, category: { name: 'Kites' } }
 */
export function visibleRecord(
  model: RelationModel,
  serialized: Readonly<Record<string, unknown>>,
  policy: FieldPolicy,
): Record<string, unknown> {
  const walk = (
    source: RelationModel,
    record: Readonly<Record<string, unknown>>,
    visible: ReadonlySet<string>,
    prefix: string,
  ): Record<string, unknown> => {
    const attributes = source.getAttributes();
    return Object.fromEntries(
      Object.entries(record).flatMap(([key, value]): [string, unknown][] => {
        if (Object.hasOwn(attributes, key)) return visible.has(key) ? [[key, value]] : [];
        const path = prefix === '' ? key : `${prefix}.${key}`;
        const relation =
          policy.relations !== undefined && Object.hasOwn(policy.relations, path) ? policy.relations[path] : undefined;
        const target = Object.hasOwn(source.associations ?? {}, key) ? source.associations![key]!.target : undefined;
        if (relation === undefined || target === undefined) return [[key, value]];
        const each = (item: unknown) => (isRecord(item) ? walk(target, item, relation.visible, path) : item);
        return [[key, Array.isArray(value) ? value.map(each) : each(value)]];
      }),
    );
  };
  return walk(model, serialized, policy.visible, '');
}
