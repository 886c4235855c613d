import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Sequelize, type Model } from 'sequelize';
import { surelyValidRecord, validationPlan } from '../../lib/actions/record-validation.js';
import { planValidation, surelyValid, validatorArgs, type AttributeFacts } from '../../lib/core/validation-plan.js';

const attribute = (name: string, more: Partial<AttributeFacts> = {}): AttributeFacts => ({
  name,
  allowNull: true,
  schemaChecked: true,
  stringType: false,
  validators: undefined,
  ...more,
});
const validator = Sequelize as unknown as { Validator: Record<string, unknown> };

describe('planValidation', () => {
  it('checks the schema and the built-in validators of every attribute', () => {
    const plan = planValidation({
      attributes: [
        attribute('name', { allowNull: false, stringType: true }),
        attribute('price', { validators: { min: 0, max: { args: [9] } } }),
        attribute('createdAt', { allowNull: false, schemaChecked: false }),
      ],
      modelValidators: [],
    });
    assert.deepEqual(plan, {
      path: 'checked',
      attributes: [
        { name: 'name', allowNull: false, notNull: true, notObject: true, validators: undefined },
        {
          name: 'price',
          allowNull: true,
          notNull: false,
          notObject: false,
          validators: [
            { name: 'min', test: 0 },
            { name: 'max', test: { args: [9] } },
          ],
        },
        { name: 'createdAt', allowNull: false, notNull: false, notObject: false, validators: undefined },
      ],
    });
  });

  it('leaves to Sequelize a model validator, a custom validator, isImmutable and a validator without a test', () => {
    const reasons = [
      planValidation({ attributes: [], modelValidators: ['bothOrNone'] }),
      planValidation({ attributes: [attribute('a', { validators: { isOdd: () => true } })], modelValidators: [] }),
      planValidation({ attributes: [attribute('a', { validators: { isImmutable: true } })], modelValidators: [] }),
      planValidation({ attributes: [attribute('a', { validators: { notEmpty: null } })], modelValidators: [] }),
      planValidation({ attributes: [attribute('a', { validators: 'notEmpty' })], modelValidators: [] }),
    ].map((plan) => (plan.path === 'sequelize' ? plan.reason : plan.path));
    assert.deepEqual(reasons, [
      'the model validator bothOrNone',
      'the custom validator isOdd of a',
      'isImmutable on a',
      'the validator notEmpty of a has no test',
      'the validators of a are not an object',
    ]);
  });
});

describe('validatorArgs', () => {
  it('returns the arguments Sequelize passes after the value', () => {
    assert.deepEqual(validatorArgs('len', [2, 10]), [2, 10]);
    assert.deepEqual(validatorArgs('len', { args: [2, 10], msg: 'no' }), [2, 10]);
    assert.deepEqual(validatorArgs('min', 0), [0]);
    assert.deepEqual(validatorArgs('isIn', [['a', 'b']]), [['a', 'b']]);
    assert.deepEqual(validatorArgs('isIP', 4), []);
    assert.deepEqual(validatorArgs('isAlpha', true), []);
    assert.deepEqual(validatorArgs('isAlpha', 'de-DE'), ['de-DE']);
    assert.deepEqual(validatorArgs('isUrl', true), [{}]);
    assert.deepEqual(validatorArgs('isEmail', { msg: 'bad', args: { allow_display_name: true } }), [{ msg: 'bad' }]);
  });
});

describe('surelyValid', () => {
  const plan = planValidation({
    attributes: [
      attribute('name', { allowNull: false, stringType: true, validators: { len: [1, 5] } }),
      attribute('price', { validators: { min: 0 } }),
    ],
    modelValidators: [],
  });
  if (plan.path !== 'checked') throw new Error('planned for Sequelize');

  it('returns true for values every check passes, null where null is allowed', () => {
    assert.equal(surelyValid(plan, { name: 'Kite', price: 3 }, validator.Validator), true);
    assert.equal(surelyValid(plan, { name: 'Kite', price: null }, validator.Validator), true);
  });

  it('returns false (unsure) for a missing required value, an object for a string, a failed validator', () => {
    assert.equal(surelyValid(plan, { price: 3 }, validator.Validator), false);
    assert.equal(surelyValid(plan, { name: ['Kite'], price: 3 }, validator.Validator), false);
    assert.equal(surelyValid(plan, { name: 'Kitesurf', price: 3 }, validator.Validator), false);
    assert.equal(surelyValid(plan, { name: 'Kite', price: -1 }, validator.Validator), false);
  });

  it('returns false when the validator function is missing or throws', () => {
    assert.equal(surelyValid(plan, { name: 'Kite', price: 3 }, {}), false);
    const throwing = { ...validator.Validator, min: () => assert.fail('thrown') };
    assert.equal(surelyValid(plan, { name: 'Kite', price: 3 }, throwing), false);
  });
});

