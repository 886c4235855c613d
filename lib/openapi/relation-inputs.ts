/** The relational write fields of a create or update body, as JSON Schema properties (`relations.<name>.write`). */
import { findFieldNamed } from '../core/find-field.js';
import type { RelationModel } from '../core/relation-paths.js';
import type { FieldPolicy } from '../types.js';
import { attributeSchema, objectSchema, requiredOnCreate, type JsonSchema } from './attribute-schema.js';

/**
 * One property per association a body may write: a belongs-to-many takes an array of the related
 * find field's values (the links to set) or an object of `add` and `remove` arrays; a has-many takes
 * an array of nested rows of its `fillable` attributes, on create only.
 * @example relationInputProperties(Order, policy, 'create', 'id')
 *   // { labels: { oneOf: [{ type: 'array', … }, { type: 'object', … }] }, lines: { type: 'array', … } }
 */
export function relationInputProperties(
  model: RelationModel,
  policy: FieldPolicy,
  action: 'create' | 'update',
  findField: string,
): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(policy.relations ?? {}).flatMap(([name, relation]): [string, JsonSchema][] => {
      const target = model.associations?.[name]?.target;
      const write = relation.write;
      if (target === undefined || write === undefined) return [];
      if (write.kind === 'nested') {
        if (action === 'update') return [];
        const row = objectSchema(target, write.fillable, requiredOnCreate(target, write.fillable));
        return [[name, { type: 'array', items: row, description: `New ${target.name} rows created with the record` }]];
      }
      const key = findFieldNamed(target, findField);
      if (key === undefined) return [];
      const ids = { type: 'array', items: attributeSchema(key.definition) };
      const change = {
        type: 'object',
        properties: { add: ids, remove: ids },
        additionalProperties: false,
        minProperties: 1,
      };
      const description =
        `The ${target.name} rows linked to the record, by ${key.attribute}: an array sets the links to exactly ` +
        `those, an object adds and removes some`;
      return [[name, { oneOf: [ids, change], description }]];
    }),
  );
}
