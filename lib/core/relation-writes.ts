/**
 * Relational writes, planned: which associations a body may write (`relations.<name>.write`), and the links or nested
 * rows a create or update body asks for, checked into plain values before anything is written.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { ErrorCode, FailItem, RelationPolicy, RelationWrite } from '../types.js';
import { coerceQueryValue } from './attribute-kinds.js';
import { findColumn } from './columns.js';
import { findFieldNamed } from './find-field.js';
import { isRecord } from './query-params.js';
import { fillableFields } from './record-plan.js';
import type { RelationModel } from './relation-paths.js';

/** The part of a relation declaration that opens it for writing. */
export interface RelationWriteDeclaration {
  readonly write?: boolean | undefined;
  readonly fillable?: readonly string[] | undefined;
}

/**
 * One checked relational write: set the links to exactly `ids`, add and remove links, or create `rows` as new related
 * rows. Ids are values of the associated model's find field, coerced to its type, without repeats.
 * @example ({ kind: 'set', name: 'tags', ids: [1, 3] })
 */
export type RelationWritePlan =
  | { readonly kind: 'set'; readonly name: string; readonly ids: readonly unknown[] }
  | {
      readonly kind: 'change';
      readonly name: string;
      readonly add: readonly unknown[];
      readonly remove: readonly unknown[];
    }
  | { readonly kind: 'nested'; readonly name: string; readonly rows: readonly Record<string, unknown>[] };

/** Where an id of a plan came from in the body (`tags.1`, `tags.add.0`), to name it in an error. */
export interface PlannedId {
  readonly name: string;
  readonly field: string;
  readonly value: unknown;
}

const SEPARATE_KEYS = new Set(['add', 'remove']);

/**
 * Every problem with `write`/`fillable` in one relation declaration, as sentences: only a one-level belongs-to-many or
 * has-many is written; a has-many needs its own non-empty `fillable`, without the foreign key its parent sets; a
 * belongs-to-many takes no `fillable`; `fillable` without `write` does nothing.
 * @example relationWriteProblems(Order, 'lines', { write: true })
 *   // ["relations.lines opens a has-many for writing without fillable: …"]
 */
export function relationWriteProblems(
  model: RelationModel,
  path: string,
  declaration: RelationWriteDeclaration,
): string[] {
  if (declaration.write !== true)
    return declaration.fillable === undefined
      ? []
      : [`relations.${path}.fillable is read only with write: true, which relations.${path} does not say`];
  const association = Object.hasOwn(model.associations ?? {}, path) ? model.associations![path] : undefined;
  if (association === undefined)
    return [`relations.${path}.write: only an association of ${model.name} itself (one level) may be written`];
  const type = association.associationType;
  if (type === 'BelongsToMany')
    return declaration.fillable === undefined
      ? []
      : [`relations.${path}.fillable: a belongs-to-many writes links to existing rows, not their attributes`];
  if (type !== 'HasMany')
    return [
      `relations.${path}.write opens belongs-to-many and has-many associations; ${path} is a ${type}: ` +
        `make its foreign key fillable instead`,
    ];
  if (declaration.fillable === undefined || declaration.fillable.length === 0)
    return [
      `relations.${path} opens a has-many for writing without fillable: declare fillable: [...] (the attributes ` +
        `a nested row may set)`,
    ];
  const foreignKey = (association as { foreignKey?: unknown }).foreignKey;
  const target = association.target;
  const keyName = declaration.fillable.find((name) => findColumn(target, name)?.attribute === foreignKey);
  return keyName === undefined
    ? []
    : [`relations.${path}.fillable names '${keyName}', the foreign key the created record sets`];
}

/**
 * How a declaration opened with `write: true` writes its association (called once `relationWriteProblems` is empty).
 * @example relationWriteOf(Book, 'tags', { write: true }) // { kind: 'links', fillable: Set {} }
 */
export function relationWriteOf(
  model: RelationModel,
  path: string,
  declaration: RelationWriteDeclaration,
): RelationWrite {
  const target = model.associations?.[path]?.target;
  const kind = model.associations?.[path]?.associationType === 'HasMany' ? 'nested' : 'links';
  const fillable = (declaration.fillable ?? []).flatMap((name) =>
    target === undefined ? [] : (findColumn(target, name)?.attribute ?? []),
  );
  return { kind, fillable: new Set(fillable) };
}

/**
 * The names of the associations a body may write, from the resolved relation policies.
 * @example writableRelations(policy.relations) // ['tags', 'lines']
 */
export function writableRelations(relations: Readonly<Record<string, RelationPolicy>> | undefined): string[] {
  return Object.entries(relations ?? {}).flatMap(([name, policy]) => (policy.write === undefined ? [] : [name]));
}

/**
 * A body's fields split into the model's own and those naming an association opened for writing.
 * @example splitRelational({ title: 'Dune', tags: [1] }, policy.relations)
 *   // { own: { title: 'Dune' }, relational: { tags: [1] } }
 */
export function splitRelational(
  data: Readonly<Record<string, unknown>>,
  relations: Readonly<Record<string, RelationPolicy>> | undefined,
): { own: Record<string, unknown>; relational: Record<string, unknown> } {
  const writable = new Set(writableRelations(relations));
  const own: Record<string, unknown> = {};
  const relational: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (writable.has(key)) relational[key] = value;
    else own[key] = value;
  }
  return { own, relational };
}

/**
 * The relational fields of a body as plans, checked: a belongs-to-many takes an array of ids (set) or
 * `{ "add": [..], "remove": [..] }`, each id a string or number of the associated model's find field (`findField`, else
 * its primary key); a has-many takes an array of objects on create only, each limited to the relation's `fillable` and
 * checked against the child's attribute kinds. Left: one item per problem, the field naming where (`tags.1`,
 * `tags.add.0`, `lines.0.quantity`); an update that writes a has-many is `invalidValue` naming it.
 * @example planRelationWrites(Book, { tags: [1, '3'] }, policy.relations, 'create', 'id')
 *   // right([{ kind: 'set', name: 'tags', ids: [1, 3] }])
 */
