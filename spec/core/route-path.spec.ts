import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compilePath, isUuid } from '../../lib/core/route-path.js';

describe('compilePath', () => {
  it('returns a @koa/router path and the uuid parameters', () => {
    assert.deepEqual(compilePath('products/{id:uuid}/restore'), { path: '/products/:id/restore', uuidParams: ['id'] });
  });

  it('returns a path with no constraint for a path with no placeholder', () => {
    assert.deepEqual(compilePath('admin/catalog/products'), { path: '/admin/catalog/products', uuidParams: [] });
  });
});

describe('isUuid', () => {
  it('returns true for canonical UUIDs in either case', () => {
    assert.ok(isUuid('0b6f1a36-8d3c-4c5e-9d43-6d0f3e2b1a7c'));
    assert.ok(isUuid('0B6F1A36-8D3C-4C5E-9D43-6D0F3E2B1A7C'));
  });

  it('returns false for anything else', () => {
    for (const bad of [
      'not-a-uuid',
      '0b6f1a368d3c4c5e9d436d0f3e2b1a7c',
      '{0b6f1a36-8d3c-4c5e-9d43-6d0f3e2b1a7c}',
      ' 0b6f1a36-8d3c-4c5e-9d43-6d0f3e2b1a7c',
      undefined,
      7,
    ]) {
      assert.equal(isUuid(bad), false, String(bad));
    }
  });

  it('accepts every random UUID and rejects it with any character appended', () => {
    fc.assert(
      fc.property(
        fc.constant(null).map(() => randomUUID()),
        fc.string({ minLength: 1, maxLength: 2 }),
        (uuid, extra) => {
          assert.ok(isUuid(uuid));
          assert.equal(isUuid(uuid + extra), false);
        },
      ),
    );
  });
});
