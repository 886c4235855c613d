import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  formatTag,
  ifMatchHolds,
  ifNoneMatchHolds,
  parseTagList,
  readPrecondition,
  strongMatch,
  versionTag,
  weakMatch,
  writePrecondition,
  type EntityTag,
} from '../../lib/core/etag.js';
import { entityTagArb, tagListArb } from '../arbitraries/etag-arb.js';

const strong = (opaque: string): EntityTag => ({ weak: false, opaque });
const weak = (opaque: string): EntityTag => ({ weak: true, opaque });

describe('parseTagList', () => {
  it('returns * for a star, with whitespace around it', () => {
    assert.equal(parseTagList(' * '), '*');
  });

  it('returns each tag of a list, weak ones marked, whitespace and empty members skipped', () => {
    assert.deepEqual(parseTagList('W/"a" ,, "b,c",\t"" '), [weak('a'), strong('b,c'), strong('')]);
  });

  it('drops members that are not entity tags, keeping the others', () => {
    assert.deepEqual(parseTagList('abc, "x" y, w/"lower", "ok", "open'), [strong('ok')]);
    assert.deepEqual(parseTagList('"a"b"'), []);
    assert.deepEqual(parseTagList(''), []);
  });

  it('law: round-trips with formatTag for any list', () => {
    fc.assert(
      fc.property(tagListArb, ({ tags, header }) => {
        assert.deepEqual(parseTagList(header), tags);
        assert.deepEqual(parseTagList(tags.map(formatTag).join(', ')), tags);
      }),
    );
  });

  it('law: never throws, and every tag it returns formats back into the header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii' }), (header) => {
        const list = parseTagList(header);
        if (list !== '*') for (const tag of list) assert.ok(header.includes(formatTag(tag)));
      }),
    );
  });
});

describe('strongMatch and weakMatch', () => {
  it('return the table of RFC 9110 §8.8.3.2', () => {
    const rows: [EntityTag, EntityTag, boolean, boolean][] = [
      [weak('1'), weak('1'), false, true],
      [weak('1'), weak('2'), false, false],
      [weak('1'), strong('1'), false, true],
      [strong('1'), strong('1'), true, true],
    ];
    for (const [a, b, strongly, weakly] of rows) {
      assert.equal(strongMatch(a, b), strongly);
      assert.equal(weakMatch(a, b), weakly);
    }
  });

  it('law: both are symmetric, and a strong match is a weak match', () => {
    fc.assert(
      fc.property(entityTagArb, entityTagArb, (a, b) => {
        assert.equal(strongMatch(a, b), strongMatch(b, a));
        assert.equal(weakMatch(a, b), weakMatch(b, a));
        if (strongMatch(a, b)) assert.ok(weakMatch(a, b));
      }),
    );
  });
});

describe('ifMatchHolds', () => {
  it('holds without the header, for * on a record, and for a list naming the current tag strongly', () => {
    assert.equal(ifMatchHolds(undefined, strong('a')), true);
    assert.equal(ifMatchHolds('*', strong('a')), true);
    assert.equal(ifMatchHolds('"x", "a"', strong('a')), true);
  });

  it('fails for a weak tag, another tag, or any header when there is no record (* included)', () => {
    assert.equal(ifMatchHolds('W/"a"', strong('a')), false);
    assert.equal(ifMatchHolds('"b"', strong('a')), false);
    assert.equal(ifMatchHolds('*', undefined), false);
  });

  it('law: agrees with a model that compares the parsed list strongly', () => {
    fc.assert(
      fc.property(tagListArb, entityTagArb, ({ tags, header }, current) => {
        assert.equal(
          ifMatchHolds(header, current),
          tags.some((tag) => !tag.weak && !current.weak && tag.opaque === current.opaque),
        );
      }),
    );
  });
});

describe('ifNoneMatchHolds', () => {
  it('fails (304) for * on a record and for a list naming the current tag, weak or strong', () => {
    assert.equal(ifNoneMatchHolds('*', strong('a')), false);
    assert.equal(ifNoneMatchHolds('W/"a"', strong('a')), false);
    assert.equal(ifNoneMatchHolds('"a"', weak('a')), false);
  });

  it('holds without the header or the record, and for a list of other tags', () => {
    assert.equal(ifNoneMatchHolds(undefined, strong('a')), true);
    assert.equal(ifNoneMatchHolds('"a"', undefined), true);
    assert.equal(ifNoneMatchHolds('"b", W/"c"', strong('a')), true);
  });

  it('law: a tag always fails If-None-Match with itself in the list, weak or strong', () => {
    fc.assert(
      fc.property(tagListArb, entityTagArb, fc.boolean(), ({ tags }, current, weakened) => {
        const listed = [...tags, { ...current, weak: weakened }].map(formatTag).join(', ');
        assert.equal(ifNoneMatchHolds(listed, current), false);
      }),
    );
  });
});

describe('readPrecondition and writePrecondition', () => {
  it('returns notModified for a read whose If-None-Match names the tag, failed when If-Match does not', () => {
    assert.equal(readPrecondition({ ifNoneMatch: '"a"' }, strong('a')), 'notModified');
    assert.equal(readPrecondition({ ifMatch: '"b"', ifNoneMatch: '"a"' }, strong('a')), 'failed');
    assert.equal(readPrecondition({}, strong('a')), 'proceed');
  });

  it('returns failed, never notModified, for a write', () => {
    assert.equal(writePrecondition({ ifNoneMatch: '"a"' }, strong('a')), 'failed');
    assert.equal(writePrecondition({ ifMatch: '"b"' }, strong('a')), 'failed');
    assert.equal(writePrecondition({ ifMatch: '"a"' }, strong('a')), 'proceed');
  });

  it('law: a write never answers notModified, and proceeds with its own tag in If-Match', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.option(fc.string()), entityTagArb, (ifMatch, ifNoneMatch, current) => {
        const headers = { ifMatch: ifMatch ?? undefined, ifNoneMatch: ifNoneMatch ?? undefined };
        assert.notEqual(writePrecondition(headers, current), 'notModified');
        if (!current.weak) assert.equal(writePrecondition({ ifMatch: formatTag(current) }, current), 'proceed');
      }),
    );
  });
});

describe('versionTag', () => {
  it('returns v and the integer for a number or a string of digits, undefined for anything else', () => {
    assert.deepEqual(versionTag(3), strong('v3'));
    assert.deepEqual(versionTag('12'), strong('v12'));
    for (const value of [null, undefined, 1.5, '1e3', '', -0.5, {}, '3 ']) assert.equal(versionTag(value), undefined);
  });

  it('law: equal integers, equal tags; different integers, different tags', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        assert.equal(versionTag(a)!.opaque === versionTag(String(b))!.opaque, a === b);
      }),
    );
  });
});
