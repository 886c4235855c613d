/** Column names a client may name: plain identifiers, resolved against a model's attributes. */
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
