import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { parseQuery } from '../../lib/actions/search.js';
import { QS_OPTIONS, QUERY_QS_OPTIONS, parseBrackets, prototypeKeys } from '../../lib/core/qs-limits.js';

describe('parseBrackets', () => {
  it('returns the nested object of a bracket string, without prototype keys', () => {
    assert.deepEqual(
      parseBrackets('a[b]=1&c[]=x&c[]=y&__proto__[x]=1', 'The body'),
      E.right({ a: { b: '1' }, c: ['x', 'y'] }),
    );
  });

  it('returns the limit it goes beyond, naming what was parsed', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
    assert.deepEqual(parseBrackets('a[b][c][d][e]=1', 'The body'), E.left('The body nests deeper than 3 brackets'));
    assert.deepEqual(parseBrackets(many(201), 'The body'), E.left('The body has more than 200 parameters'));
    assert.deepEqual(
      parseBrackets(Array.from({ length: 101 }, () => 'a[]=1').join('&'), 'The body'),
      E.left('A list in the body has more than 100 items'),
    );
    assert.ok(E.isRight(parseBrackets(many(200), 'The body')));
  });

  it('nests query strings 9 brackets deep, as three $or/$and groups need, and bodies 3', () => {
    const deepest = 'filter[$or][0][$and][0][$or][0][sku][in][]=x';
    assert.deepEqual(
      parseBrackets(deepest, 'The query string', QUERY_QS_OPTIONS),
      E.right({ filter: { $or: [{ $and: [{ $or: [{ sku: { in: ['x'] } }] }] }] } }),
    );
    assert.deepEqual(
      parseBrackets(`${deepest.slice(0, -2)}[y]=x`, 'The query string', QUERY_QS_OPTIONS),
      E.left('The query string nests deeper than 9 brackets'),
    );
    assert.deepEqual(parseBrackets(deepest, 'The body'), E.left('The body nests deeper than 3 brackets'));
    assert.deepEqual({ ...QUERY_QS_OPTIONS, depth: QS_OPTIONS.depth }, { ...QS_OPTIONS });
  });

  it('law: returns what parseQuery returns for the query string, as one set of limits', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom('a', 'a[b]', 'a[b][c][d][e]', 'a[b][c][d][e][f][g][h][i][j]', 'l[]'), fc.string()),
          { maxLength: 250 },
        ),
        (pairs) => {
          const text = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
          const brackets = parseBrackets(text, 'The query string', QUERY_QS_OPTIONS);
          const query = parseQuery(text);
          assert.equal(E.isLeft(brackets), E.isLeft(query));
          if (E.isLeft(brackets) && E.isLeft(query)) assert.equal(query.left.message, brackets.left);
        },
      ),
    );
    assert.equal(QS_OPTIONS.parameterLimit, 200);
  });
});

describe('parseQuery with keys qs drops', () => {
  it('returns columnNotFound for a filter column, invalidOperator for a filter operator, that qs would drop', () => {
    for (const column of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      assert.deepEqual(
        parseQuery(`filter[${column}]=1`),
        E.left({
          field: column,
          error: 'columnNotFound',
          message: `The column ${JSON.stringify(column)} was not found`,
        }),
      );
      assert.deepEqual(
        E.mapLeft((f: { error: string }) => f.error)(parseQuery(`filter[${column}][eq]=1`)),
        E.left('columnNotFound'),
      );
    }
    assert.deepEqual(
      parseQuery('filter[name][constructor]=1'),
      E.left({ field: 'name', error: 'invalidOperator', message: 'Unknown operator "constructor"' }),
    );
    assert.deepEqual(
      parseQuery('filter[$or][0][$and][1][toString]=1'),
      E.left({
        field: 'filter.$or.0.$and.1.toString',
        error: 'columnNotFound',
        message: 'The column "toString" was not found',
      }),
    );
    assert.deepEqual(
      parseQuery('filter[$or][0][name][__proto__]=1'),
      E.left({ field: 'filter.$or.0.name', error: 'invalidOperator', message: 'Unknown operator "__proto__"' }),
    );
    assert.deepEqual(parseQuery('filter[prototype]=1'), E.right({ filter: { prototype: '1' } }));
    assert.deepEqual(parseQuery('constructor=1&page=2'), E.right({ page: '2' }));
  });
});

describe('prototypeKeys', () => {
  it('returns the bracket paths qs drops: a segment that is __proto__ or a property of Object.prototype', () => {
    assert.deepEqual(prototypeKeys('filter[constructor]=1&sort=name'), [['filter', 'constructor']]);
    assert.deepEqual(prototypeKeys('filter%5B__proto__%5D%5Bx%5D=1&filter[toString][eq]=2'), [
      ['filter', '__proto__', 'x'],
      ['filter', 'toString', 'eq'],
    ]);
    assert.deepEqual(prototypeKeys('__proto__[polluted]=1&filter[name][hasOwnProperty]=a'), [
      ['__proto__', 'polluted'],
      ['filter', 'name', 'hasOwnProperty'],
    ]);
    assert.deepEqual(prototypeKeys('filter[prototype]=1&filter[name]=a&page=2&filter[%E0%A4%A]=x'), []);
  });

  it('returns every parameter qs drops: what it lists is exactly what the parsed object lacks (law)', () => {
    const segment = fc.constantFrom(
      'filter',
      'name',
      'constructor',
      '__proto__',
      'toString',
      'prototype',
      'eq',
      'valueOf',
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(segment, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        (paths) => {
          const param = ([root, ...rest]: string[]) => `${root}${rest.map((s) => `[${s}]`).join('')}=v`;
          const dropped = prototypeKeys(paths.map(param).join('&')).map((p) => p.join('.'));
          for (const path of paths) {
            const parsed = E.getOrElseW(() => assert.fail(param(path)))(parseBrackets(param(path), 'q'));
            assert.equal(Object.keys(parsed).length === 0, dropped.includes(path.join('.')), path.join('.'));
          }
        },
      ),
    );
  });

  it('never touches Object.prototype, whatever the string (law)', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const hostile = [
      '__proto__[polluted]=1',
      'constructor[prototype][polluted]=1',
      'filter[__proto__][polluted]=1',
      'a[__proto__][b]=1',
      '__proto__.polluted=1',
      'filter[constructor][prototype][polluted]=1',
    ];
    for (const text of hostile) {
      parseBrackets(text, 'The query string');
      prototypeKeys(text);
    }
    fc.assert(fc.property(fc.string(), (text) => void parseBrackets(text, 'q')));
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});
