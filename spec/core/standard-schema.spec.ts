import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isIssueList, isStandardSchema, issueFailItems, issueField } from '../../lib/core/standard-schema.js';
import { standardSchema } from '../support/schemas.js';

const keyArb = fc.oneof(
  fc.string({ minLength: 1 }).filter((s) => !s.includes('.')),
  fc.nat(),
);

describe('isStandardSchema', () => {
  it('returns true for a version-1 ~standard object with a validate function, a function schema too', () => {
    assert.equal(isStandardSchema(standardSchema((value) => ({ value }))), true);
    const callable = Object.assign(() => undefined, {
      '~standard': { version: 1, vendor: 'arktype-like', validate: () => ({ value: 1 }) },
    });
    assert.equal(isStandardSchema(callable), true);
  });

  it('returns false for anything else', () => {
    for (const value of [
      undefined,
      null,
      5,
      'zod',
      { parse: () => 1 },
      { '~standard': null },
      { '~standard': { version: 2, validate: () => 1 } },
      { '~standard': { version: 1, validate: 'x' } },
    ]) {
      assert.equal(isStandardSchema(value), false, JSON.stringify(value));
    }
  });
});

describe('issueField', () => {
  it('returns the path joined with dots, property keys and { key } segments alike, and null without a path', () => {
    assert.equal(issueField({ message: 'x', path: ['tags', 0, { key: 'name' }] }), 'tags.0.name');
    assert.equal(issueField({ message: 'x', path: [Symbol('meta'), 'a'] }), 'meta.a');
    assert.equal(issueField({ message: 'x', path: [] }), null);
    assert.equal(issueField({ message: 'x' }), null);
  });

  it('law: returns the segments back when split on dots, whichever way each segment is written', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(keyArb, fc.boolean()), { minLength: 1, maxLength: 6 }), (segments) => {
        const path = segments.map(([key, boxed]) => (boxed ? { key } : key));
        assert.deepEqual(
          issueField({ message: 'm', path })!.split('.'),
          segments.map(([key]) => String(key)),
        );
      }),
    );
  });
});

describe('issueFailItems', () => {
  it('returns one schema item per issue, with the field and message only', () => {
    const issues = [
      { message: 'Required', path: ['name'], code: 'invalid_type', input: 'secret' },
      { message: 'Refused' },
    ];
    assert.deepEqual(issueFailItems(issues), [
      { field: 'name', error: 'schema', message: 'Required' },
      { field: null, error: 'schema', message: 'Refused' },
    ]);
  });
});

describe('isIssueList', () => {
  it('returns true for a non-empty list of { message, path? } issues', () => {
    assert.equal(
      isIssueList([{ message: 'a' }, { message: 'b', path: ['x', 1, { key: 'y', origin: 'value' }] }]),
      true,
    );
  });

  it('returns false for anything that only looks close', () => {
    const near = [
      undefined,
      [],
      'issues',
      {},
      [{}],
      [{ message: 5 }],
      [{ message: 'a', path: 'x' }],
      [{ message: 'a', path: [{ nokey: 1 }] }],
      [{ message: 'a', path: [null] }],
      [{ message: 'a' }, null],
    ];
    for (const value of near) assert.equal(isIssueList(value), false, JSON.stringify(value));
  });

  it('law: returns true exactly when every item has a string message and a well-formed path', () => {
    const segmentArb = fc.oneof(
      keyArb,
      keyArb.map((key) => ({ key })),
      fc.constant(null),
      fc.constant({ nokey: 1 }),
    );
    const issueArb = fc.record(
      {
        message: fc.oneof(fc.string(), fc.integer()),
        path: fc.option(fc.array(segmentArb, { maxLength: 3 }), { nil: undefined }),
      },
      { requiredKeys: ['message'] },
    );
    fc.assert(
      fc.property(fc.array(issueArb, { maxLength: 4 }), (issues) => {
        const wellFormed =
          issues.length > 0 &&
          issues.every(
            (i) =>
              typeof i.message === 'string' &&
              (i.path === undefined || i.path.every((s) => s !== null && !(typeof s === 'object' && 'nokey' in s))),
          );
        assert.equal(isIssueList(issues), wellFormed);
      }),
    );
  });
});
