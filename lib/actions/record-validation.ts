/**
 * A create's records validated without Sequelize's per-record promises where its verdict is sure: the model's
 * validation plan (`planValidation`, from the model's attributes and validators), and a record checked against it
 * with Sequelize's own validator functions (`surelyValid`). A record it is unsure of is Sequelize's to validate.
 */
import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import { planValidation, surelyValid, type ValidationFacts, type ValidationPlan } from '../core/validation-plan.js';
import { privateSequelize } from '../execute/private-sequelize.js';

/**
 * The model's validation plan, read from it now (its validators can change: `setValidators`).
 * @example const plan = validationPlan(Product); for (const record of records) if (!surelyValidRecord(plan, record)) …
 */
export function validationPlan(model: ModelStatic<Model>): ValidationPlan {
  return planValidation(validationFacts(model));
}

/**
 * True when Sequelize's `validate({ hooks: false })` of the built record surely passes; false when unsure (it may
 * pass or fail: ask Sequelize).
 * @example if (!surelyValidRecord(plan, record)) await record.validate({ hooks: false });
 */
export function surelyValidRecord(plan: ValidationPlan, record: Model): boolean {
  return plan.path === 'checked' && surelyValid(plan, record.dataValues as Record<string, unknown>, VALIDATOR);
}

/** What `planValidation` needs of the model: its attributes' schema and validators, and its model validators. */
function validationFacts(model: ModelStatic<Model>): ValidationFacts {
  const validators = privateSequelize.validators(model);
  const modelValidators = Object.keys((model.options as { validate?: object }).validate ?? {});
  // Without Sequelize's table of validators, only Sequelize can tell: a placeholder model validator says so.
  if (validators === undefined) return { attributes: [], modelValidators: ['(unknown)', ...modelValidators] };
  const attributes = Object.entries(model.getAttributes()).map(([name, definition]) => ({
    name,
    allowNull: definition.allowNull,
    schemaChecked: !privateSequelize.generatedAttribute(definition) && definition.autoIncrement !== true,
    stringType: STRING_TYPES.some((type) => definition.type instanceof type),
    validators: Object.prototype.hasOwnProperty.call(validators, name) ? validators[name] : undefined,
  }));
  return { attributes, modelValidators };
}

/**
 * The validator functions Sequelize's validation calls (`Sequelize.Validator`, exported untyped as a value); none
 * when absent, and every validator is then left to Sequelize.
 */
const VALIDATOR: Readonly<Record<string, unknown>> =
  (Sequelize as unknown as { Validator?: Readonly<Record<string, unknown>> }).Validator ?? {};

/** The types whose values Sequelize's validation refuses as an array or an object, as it tests them. */
const STRING_TYPES = [DataTypes.STRING, DataTypes.TEXT, DataTypes.CITEXT] as unknown as (abstract new () => object)[];