export function planRelationWrites(
  model: RelationModel,
  relational: Readonly<Record<string, unknown>>,
  relations: Readonly<Record<string, RelationPolicy>> | undefined,
  action: 'create' | 'update',
  findField: string,
): E.Either<FailItem<ErrorCode>[], RelationWritePlan[]> {
  const failures: FailItem<ErrorCode>[] = [];
  const plans: RelationWritePlan[] = [];
  for (const [name, value] of Object.entries(relational)) {
    const write = relations?.[name]?.write;
    const target = model.associations?.[name]?.target;
    if (write === undefined || target === undefined) continue;
    if (write.kind === 'nested') {
      if (action === 'update') {
        failures.push(
          invalid(name, value, `${name} is written on create only: change its rows through their own route`),
        );
        continue;
      }
      const rows = nestedRows(target, name, value, write.fillable);
      if (E.isLeft(rows)) failures.push(...rows.left);
      else plans.push({ kind: 'nested', name, rows: rows.right });
      continue;
    }
    const plan = linkPlan(target, name, value, findField);
    if (E.isLeft(plan)) failures.push(...plan.left);
    else plans.push(plan.right);
  }
  return failures.length > 0 ? E.left(failures) : E.right(plans);
}

/**
 * Every id a list of plans names, with the field that named it, to be looked up in the associated model.
 * @example plannedIds([{ kind: 'change', name: 'tags', add: [2], remove: [] }])
 *   // [{ name: 'tags', field: 'tags.add.0', value: 2 }]
 */
export function plannedIds(plans: readonly RelationWritePlan[]): PlannedId[] {
  return plans.flatMap((plan): PlannedId[] => {
    const named = (ids: readonly unknown[], prefix: string) =>
      ids.map((value, index) => ({ name: plan.name, field: `${prefix}.${index}`, value }));
    if (plan.kind === 'set') return named(plan.ids, plan.name);
    if (plan.kind === 'change')
      return [...named(plan.add, `${plan.name}.add`), ...named(plan.remove, `${plan.name}.remove`)];
    return [];
  });
}

function linkPlan(
  target: RelationModel,
  name: string,
  value: unknown,
  findField: string,
): E.Either<FailItem<ErrorCode>[], RelationWritePlan> {
  const shape = `${name} must be an array of ids, or an object with "add" and/or "remove" arrays of ids`;
  const key = findFieldNamed(target, findField);
  if (key === undefined) return E.left([invalid(name, value, `${name} cannot be written: its model has no key`)]);
  const ids = (list: unknown, prefix: string): E.Either<FailItem<ErrorCode>[], unknown[]> => {
    if (!Array.isArray(list)) return E.left([invalid(prefix, list, shape)]);
    const failures: FailItem<ErrorCode>[] = [];
    const values: unknown[] = [];
    for (const [index, item] of list.entries()) {
      const coerced =
        typeof item === 'string' || (typeof item === 'number' && Number.isFinite(item))
          ? coerceQueryValue(key.definition, String(item))
          : E.left('must be a string or a number');
      if (E.isLeft(coerced))
        failures.push({
          field: `${prefix}.${index}`,
          error: 'type',
          value: item,
          message: `${prefix}.${index} ${coerced.left}`,
        });
      else values.push(coerced.right);
    }
    return failures.length > 0 ? E.left(failures) : E.right(values);
  };
  if (Array.isArray(value)) {
    const set = ids(value, name);
    return E.isLeft(set) ? set : E.right({ kind: 'set', name, ids: set.right });
  }
  if (!isRecord(value) || Object.keys(value).length === 0 || Object.keys(value).some((k) => !SEPARATE_KEYS.has(k)))
    return E.left([invalid(name, value, shape)]);
  const add = ids(value['add'] ?? [], `${name}.add`);
  const remove = ids(value['remove'] ?? [], `${name}.remove`);
  const failures = [...(E.isLeft(add) ? add.left : []), ...(E.isLeft(remove) ? remove.left : [])];
  if (E.isLeft(add) || E.isLeft(remove)) return E.left(failures);
  return E.right({ kind: 'change', name, add: add.right, remove: remove.right });
}

function nestedRows(
  target: RelationModel,
  name: string,
  value: unknown,
  fillable: ReadonlySet<string>,
): E.Either<FailItem<ErrorCode>[], Record<string, unknown>[]> {
  if (!Array.isArray(value)) return E.left([invalid(name, value, `${name} must be an array of objects`)]);
  const policy = { visible: new Set<string>(), fillable, sortable: new Set<string>(), filterable: new Set<string>() };
  const failures: FailItem<ErrorCode>[] = [];
  const rows: Record<string, unknown>[] = [];
  for (const [index, item] of value.entries()) {
    const prefix = `${name}.${index}`;
    if (!isRecord(item)) {
      failures.push(invalid(prefix, item, `${prefix} must be an object`));
      continue;
    }
    const row = fillableFields(target, item, policy);
    if (E.isLeft(row))
      failures.push(
        ...row.left.map((failure) => ({
          ...failure,
          field: `${prefix}.${failure.field}`,
          message: `${prefix}.${failure.message}`,
        })),
      );
    else rows.push(row.right);
  }
  return failures.length > 0 ? E.left(failures) : E.right(rows);
}

function invalid(field: string, value: unknown, message: string): FailItem<ErrorCode> {
  return { field, error: 'invalidValue', value, message };
}
