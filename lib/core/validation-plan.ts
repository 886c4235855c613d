/**
 * planValidation and surelyValid: a synchronous check that a built record passes Sequelize's own validation
 * (`record.validate({ hooks: false })`), made of the same tests with the same validator functions, for models whose
 * validators are all built in. It only says "passes" when Sequelize would: a record it is unsure of goes to
 * Sequelize's `validate`, which decides (and words the errors).
 */

/** What the planner knows of one attribute, as the shell read it from the model. */
export interface AttributeFacts {
  readonly name: string;
  /** `allowNull` as declared (undefined when it is not). */
  readonly allowNull: boolean | undefined;
  /** Sequelize checks its value against the schema (not null, not an object for a string): false for attributes it
   * generates (timestamps) and auto-increment ones. */
  readonly schemaChecked: boolean;
  /** Its type is STRING, TEXT or CITEXT (or a subclass): an array or object value is refused. */
  readonly stringType: boolean;
  /** The model's validators of the attribute (its `validate` option as declared), undefined when it has none. */
  readonly validators: unknown;
}

/** What the planner knows of the model. */
export interface ValidationFacts {
  readonly attributes: readonly AttributeFacts[];
  /** The names of the model's own validators (its `validate` option), run on every record. */
  readonly modelValidators: readonly string[];
}

/** One built-in validator of an attribute: its name and its test (the value of its key in `validate`). */
export interface BuiltinCheck {
  readonly name: string;
  readonly test: unknown;
}

/** The checks of one attribute. */
export interface AttributeCheck {
  readonly name: string;
  readonly allowNull: boolean | undefined;
  readonly notNull: boolean;
  readonly notObject: boolean;
  /** Undefined when the attribute has no validators (then no validator runs, null or not). */
  readonly validators: readonly BuiltinCheck[] | undefined;
}

/** How a create's records are validated: `checked` by `surelyValid` first, or only by Sequelize, for `reason`. */
export type ValidationPlan =
  | { readonly path: 'checked'; readonly attributes: readonly AttributeCheck[] }
  | { readonly path: 'sequelize'; readonly reason: string };

/** Validators whose test Sequelize rewrites before each call (its `msg` alone, or an empty object for `true`). */
const REWRITTEN = ['isUrl', 'isURL', 'isEmail'];
/** Validators Sequelize calls without arguments unless given a string (`isIP` always). */
const LOCALIZED = ['isAlpha', 'isAlphanumeric', 'isMobilePhone'];

/**
 * The checks `surelyValid` runs, or `sequelize` when only Sequelize can tell: a model validator, a custom (function)
 * validator or `isImmutable` (which reads the record).
 * @example planValidation({ attributes: [{ name: 'price', allowNull: true, schemaChecked: true, stringType: false,
 *   validators: { min: 0 } }], modelValidators: [] }).path // 'checked'
 */
export function planValidation(facts: ValidationFacts): ValidationPlan {
  if (facts.modelValidators.length > 0)
    return { path: 'sequelize', reason: `the model validator ${facts.modelValidators[0]!}` };
  const attributes: AttributeCheck[] = [];
  for (const attribute of facts.attributes) {
    let validators: BuiltinCheck[] | undefined;
    if (attribute.validators !== undefined && attribute.validators !== null) {
      if (typeof attribute.validators !== 'object' || Array.isArray(attribute.validators))
        return { path: 'sequelize', reason: `the validators of ${attribute.name} are not an object` };
      validators = [];
      // As Sequelize walks them (lodash's forIn: own and inherited enumerable keys).
      for (const name in attribute.validators) {
        const test = (attribute.validators as Readonly<Record<string, unknown>>)[name];
        if (typeof test === 'function')
          return { path: 'sequelize', reason: `the custom validator ${name} of ${attribute.name}` };
        if (name === 'isImmutable') return { path: 'sequelize', reason: `isImmutable on ${attribute.name}` };
        // Sequelize reads the test's `args`: a missing test throws there, which it reports as a failed validation.
        if (test === null || test === undefined)
          return { path: 'sequelize', reason: `the validator ${name} of ${attribute.name} has no test` };
        validators.push({ name, test });
      }
    }
    attributes.push({
      name: attribute.name,
      allowNull: attribute.allowNull,
      notNull: attribute.schemaChecked && attribute.allowNull === false,
      notObject: attribute.schemaChecked && attribute.stringType,
      validators,
    });
  }
  return { path: 'checked', attributes };
}

/** A validator function of Sequelize's `Validator` (validator.js and Sequelize's extras). */
export type ValidatorFunction = (this: unknown, value: string, ...args: unknown[]) => unknown;

/**
 * True when Sequelize's validation of a record with these values surely passes: every check of the plan passed, each
 * validator called as Sequelize calls it (`String(value)` and the same arguments). False means unsure, never
 * "fails": the caller then asks Sequelize.
 * @example surelyValid(plan, { name: 'Kite', price: 3 }, Validator) // true
 */
export function surelyValid(
  plan: Extract<ValidationPlan, { path: 'checked' }>,
  values: Readonly<Record<string, unknown>>,
  validator: Readonly<Record<string, unknown>>,
): boolean {
  for (const attribute of plan.attributes) {
    const value = values[attribute.name];
    const absent = value === null || value === undefined;
    if (attribute.notNull && absent) return false;
    if (attribute.notObject && (typeof value === 'function' || (typeof value === 'object' && value !== null)))
      return false;
    if (attribute.validators === undefined || absent) continue;
    for (const { name, test } of attribute.validators) {
      const check = validator[name];
      if (typeof check !== 'function') return false;
      try {
        // Called on the validator object, as Sequelize calls it: some of its extras call its other functions.
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- String(value), as Sequelize passes it
        if (!(check as ValidatorFunction).call(validator, String(value), ...validatorArgs(name, test))) return false;
      } catch {
        return false;
      }
    }
  }
  return true;
}

/**
 * The arguments Sequelize passes a built-in validator after the value (its `_extractValidatorArgs`, after the test
 * of `isUrl`, `isURL` and `isEmail` is rewritten); new on each call, as Sequelize's are.
 * @example validatorArgs('len', [2, 10]) // [2, 10]
 * @example validatorArgs('min', 0) // [0]
 */
export function validatorArgs(name: string, given: unknown): unknown[] {
  let test = given;
  if (REWRITTEN.includes(name)) {
    const msg = typeof test === 'object' && test !== null ? (test as { msg?: unknown }).msg : undefined;
    if (msg) test = { msg };
    else if (test === true) test = {};
  }
  const args = (test as { args?: unknown }).args || test;
  if (Array.isArray(args)) return args.slice(0);
  if ((typeof args !== 'string' && LOCALIZED.includes(name)) || name === 'isIP') return [];
  return [args];
}
