import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ERROR_CODES,
  ERROR_TABLE,
  statusOf,
  type DecidedStatusCode,
  type FixedStatusCode,
} from '../../lib/core/error-codes.js';
import { HttpStatus } from '../../lib/core/http-status.js';
import type { ErrorCode, ErrorStatus } from '../../lib/types.js';

const codesWith = (rule: (status: ErrorStatus) => boolean): ErrorCode[] =>
  ERROR_CODES.filter((code) => rule(ERROR_TABLE[code].status));
const FIXED = codesWith((status) => typeof status === 'number') as FixedStatusCode[];
const VALIDATION = codesWith((status) => status === 'validation') as DecidedStatusCode[];

/** Any status `global.validation.http_status` may be configured to: resolveConfig accepts every registered one. */
const configuredStatusArb = fc.constantFrom(...Object.values(HttpStatus));

describe('ERROR_TABLE', () => {
  it('returns a status and a meaning for every code, and ERROR_CODES lists its keys in order', () => {
    assert.deepEqual(ERROR_CODES, Object.keys(ERROR_TABLE));
    assert.ok(ERROR_CODES.length >= 16);
    for (const code of ERROR_CODES) assert.ok(ERROR_TABLE[code].meaning.length > 0, code);
    assert.ok(Object.isFrozen(ERROR_TABLE) && Object.isFrozen(ERROR_CODES));
  });

  it('returns thrown for clientError alone: its status is the one the hook threw', () => {
    assert.deepEqual(
      codesWith((status) => status === 'thrown'),
      ['clientError'],
    );
  });
});

describe('statusOf', () => {
  it('returns the statuses the library has always answered with', () => {
    assert.deepEqual(
      [statusOf('recordNotFound'), statusOf('forbidden'), statusOf('unique'), statusOf('foreignKey')],
      [404, 403, 409, 409],
    );
    assert.deepEqual(
      [
        statusOf('contentTooLarge'),
        statusOf('unsupportedMediaType'),
        statusOf('invalidJson'),
        statusOf('invalidBody'),
        statusOf('invalidForm'),
      ],
      [413, 415, 400, 400, 400],
    );
  });

  it('returns the configured validation status for the validation codes', () => {
    assert.deepEqual(VALIDATION, [
      'required',
      'columnNotFound',
      'invalidOperator',
      'invalidValue',
      'type',
      'invalid',
      'emptyPayload',
      'schema',
      'unknownParameter',
      'tooDeep',
      'tooManyRows',
      'invalidCursor',
      'filterRequired',
    ]);
    assert.equal(statusOf('required', 400), 400);
    assert.equal(statusOf('columnNotFound', 422), 422);
    assert.equal(statusOf('invalidJson', 422), 400, 'a malformed body stays a 400 whatever the validation status');
  });

  it('returns 503 for the two database failures and a full change feed, the only codes of a JSend error', () => {
    assert.deepEqual(
      codesWith((status) => typeof status === 'number' && status >= 500),
      ['databaseUnavailable', 'databaseTimeout', 'tooManySubscribers'],
    );
    assert.deepEqual([statusOf('databaseUnavailable'), statusOf('databaseTimeout', 422)], [503, 503]);
  });

  it('law: a fixed code maps to one status (4xx, or 503 for a database failure), whatever the validation status', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIXED), configuredStatusArb, (code, validationStatus) => {
        const status = statusOf(code, validationStatus);
        assert.ok((status >= 400 && status < 500) || status === 503, `${code}: ${status}`);
        assert.equal(status, statusOf(code));
      }),
    );
  });

  it('law: a validation code follows the configured status', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VALIDATION), configuredStatusArb, (code, validationStatus) => {
        assert.equal(statusOf(code, validationStatus), validationStatus);
      }),
    );
  });

  it('law: every code but clientError is fixed or follows the validation status', () => {
    assert.deepEqual([...FIXED, ...VALIDATION, 'clientError'].sort(), [...ERROR_CODES].sort());
  });
});
