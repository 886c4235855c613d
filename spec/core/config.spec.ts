import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { DEFAULT_CONFIG, formatConfigError, resolveConfig } from '../../lib/core/config.js';
import { HttpStatus, isHttpStatus } from '../../lib/core/http-status.js';

describe('resolveConfig', () => {
  it("returns the spec's defaults for no input", () => {
    assert.deepEqual(resolveConfig(), E.right(DEFAULT_CONFIG));
    assert.deepEqual(DEFAULT_CONFIG.options, {
      http_status: 200,
      default_value: 'id',
      permission: null,
      value_columns: null,
      max_limit: 100,
    });
    assert.equal(DEFAULT_CONFIG.global.validation.http_status, 400);
    assert.equal(DEFAULT_CONFIG.soft_delete.deleted_at_field, 'deleted_at');
  });

  it('returns the action defaults: create 201, the rest 200, toJSON, 40 of at most 500 per page', () => {
    const { search, create, read, update, soft_delete, restore, global } = DEFAULT_CONFIG;
    assert.deepEqual(
      [create.http_status, read.http_status, update.http_status, restore.http_status],
      [201, 200, 200, 200],
    );
    assert.deepEqual([search.method, read.method, search.per_page, search.max_per_page], ['toJSON', 'toJSON', 40, 500]);
    assert.deepEqual(
      [global.find_field, global.find_field_is_uuid, soft_delete.deleted_by_field],
      ['id', true, 'deleted_by'],
    );
  });

  it('returns a partial input merged over the defaults at every depth', () => {
    const resolved = resolveConfig({
      options: { default_value: 'external_id' },
      global: { validation: { http_status: 422 } },
    });
    assert.deepEqual(
      resolved,
      E.right({
        ...DEFAULT_CONFIG,
        options: { ...DEFAULT_CONFIG.options, default_value: 'external_id' },
        global: { ...DEFAULT_CONFIG.global, validation: { http_status: 422 } },
      }),
    );
  });

  it('returns a merge over another resolved configuration', () => {
    const base = E.getOrElseW(() => assert.fail())(resolveConfig({ options: { http_status: 203 } }));
    const merged = resolveConfig({ options: { default_value: 'code' } }, base);
    assert.equal(E.isRight(merged) && merged.right.read.find_field, null);
    assert.equal(E.isRight(resolveConfig({ read: { find_field: 'sku' } })), true);
    assert.deepEqual(
      E.map((c: typeof base) => c.options)(merged),
      E.right({ http_status: 203, default_value: 'code', permission: null, value_columns: null, max_limit: 100 }),
    );
  });

  it('returns a null lookup column over a base that set one: types come from the defaults, values from the base', () => {
    const base = E.getOrElseW(() => assert.fail())(resolveConfig({ read: { find_field: 'sku' } }));
    assert.deepEqual(
      E.map((c: typeof base) => c.read.find_field)(resolveConfig({ read: { find_field: null } }, base)),
      E.right(null),
    );
    assert.deepEqual(E.map((c: typeof base) => c.read.find_field)(resolveConfig({}, base)), E.right('sku'));
  });

  it('returns a Left naming key and value for a status outside the enumeration', () => {
    for (const bad of [999, 42, 'abc', 200.5, null]) {
      assert.deepEqual(
        resolveConfig({ options: { http_status: bad } }),
        E.left({ _tag: 'invalidConfig', key: 'options.http_status', value: bad, expected: 'an HTTP status code' }),
      );
    }
    const nested = resolveConfig({ global: { validation: { http_status: 999 } } });
    assert.equal(E.isLeft(nested) && nested.left.key, 'global.validation.http_status');
  });

  it('returns a Left for unknown keys, wrong shapes and column names that are not identifiers', () => {
    const key = (input: unknown) =>
      E.match(
        (e: { key: string }) => e.key,
        () => 'accepted',
      )(resolveConfig(input));
    assert.equal(key({ option: {} }), 'option');
    assert.equal(key({ options: 5 }), 'options');
    assert.equal(key({ options: { default_value: 'id; DROP TABLE x' } }), 'options.default_value');
    assert.equal(key({ soft_delete: { deleted_at_field: 7 } }), 'soft_delete.deleted_at_field');
    assert.equal(key('not an object'), '');
    assert.equal(key({ search: { per_page: 0 } }), 'search.per_page');
    assert.equal(key({ search: { per_page: '40' } }), 'search.per_page');
    assert.equal(key({ global: { find_field_is_uuid: 'yes' } }), 'global.find_field_is_uuid');
    assert.equal(key({ read: { find_field: 'a b' } }), 'read.find_field');
    assert.equal(key({ create: { http_status: 999 } }), 'create.http_status');
    assert.equal(key({ global: { timeout_ms: 0 } }), 'global.timeout_ms');
    assert.equal(key({ global: { timeout_ms: 1.5 } }), 'global.timeout_ms');
    assert.equal(
      key({ global: { timeout_ms: 2 ** 31 } }),
      'global.timeout_ms',
      "past the longest delay Node's timers keep",
    );
    assert.equal(key({ global: { timeout_ms: 2 ** 31 - 1 } }), 'accepted');
  });

  it('returns a 10 s request deadline by default', () => {
    assert.equal(DEFAULT_CONFIG.global.timeout_ms, 10_000);
  });

  it('returns a frozen result and leaves its input alone', () => {
    const input = { options: { http_status: 201 } };
    const resolved = E.getOrElseW(() => assert.fail())(resolveConfig(input));
    assert.ok(Object.isFrozen(resolved.options));
    assert.deepEqual(input, { options: { http_status: 201 } });
  });

  describe('laws', () => {
    it('accepts every status of the enumeration and rejects every other integer', () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.constantFrom(...Object.values(HttpStatus)), fc.integer({ min: -1000, max: 2000 })),
          (status) => {
            assert.equal(E.isRight(resolveConfig({ options: { http_status: status } })), isHttpStatus(status));
          },
        ),
      );
    });
  });
});

