import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { recordLocation } from '../../lib/core/record-location.js';

describe('recordLocation', () => {
  it('returns the collection path then the value, for a string or a number', () => {
    assert.equal(
      recordLocation('/api/products', '0b6f3c1e-1b2a-4c3d-8e4f-5a6b7c8d9e0f'),
      '/api/products/0b6f3c1e-1b2a-4c3d-8e4f-5a6b7c8d9e0f',
    );
    assert.equal(recordLocation('/api/orders', 7), '/api/orders/7');
    assert.equal(recordLocation('/orders', 9007199254740993n), '/orders/9007199254740993');
  });

  it('drops trailing slashes of the collection path and percent-encodes the value', () => {
    assert.equal(recordLocation('/api/tags//', 'a b/c?d'), '/api/tags/a%20b%2Fc%3Fd');
  });

  it('returns undefined for a value that cannot name a record', () => {
    for (const value of [null, undefined, '', {}, new Date(0), true, 'a\uD800'])
      assert.equal(recordLocation('/api/x', value), undefined);
  });

  it('law: the last segment decodes back to the value, and the rest is the collection path', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'grapheme' }), (value) => {
        const location = recordLocation('/api/things', value)!;
        assert.ok(location.startsWith('/api/things/'));
        const segment = location.slice('/api/things/'.length);
        assert.ok(!segment.includes('/'));
        assert.equal(decodeURIComponent(segment), value);
      }),
    );
  });
});
