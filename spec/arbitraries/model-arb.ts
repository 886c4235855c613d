/** Arbitrary model attribute maps, as `getAttributes()` returns them. */
import fc from 'fast-check';
import type { AttributeSource } from '../../lib/types.js';

/** A plain identifier. */
export const identifierArb = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,10}$/);

/** A model with distinct attribute names, some mapped to a different column (field). */
export const modelArb = fc
  .uniqueArray(fc.tuple(identifierArb, fc.option(identifierArb, { nil: undefined })), {
    minLength: 1,
    maxLength: 6,
    selector: ([name]) => name,
  })
  .map((entries) => {
    const attributes = Object.fromEntries(entries.map(([name, field]) => [name, { field: field ?? name }]));
    const model: AttributeSource = { getAttributes: () => attributes };
    return { model, attributes };
  });

/** Any string a client could send as a column name, hostile ones included. */
export const clientColumnArb = fc.oneof(
  identifierArb,
  fc.string(),
  fc.constantFrom('name; DROP TABLE x', "name'--", 'a,b', '*', '"name"', 'name--', '__proto__', 'constructor', ''),
);