describe('formatConfigError', () => {
  it('names the whole configuration when it is not an object', () => {
    assert.equal(
      formatConfigError({ _tag: 'invalidConfig', key: '', value: 5, expected: 'an object' }),
      'koa-fast-crud config: the configuration must be an object, got 5',
    );
  });

  it('returns a sentence naming the key, the expectation and the value', () => {
    assert.equal(
      formatConfigError({
        _tag: 'invalidConfig',
        key: 'options.http_status',
        value: 999,
        expected: 'an HTTP status code',
      }),
      'koa-fast-crud config: options.http_status must be an HTTP status code, got 999',
    );
  });

  it('returns the hardening switches: a permission, a list of value columns', () => {
    const resolved = resolveConfig({ options: { permission: 'search', value_columns: ['id', 'external_id'] } });
    assert.deepEqual(
      E.map((c: typeof DEFAULT_CONFIG) => [c.options.permission, c.options.value_columns])(resolved),
      E.right(['search', ['id', 'external_id']]),
    );
    assert.ok(E.isRight(resolved) && Object.isFrozen(resolved.right.options.value_columns));
    const back = E.getOrElseW(() => assert.fail())(resolved);
    assert.deepEqual(
      E.map((c: typeof DEFAULT_CONFIG) => [c.options.permission, c.options.value_columns])(
        resolveConfig({ options: { permission: null, value_columns: null } }, back),
      ),
      E.right([null, null]),
    );
  });

  it('returns a Left for a value_columns that is not null or a list of plain identifiers', () => {
    for (const bad of ['id', [1], ['id', 'na me'], { id: true }, [null], true]) {
      assert.deepEqual(
        resolveConfig({ options: { value_columns: bad } }),
        E.left({
          _tag: 'invalidConfig',
          key: 'options.value_columns',
          value: bad,
          expected: 'null or a list of plain identifiers',
        }),
      );
    }
    assert.equal(E.isLeft(resolveConfig({ options: { permission: 'a b' } })), true);
  });

  it('returns a Left naming global.require_fillable, which is gone: fillable is always required for writes', () => {
    const resolved = resolveConfig({ global: { require_fillable: true } });
    assert.ok(E.isLeft(resolved) && resolved.left.key === 'global.require_fillable', JSON.stringify(resolved));
  });

  it("never keeps the caller's list: value_columns is copied", () => {
    const list = ['id'];
    const resolved = E.getOrElseW(() => assert.fail())(resolveConfig({ options: { value_columns: list } }));
    list.push('name');
    assert.deepEqual(resolved.options.value_columns, ['id']);
  });

  it('returns no trusted origin by default, and the origins, credentials and preflight age a configuration sets', () => {
    assert.deepEqual(DEFAULT_CONFIG.cors, { origins: [], credentials: false, max_age: 600 });
    const resolved = resolveConfig({
      cors: { origins: ['https://admin.example.com', 'http://localhost:5173'], credentials: true, max_age: 60 },
    });
    assert.deepEqual(
      E.map((c: typeof DEFAULT_CONFIG) => c.cors)(resolved),
      E.right({ origins: ['https://admin.example.com', 'http://localhost:5173'], credentials: true, max_age: 60 }),
    );
    assert.ok(E.isRight(resolved) && Object.isFrozen(resolved.right.cors.origins));
  });

  it('returns a Left for cors.origins that are not origins as browsers send them', () => {
    for (const bad of [
      null,
      'https://admin.example.com',
      ['*'],
      ['https://admin.example.com/'],
      ['https://Admin.example.com'],
      ['admin.example.com'],
      ['ftp://files.example'],
      [42],
    ]) {
      assert.deepEqual(
        resolveConfig({ cors: { origins: bad } }),
        E.left({
          _tag: 'invalidConfig',
          key: 'cors.origins',
          value: bad,
          expected: "a list of origins such as 'https://admin.example.com'",
        }),
      );
    }
    assert.equal(E.isLeft(resolveConfig({ cors: { max_age: -1 } })), true);
    assert.equal(E.isLeft(resolveConfig({ cors: { credentials: 'yes' } })), true);
  });
});
