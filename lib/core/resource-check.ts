/** checkResource: what registration refuses — unknown names, a find field a uuid route cannot reach — as sentences. */
import type { AttributeSource, CrudMethod, FastCrudConfig } from '../types.js';
import { findColumn, knownNames } from './columns.js';
import { configNameProblems } from './config-names.js';
import { RECORD_ACTIONS, findFieldOf, holdsUuids, type RecordAction } from './find-field.js';
import { didYouMean } from './nearest.js';
import type { RelationModel } from './relation-paths.js';
import { checkRelations, type RelationDeclarations } from './relation-policy.js';

/** A model as registration checks it: its name, attributes and associations. */
export interface ModelShape extends AttributeSource {
  readonly name: string;
  readonly associations?: Readonly<Record<string, { readonly target: ModelShape }>>;
}

/** The names a resource declares, from `resource()`'s spec or a controller's properties. */
export interface Declarations {
  readonly hidden?: readonly string[] | undefined;
  readonly fillable?: readonly string[] | 'all' | undefined;
  readonly sortable?: readonly string[] | undefined;
  readonly filterable?: readonly string[] | undefined;
  readonly termFields?: readonly string[] | undefined;
  readonly csvColumns?: Readonly<Record<string, string>> | undefined;
  /** Association paths opened to filters, sorts and includes (`relations`). */
  readonly relations?: RelationDeclarations | undefined;
}

/**
 * Every problem with a resource's declarations, as a sentence naming the key, the bad value and
 * the nearest valid name: unknown names in the policy lists, `termFields`, `csvColumns` paths and `relations`;
 * a find field that a `{id:uuid}` route cannot reach (an integer key with `find_field_is_uuid`) or
 * that is one column of a composite primary key; create or update registered without a declared
 * `fillable`; configured column names that are hidden or near misses (`configNameProblems`).
 * Empty when all is well.
 * @example checkResource(User, { hidden: ['pasword'] }, config, ['read'])
 *   // ["hidden names 'pasword', which is not an attribute or column of User; did you mean 'password'?"]
 */
export function checkResource(
  model: ModelShape,
  declared: Declarations,
  config: FastCrudConfig,
  methods: readonly CrudMethod[],
): string[] {
  const lists = ['hidden', 'fillable', 'sortable', 'filterable', 'termFields'] as const;
  const names = lists.flatMap((key) => {
    const list = declared[key];
    return Array.isArray(list) ? list.flatMap((name: string) => unknownName(model, key, name)) : [];
  });
  const paths = Object.keys(declared.csvColumns ?? {}).flatMap((path) => unknownPath(model, path));
  const relations = checkRelations(model as unknown as RelationModel, declared.relations);
  const hidden = new Set((declared.hidden ?? []).flatMap((name) => findColumn(model, name)?.attribute ?? []));
  return [
    ...names,
    ...paths,
    ...relations,
    ...findFieldProblems(model, config, methods),
    ...fillableProblems(declared, methods),
    ...configNameProblems(model, hidden, config, methods),
  ];
}

/** Nothing is mass-assignable until declared: without `fillable`, create and update would write any attribute. */
function fillableProblems(declared: Declarations, methods: readonly CrudMethod[]): string[] {
  const writes = methods.filter((method) => method === 'create' || method === 'update');
  if (declared.fillable !== undefined || writes.length === 0) return [];
  const names = listOf(writes);
  return [
    `${names} ${writes.length > 1 ? 'are' : 'is'} registered without fillable, so a body could write any attribute: ` +
      `declare fillable: [...] (the attributes a body may write) or fillable: 'all', ` +
      `or leave ${names} out with except`,
  ];
}

function unknownName(model: ModelShape, key: string, name: string): string[] {
  if (findColumn(model, name) !== undefined) return [];
  return [
    `${key} names '${name}', which is not an attribute or column of ` +
      `${model.name}${didYouMean(name, knownNames(model))}`,
  ];
}

function unknownPath(model: ModelShape, path: string): string[] {
  const steps = path.split('.');
  let source = model;
  for (const [index, step] of steps.entries()) {
    const last = index === steps.length - 1;
    if (last) {
      if (findColumn(source, step) !== undefined) return [];
      return [
        `csvColumns names '${path}': '${step}' is not an attribute or column of ` +
          `${source.name}${didYouMean(step, knownNames(source))}`,
      ];
    }
    const association = Object.hasOwn(source.associations ?? {}, step) ? source.associations![step] : undefined;
    if (association === undefined) {
      return [
        `csvColumns names '${path}': '${step}' is not an association of ` +
          `${source.name}${didYouMean(step, Object.keys(source.associations ?? {}))}`,
      ];
    }
    source = association.target;
  }
  return [];
}

function findFieldProblems(model: ModelShape, config: FastCrudConfig, methods: readonly CrudMethod[]): string[] {
  const actions = methods.filter((method): method is RecordAction => Object.hasOwn(RECORD_ACTIONS, method));
  const attributes = model.getAttributes();
  const keys = Object.keys(attributes).filter((name) => attributes[name]!.primaryKey);
  const byField = new Map<string, RecordAction[]>();
  const partial = new Map<string, RecordAction[]>();
  const missing = actions.filter((action) => {
    const found = findFieldOf(model, config, action);
    if (found === undefined) return true;
    if (keys.length > 1 && keys.includes(found.attribute)) {
      partial.set(found.attribute, [...(partial.get(found.attribute) ?? []), action]);
    } else if (config.global.find_field_is_uuid && !holdsUuids(found.definition)) {
      const type = (found.definition.type as { key?: string } | undefined)?.key ?? 'unknown';
      const key = `${model.name}.${found.attribute} (${type})`;
      byField.set(key, [...(byField.get(key) ?? []), action]);
    }
    return false;
  });
  return [
    ...(missing.length > 0
      ? [
          `${listOf(missing)} ${missing.length > 1 ? 'have' : 'has'} no find field: ${model.name} has no attribute ` +
            `'${config.global.find_field}' and no primary key`,
        ]
      : []),
    ...[...byField].map(
      ([field, found]) =>
        `${listOf(found)} ${found.length > 1 ? 'find' : 'finds'} {id} in ${field}, but the routes take {id:uuid}: ` +
        `set config { global: { find_field_is_uuid: false } } to match such ids, or find_field to a UUID attribute`,
    ),
    ...[...partial].map(
      ([field, found]) =>
        `${listOf(found)} ${found.length > 1 ? 'find' : 'finds'} {id} in ${model.name}.${field}, ` +
        `one column of the composite primary key (${keys.join(', ')}), so one {id} names no single row: ` +
        `set find_field to a unique column, or leave ${listOf(found)} out with only or except`,
    ),
  ];
}

function listOf(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
}