/** A model with timestamps and many built-in validators over strings, numbers and JSON; no database is touched. */
function lawModel() {
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  return sequelize.define('ValidationLaw', {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    name: { type: DataTypes.STRING(20), allowNull: false, validate: { notEmpty: true, len: [1, 8] } },
    code: { type: DataTypes.STRING, allowNull: true, validate: { isAlpha: true, isIn: [['ab', 'cd', 'EF', 'x']] } },
    email: { type: DataTypes.TEXT, validate: { isEmail: { msg: 'not an email' } } },
    site: { type: DataTypes.STRING, validate: { isUrl: true } },
    price: { type: DataTypes.INTEGER, allowNull: true, validate: { min: 0, max: { args: [500], msg: 'too dear' } } },
    count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1, validate: { isInt: true } },
    tag: { type: DataTypes.STRING, validate: { is: /^[a-z]+$/i, not: ['^x', 'i'], contains: 'a' } },
    ip: { type: DataTypes.STRING, validate: { isIP: true } },
    extra: { type: DataTypes.JSON, allowNull: true },
  });
}

const valueArb = fc.oneof(
  fc.constantFrom('ab', 'cd', 'x', 'EF', 'abc', '', 'a@b.co', 'http://example.com', '10.0.0.1', 'Kite', 'xa'),
  fc.string({ maxLength: 10 }),
  fc.integer({ min: -10, max: 600 }),
  fc.double({ noNaN: true, min: -5, max: 5 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'b'), fc.integer(), { maxKeys: 2 }),
);
/** Values each attribute's validators pass, so that records pass often enough for the law to be tried both ways. */
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.constantFrom('Kite', 'ab'),
  code: fc.constantFrom('ab', 'cd', 'x', null),
  email: fc.constant('a@b.co'),
  site: fc.constant('http://example.com'),
  price: fc.integer({ min: 0, max: 500 }),
  count: fc.integer({ min: 1, max: 9 }),
  tag: fc.constantFrom('ab', 'bar'),
  ip: fc.constantFrom('10.0.0.1', '::1'),
  extra: fc.constantFrom({ a: 1 }, null),
};
/** A record: each attribute left out, valid, or (one time in five) any value at all. */
const recordArb = fc.record(
  Object.fromEntries(
    Object.entries(VALID).map(([name, valid]) => [
      name,
      fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: valueArb, weight: 1 }),
    ]),
  ),
  { requiredKeys: [] },
);

describe('surelyValidRecord', () => {
  const Law = lawModel();
  const plan = validationPlan(Law);

  it("plans a model of built-in validators for the check, and a custom validator for Sequelize's", () => {
    assert.equal(plan.path, 'checked');
    const Custom = Law.sequelize!.define('ValidationCustom', {
      name: { type: DataTypes.STRING, validate: { isKite: (value: unknown) => value === 'Kite' } },
    });
    assert.deepEqual(validationPlan(Custom), { path: 'sequelize', reason: 'the custom validator isKite of name' });
  });

  it("agrees with Sequelize's validate of the built record, for every record of plain values (law)", async () => {
    let sure = 0;
    await fc.assert(
      fc.asyncProperty(recordArb, async (values) => {
        const record = Law.build(values, { isNewRecord: true }) as Model;
        const verdict = surelyValidRecord(plan, record);
        const passes = await record.validate({ hooks: false }).then(
          () => true,
          () => false,
        );
        if (verdict) sure += 1;
        assert.equal(verdict, passes, JSON.stringify(values));
      }),
      { numRuns: 1500 },
    );
    assert.ok(sure > 150, `only ${sure} records passed: the law was hardly tried`);
  });
});
