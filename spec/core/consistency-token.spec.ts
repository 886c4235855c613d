import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatToken, parseToken, requirementOf, type ConsistencyToken } from '../../lib/core/consistency-token.js';

const NOW = 1_764_107_000_000;
const WINDOW = 2000;
const MAX_XID = 2n ** 63n - 1n;

const tokenArb: fc.Arbitrary<ConsistencyToken> = fc.oneof(
  fc.bigInt({ min: 0n, max: MAX_XID }).map((xid) => ({ kind: 'transaction' as const, xid: xid.toString() })),
  fc.integer({ min: 0, max: NOW + WINDOW }).map((at) => ({ kind: 'time' as const, at })),
);

describe('formatToken', () => {
  it('returns x and the transaction id, or t and the commit time', () => {
    assert.equal(formatToken({ kind: 'transaction', xid: '7412' }), 'x7412');
    assert.equal(formatToken({ kind: 'time', at: NOW }), `t${NOW}`);
  });

  it('round-trips with parseToken', () => {
    fc.assert(fc.property(tokenArb, (token) => assert.deepEqual(parseToken(formatToken(token), NOW, WINDOW), token)));
  });
});

describe('parseToken', () => {
  it('returns undefined for no token, an LSN, SQL, a number past xid8 and a time past the window', () => {
    for (const text of [
      undefined,
      '',
      '0/16B3748',
      "x1'; DROP TABLE users; --",
      'x-1',
      'x 1',
      'x1 ',
      'X12',
      `x${MAX_XID + 1n}`,
      'x12345678901234567890',
      `t${NOW + WINDOW + 1}`,
      't1.5',
    ])
      assert.equal(parseToken(text, NOW, WINDOW), undefined, String(text));
  });

  it('never throws, and whatever it returns formats back to the text it read', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[xt][0-9]{0,22}$/)), (text) => {
        const token = parseToken(text, NOW, WINDOW);
        if (token !== undefined) assert.equal(BigInt(formatToken(token).slice(1)), BigInt(text.slice(1)));
      }),
    );
  });

  it('returns only digits for a transaction id, so it never leaves its SQL literal', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const token = parseToken(text, NOW, WINDOW);
        if (token?.kind === 'transaction') assert.match(token.xid, /^[0-9]{1,19}$/);
      }),
    );
  });
});

describe('requirementOf', () => {
  it('returns the transaction to see, the primary within the window, nothing after it or without a token', () => {
    assert.deepEqual(requirementOf({ kind: 'transaction', xid: '9' }, NOW, WINDOW), { visible: '9' });
    assert.deepEqual(requirementOf({ kind: 'time', at: NOW - WINDOW + 1 }, NOW, WINDOW), { primary: true });
    assert.equal(requirementOf({ kind: 'time', at: NOW - WINDOW }, NOW, WINDOW), undefined);
    assert.equal(requirementOf(undefined, NOW, WINDOW), undefined);
  });

  it('sends a forged time token to the primary for at most two windows', () => {
    const forged = fc.oneof(
      fc.string(),
      fc.integer({ min: NOW - WINDOW, max: NOW + 10 * WINDOW }).map((at) => `t${at}`),
    );
    fc.assert(
      fc.property(forged, fc.integer({ min: 0, max: 10 * WINDOW }), (text, later) => {
        const token = parseToken(text, NOW, WINDOW);
        if (token?.kind === 'time' && requirementOf(token, NOW + later, WINDOW) !== undefined)
          assert.ok(later < 2 * WINDOW);
      }),
    );
  });
});
