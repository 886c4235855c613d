/** Arbitrary controllers and only/except lists, valid by construction. */
import fc from 'fast-check';
import { CRUD_METHODS } from '../../lib/core/route-table.js';

/** A method name: one of the table's, or one it does not know. */
export const methodNameArb = fc.oneof(
  fc.constantFrom(...CRUD_METHODS),
  fc.constantFrom('index', 'show', 'Update', 'READ', 'store'),
);

/** A list of method names for `only` or `except`. */
export const methodListArb = fc.array(methodNameArb, { maxLength: 6 });

/**
 * A controller class implementing a random subset of the table's methods, some of them inherited.
 * Returns the class and the names it implements.
 */
export const controllerArb = fc
  .tuple(fc.subarray([...CRUD_METHODS]), fc.subarray([...CRUD_METHODS]))
  .map(([own, inherited]) => {
    class Parent {}
    class Child extends Parent {}
    for (const name of inherited) Object.defineProperty(Parent.prototype, name, { value: () => undefined });
    for (const name of own) Object.defineProperty(Child.prototype, name, { value: () => undefined });
    return { Controller: Child, implemented: new Set([...own, ...inherited]) };
  });

/** A resource uri of one to three segments, maybe wrapped in slashes. */
export const uriArb = fc
  .tuple(
    fc.array(fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/), { minLength: 1, maxLength: 3 }),
    fc.constantFrom('', '/', '//'),
    fc.constantFrom('', '/'),
  )
  .map(([segments, lead, trail]) => ({ bare: segments.join('/'), given: lead + segments.join('/') + trail }));
