/** The find field: the one resolver of the attribute `{id}` is looked up in, for routes, lookups and OpenAPI. */
import type { AttributeDefinition, AttributeSource, CrudMethod, FastCrudConfig } from '../types.js';
import { kindOf } from './attribute-kinds.js';
import { findColumn } from './columns.js';

/** The actions that look a record up by `{id}`, with the configuration section that holds their `find_field`. */
export const RECORD_ACTIONS = Object.freeze({
  read: 'read',
  update: 'update',
  delete: 'delete',
  softDelete: 'soft_delete',
  restore: 'restore',
} as const satisfies Partial<Record<CrudMethod, keyof FastCrudConfig>>);

/** An action that looks a record up by `{id}`. */
export type RecordAction = keyof typeof RECORD_ACTIONS;

/** The attribute an action finds `{id}` in, with its definition. */
export interface FindField {
  readonly attribute: string;
  readonly definition: AttributeDefinition;
}

/**
 * The attribute an action looks `{id}` up in: the action's `find_field`, else `global.find_field`,
 * by attribute or column name; the primary key when the model has no such attribute.
 * Undefined when there is neither.
 * @example findFieldOf(Product, config, 'read') // { attribute: 'id', definition: { type: UUID, primaryKey: true } }
 */
export function findFieldOf(
  model: AttributeSource,
  config: FastCrudConfig,
  action: RecordAction,
): FindField | undefined {
  return findFieldNamed(model, config[RECORD_ACTIONS[action]].find_field ?? config.global.find_field);
}

/**
 * The attribute a find-field name refers to (attribute or column name), else the primary key.
 * @example findFieldNamed(Category, 'external_id') // { attribute: 'externalId', definition: { type: UUID } }
 */
export function findFieldNamed(model: AttributeSource, name: string): FindField | undefined {
  const attributes = model.getAttributes();
  const attribute =
    findColumn(model, name)?.attribute ?? Object.keys(attributes).find((key) => attributes[key]!.primaryKey);
  return attribute === undefined ? undefined : { attribute, definition: attributes[attribute]! };
}

/**
 * True when an attribute can hold what a `{id:uuid}` route passes: a UUID or a string column.
 * @example holdsUuids({ type: DataTypes.UUID }) // true
 * @example holdsUuids({ type: DataTypes.INTEGER }) // false
 */
export function holdsUuids(definition: AttributeDefinition): boolean {
  const kind = kindOf(definition);
  return kind === 'uuid' || kind === 'string';
}
