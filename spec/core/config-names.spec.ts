import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DataTypes, Sequelize } from 'sequelize';
import { DEFAULT_CONFIG, unsafeResolveConfig } from '../../lib/core/config.js';
import { configNameProblems } from '../../lib/core/config-names.js';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const User = sequelize.define(
  'User',
  {
    id: { type: DataTypes.UUID, primaryKey: true },
    handle: DataTypes.STRING,
    password: DataTypes.STRING,
    deletedAt: { type: DataTypes.DATE, field: 'deleted_at' },
    deletedBy: { type: DataTypes.UUID, field: 'deleted_by' },
  },
  { timestamps: false },
);
const Plain = sequelize.define(
  'Plain',
  { id: { type: DataTypes.UUID, primaryKey: true }, deletedBy: { type: DataTypes.UUID, field: 'deleted_by' } },
  { timestamps: false },
);
const config = (input: object) => unsafeResolveConfig(input, DEFAULT_CONFIG);
const none = new Set<string>();

describe('configNameProblems', () => {
  it('returns [] for the defaults, and for names the table may have that the model does not declare', () => {
    assert.deepEqual(configNameProblems(User, none, DEFAULT_CONFIG, ['options', 'softDelete']), []);
    assert.deepEqual(
      configNameProblems(
        User,
        none,
        config({ options: { default_value: 'legacy_code', value_columns: ['id', 'api_code'] } }),
        ['options'],
      ),
      [],
    );
    assert.deepEqual(
      configNameProblems(User, none, config({ soft_delete: { deleted_at_field: 'removed_at' } }), ['softDelete']),
      [],
    );
  });

  it('returns a sentence for options.default_value or a value column naming a hidden attribute, by attribute or column name', () => {
    const hidden = new Set(['password', 'deletedBy']);
    assert.deepEqual(
      configNameProblems(
        User,
        hidden,
        config({ options: { default_value: 'password', value_columns: ['id', 'deleted_by'] } }),
        ['options'],
      ),
      [
        "options.default_value names 'password', a hidden attribute of User: options would answer it as a value; name a visible column",
        "options.value_columns names 'deleted_by', a hidden attribute of User: options would answer it as a value; name a visible column",
      ],
    );
    assert.deepEqual(
      configNameProblems(User, new Set(['id']), DEFAULT_CONFIG, ['options'])[0]?.startsWith(
        "options.default_value names 'id', a hidden",
      ),
      true,
    );
  });

  it('returns a sentence with the nearest name for a near miss of an attribute', () => {
    assert.deepEqual(configNameProblems(User, none, config({ options: { default_value: 'handel' } }), ['options']), [
      "options.default_value names 'handel', which is not an attribute or column of User; did you mean 'handle'?",
    ]);
    assert.deepEqual(
      configNameProblems(User, none, config({ soft_delete: { deleted_at_field: 'deleted_att' } }), ['search']),
      [
        "soft_delete.deleted_at_field names 'deleted_att', which is not an attribute or column of User; did you mean 'deleted_at'?",
      ],
    );
  });

  it('returns [] for the options names when options is not registered', () => {
    const bad = config({ options: { default_value: 'handel', value_columns: ['password'] } });
    assert.deepEqual(configNameProblems(User, new Set(['password']), bad, ['search', 'read', 'create']), []);
  });

  it('never offers the deleted-by column as the deleted-at one', () => {
    assert.deepEqual(
      configNameProblems(Plain, none, config({ soft_delete: { deleted_at_field: 'deletedAt' } }), ['softDelete']),
      [],
    );
    assert.deepEqual(
      configNameProblems(
        Plain,
        none,
        config({ soft_delete: { deleted_at_field: 'deletedAt', deleted_by_field: 'removed_by' } }),
        ['softDelete'],
      ),
      [
        "soft_delete.deleted_at_field names 'deletedAt', which is not an attribute or column of Plain; did you mean 'deletedBy'?",
      ],
    );
  });
});
