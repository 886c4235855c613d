/** Column names a client may name: plain identifiers, resolved against a model's attributes. */
import { snakeCase } from 'change-case';
import type { AttributeSource } from '../types.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * True for a plain SQL identifier that every supported dialect accepts unquoted-safe:
 * a letter or underscore, then letters, digits or underscores, 63 characters at most.
 * @example isPlainIdentifier('created_at') // true
 * @example isPlainIdentifier('name; DROP TABLE x') // false
 */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** A model attribute found by a client's name: its attribute name and its column. */
export interface ResolvedColumn {
  readonly attribute: string;
  readonly column: string;
}

/**
 * Finds the attribute a name refers to, by attribute name first, then by column (field) name.
 * @example findColumn(Product, 'createdAt') // { attribute: 'createdAt', column: 'created_at' }
 * @example findColumn(Product, 'created_at') // { attribute: 'createdAt', column: 'created_at' }
 */
export function findColumn(model: AttributeSource, name: string): ResolvedColumn | undefined {
  const attributes = model.getAttributes();
  const byName = Object.hasOwn(attributes, name) ? attributes[name] : undefined;
  if (byName) return { attribute: name, column: byName.field ?? name };
  const entry = Object.entries(attributes).find(([, definition]) => definition.field === name);
  return entry && { attribute: entry[0], column: name };
}

/**
 * The one resolver of a client's column name (sort, filter, term search): by attribute
 * name, then column name, then camelCase/snake_case equivalence with either (`categoryId` finds the
 * attribute `category_id`, `created_at` finds `createdAt`). An equivalence that fits two attributes
 * resolves to neither.
 * @example resolveColumn(Product, 'categoryId') // { attribute: 'category_id', column: 'category_id' }
 */
export function resolveColumn(model: AttributeSource, name: string): ResolvedColumn | undefined {
  const exact = findColumn(model, name);
  if (exact !== undefined || name === '') return exact;
  const wanted = snakeCase(name);
  const matches = Object.entries(model.getAttributes()).filter(
    ([attribute, definition]) =>
      snakeCase(attribute) === wanted || (definition.field !== undefined && snakeCase(definition.field) === wanted),
  );
  const [only] = matches;
  return matches.length === 1 && only ? { attribute: only[0], column: only[1].field ?? only[0] } : undefined;
}

/**
 * Every name a client or a declaration may use for the model's attributes: attribute and column names.
 * @example knownNames(Product) // ['id', 'createdAt', 'created_at', …]
 */
export function knownNames(model: AttributeSource): string[] {
  return [
    ...new Set(Object.entries(model.getAttributes()).flatMap(([name, definition]) => [name, definition.field ?? name])),
  ];
}
