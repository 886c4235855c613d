/**
 * docs/guide/configuration.md: what configuration validation rejects, with the exact messages.
 * Runs on import (spec/docs/configuration-page.spec.ts imports it); every message is asserted.
 */
import assert from 'node:assert/strict';
import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import { CrudController, crud, formatConfigError, resolveConfig } from 'koa-fast-crud';
import { Category } from '../minimal/app.js';

// #region rejected
const rejected: [input: unknown, message: string][] = [
  // A status outside the HTTP status-code enumeration (HttpStatus), or not a number.
  [{ options: { http_status: 999 } }, 'options.http_status must be an HTTP status code, got 999'],
  [{ create: { http_status: '201' } }, 'create.http_status must be an HTTP status code, got "201"'],
  // A key that does not exist, at any depth: typos fail loudly.
  [{ search: { perPage: 20 } }, 'search.perPage must be one of the known keys (http_status, method, per_page, max_per_page, count, count_threshold, max_unpaginated, strict_params, cursor_secret), got 20'],
  [{ create: { find_field: 'sku' } }, 'create.find_field must be one of the known keys (http_status, method), got "sku"'],
  [
    { option: { http_status: 200 } },
    'option must be one of the known keys (global, options, search, create, read, update, delete, soft_delete, restore, export_csv, cors, batch, live, aggregate), got {"http_status":200}',
  ],
  // A section that is not a plain object.
  [{ global: { validation: 400 } }, 'global.validation must be an object, got 400'],
  // A column or method name that is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters).
  [{ options: { default_value: 'id; DROP TABLE x' } }, 'options.default_value must be a plain identifier, got "id; DROP TABLE x"'],
  [{ search: { method: 'to-json' } }, 'search.method must be a plain identifier, got "to-json"'],
  [{ soft_delete: { deleted_at_field: null } }, 'soft_delete.deleted_at_field must be a plain identifier, got null'],
  // A count that is not a positive safe integer.
  [{ search: { per_page: '40' } }, 'search.per_page must be a positive integer, got "40"'],
  [{ global: { body_limit: 1.5 } }, 'global.body_limit must be a positive integer, got 1.5'],
  // A flag that is not a boolean.
  [{ global: { find_field_is_uuid: 'yes' } }, 'global.find_field_is_uuid must be a boolean, got "yes"'],
];

for (const [input, message] of rejected) {
  const resolved = resolveConfig(input);
  assert.ok(E.isLeft(resolved));
  assert.equal(formatConfigError(resolved.left), `koa-fast-crud config: ${message}`);
}
// #endregion rejected

// #region throws
class CategoryController extends CrudController {
  override fillable = ['name'];
  modelClassName() {
    return Category;
  }
}

// crud(), createFastCrud() and openApiResource() throw the same sentence as a RangeError.
assert.throws(() => crud(new Router(), 'categories', CategoryController, { config: { options: { http_status: 999 } } }), {
  name: 'RangeError',
  message: 'koa-fast-crud config: options.http_status must be an HTTP status code, got 999',
});
// #endregion throws

// Accepted: null lookup columns (they fall back to global.find_field), and undefined, which is the same as leaving a key out.
assert.ok(E.isRight(resolveConfig({ read: { find_field: null }, options: { http_status: undefined } })));
