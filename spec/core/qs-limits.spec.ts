import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { parseQuery } from '../../lib/actions/search.js';
import { QS_OPTIONS, parseBrackets } from '../../lib/core/qs-limits.js';

describe('parseBrackets', () => {
  it('returns the nested object of a bracket string, without prototype keys', () => {
    assert.deepEqual(parseBrackets('a[b]=1&c[]=x&c[]=y&__proto__[x]=1', 'The body'), E.right({ a: { b: '1' }, c: ['x', 'y'] }));
  });

  it('returns the limit it goes beyond, naming what was parsed', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
    assert.deepEqual(parseBrackets('a[b][c][d][e]=1', 'The body'), E.left('The body nests deeper than 3 brackets'));
    assert.deepEqual(parseBrackets(many(201), 'The body'), E.left('The body has more than 200 parameters'));
    assert.deepEqual(parseBrackets(Array.from({ length: 101 }, () => 'a[]=1').join('&'), 'The body'), E.left('A list in the body has more than 100 items'));
    assert.ok(E.isRight(parseBrackets(many(200), 'The body')));
  });

  it('law: returns what parseQuery returns for the query string, as one set of limits', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'a[b]', 'a[b][c][d][e]', 'l[]'), fc.string()), { maxLength: 250 }), (pairs) => {
        const text = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        const brackets = parseBrackets(text, 'The query string');
        const query = parseQuery(text);
        assert.equal(E.isLeft(brackets), E.isLeft(query));
        if (E.isLeft(brackets) && E.isLeft(query)) assert.equal(query.left.message, brackets.left);
      }),
    );
    assert.equal(QS_OPTIONS.parameterLimit, 200);
  });
});
