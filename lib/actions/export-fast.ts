/** The export's fast path: when raw rows give the same cells as model instances, and a reader per column for them. */
import { Model, type FindOptions, type ModelStatic } from 'sequelize';
import type { CsvColumn } from '../core/csv-cells.js';
import { csvColumns, valueAt } from '../core/csv-cells.js';
import { rawCellReader } from '../core/csv-raw.js';
import { visibleRecord } from '../core/relation-policy.js';
import type { ActionScope } from '../resource/scope.js';

/**
 * One column of the fast path: the raw row's key (the dot path, as Sequelize names included columns in a raw row) and
 * its cell reader.
 */
export interface FastColumn {
  readonly key: string;
  readonly cell: (value: unknown) => string;
}

/**
 * The fast path's column plan for an export, or undefined when the instance path must serialize:
 * the search serializer is not the model's own `toJSON`, a plugin has a `rows` stage, an include
 * is not a single association (belongs-to, has-one) named by `association`, or a column reaches
 * an attribute with a getter, a VIRTUAL or JSON-less kind (`other`), or no attribute at all. A
 * column the relation policy hides in search's JSON is an empty cell here too.
 * @example const fast = fastColumns(scope, query, columns); // undefined → serialize instances
 */
export function fastColumns(
  scope: ActionScope,
  query: FindOptions,
  columns: readonly CsvColumn[],
): FastColumn[] | undefined {
  const { model, config, resource } = scope;
  if (config.search.method !== 'toJSON' || model.prototype.toJSON !== Model.prototype.toJSON) return undefined;
  if (resource.plugins.some((plugin) => plugin.rows !== undefined)) return undefined;
  if (!singleIncludes(model, query.include)) return undefined;
  const dialect = model.sequelize!.getDialect();
  const timezone = (model.sequelize as unknown as { options: { timezone?: string } }).options.timezone ?? '+00:00';
  const shown = shownPaths(scope, columns);
  const plan: FastColumn[] = [];
  for (const column of columns) {
    const definition = attributeAt(model, column.keys);
    if (definition === undefined) return undefined;
    plan.push({
      key: column.path,
      cell: shown.has(column.path) ? rawCellReader(definition, dialect, timezone) : () => '',
    });
  }
  return plan;
}

/** The paths search's JSON keeps after the field policy (hidden fields of included models go). */
function shownPaths(scope: ActionScope, columns: readonly CsvColumn[]): Set<string> {
  const probe: Record<string, unknown> = {};
  for (const column of columns) {
    let node = probe;
    for (const key of column.keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[column.keys.at(-1)!] = true;
  }
  const visible = visibleRecord(scope.model, probe, scope.resource.policy);
  return new Set(columns.filter((column) => valueAt(visible, column.path) === true).map((column) => column.path));
}

type Definition = ReturnType<ModelStatic<Model>['getAttributes']>[string];

/** The attribute a column's keys reach through associations, when the instance path would show it unchanged. */
function attributeAt(model: ModelStatic<Model>, keys: readonly string[]): Definition | undefined {
  let source = model;
  for (const key of keys.slice(0, -1)) {
    const association = Object.hasOwn(source.associations, key) ? source.associations[key] : undefined;
    if (association === undefined) return undefined;
    source = association.target;
  }
  const name = keys.at(-1)!;
  const attributes = source.getAttributes();
  const definition = Object.hasOwn(attributes, name) ? attributes[name] : undefined;
  const getters = (source as unknown as { options: { getterMethods?: Record<string, unknown> } }).options.getterMethods;
  if (
    definition === undefined ||
    definition.get !== undefined ||
    (getters !== undefined && Object.hasOwn(getters, name))
  )
    return undefined;
  const [column] = csvColumns(source, { [name]: name });
  return column?.kind === undefined || column.kind === 'other' ? undefined : definition;
}

/**
 * True when every include (nested ones too) is a single association named by `association`: a raw row then holds one
 * row per record.
 */
function singleIncludes(model: ModelStatic<Model>, include: FindOptions['include']): boolean {
  if (include === undefined) return true;
  const list = Array.isArray(include) ? include : [include];
  return list.every((item) => {
    if (
      typeof item !== 'object' ||
      item === null ||
      !('association' in item) ||
      (item as { separate?: boolean }).separate === true
    )
      return false;
    const named = (item as { association: unknown }).association;
    const association =
      typeof named === 'string'
        ? Object.hasOwn(model.associations, named)
          ? model.associations[named]
          : undefined
        : named;
    const single = association as { isSingleAssociation?: boolean; target?: ModelStatic<Model> } | undefined;
    return (
      single?.isSingleAssociation === true &&
      singleIncludes(single.target!, (item as { include?: FindOptions['include'] }).include)
    );
  });
}
