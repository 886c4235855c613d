import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { editDistance, nearest, typoDistance } from '../../lib/core/nearest.js';

/** Short words over a small alphabet, so that near misses are common. */
const wordArb = fc.stringMatching(/^[a-dA-D_]{0,8}$/);
const namesArb = fc.array(wordArb, { maxLength: 8 });

/** How far a candidate may be from `name` and still be suggested. */
const limitOf = (name: string) => Math.max(1, Math.floor(name.length / 3));

describe('nearest', () => {
  it('returns the name a typo most likely meant', () => {
    assert.equal(nearest('pasword', ['id', 'password', 'email']), 'password');
    assert.equal(nearest('nme', ['id', 'name', 'price']), 'name');
    assert.equal(nearest('categry', ['category']), 'category');
  });

  it('returns undefined for a name no candidate is close to', () => {
    assert.equal(nearest('colour', ['id', 'name']), undefined);
    assert.equal(nearest('anything', []), undefined);
    assert.equal(nearest('emial', ['id', 'name']), undefined);
  });

  it('counts two swapped letters as one typo', () => {
    assert.equal(nearest('emial', ['email']), 'email');
    assert.equal(nearest('nmae', ['id', 'name']), 'name');
    assert.equal(typoDistance('nmae', 'name'), 1);
    assert.equal(editDistance('nmae', 'name'), 2);
  });

  it('returns a candidate in its own spelling, comparing case-insensitively', () => {
    assert.equal(nearest('EMAIL', ['id', 'email']), 'email');
    assert.equal(nearest('createdat', ['createdAt']), 'createdAt');
  });

  it('returns the closest candidate, and the first of equally close ones', () => {
    assert.equal(nearest('passwrd', ['passwords', 'password']), 'password');
    assert.equal(nearest('nam', ['name', 'nab']), 'name');
  });

  it('allows one edit in a short name, and a third of a long name', () => {
    assert.equal(nearest('ab', ['xy']), undefined);
    assert.equal(nearest('ab', ['abc']), 'abc');
    assert.equal(nearest('deletedbx', ['deleted_by']), 'deleted_by');
    assert.equal(nearest('deltdbx', ['deleted_by']), undefined);
  });

  it('typoDistance is symmetric, zero only for equal strings, and never more than editDistance', () => {
    fc.assert(
      fc.property(wordArb, wordArb, (a, b) => {
        const d = typoDistance(a, b);
        return d === typoDistance(b, a) && (d === 0) === (a === b) && d <= editDistance(a, b);
      }),
    );
  });

  it('never returns a candidate farther than the limit', () => {
    fc.assert(
      fc.property(wordArb, namesArb, (name, candidates) => {
        const found = nearest(name, candidates);
        return found === undefined || typoDistance(name.toLowerCase(), found.toLowerCase()) <= limitOf(name);
      }),
    );
  });

  it('only ever returns one of the candidates', () => {
    fc.assert(
      fc.property(wordArb, namesArb, (name, candidates) => {
        const found = nearest(name, candidates);
        return found === undefined || candidates.includes(found);
      }),
    );
  });

  it('returns the name itself when it is the first candidate', () => {
    fc.assert(fc.property(wordArb, namesArb, (name, rest) => nearest(name, [name, ...rest]) === name));
  });

  it('returns no candidate farther than another that is within the limit', () => {
    fc.assert(
      fc.property(wordArb, namesArb, (name, candidates) => {
        const found = nearest(name, candidates);
        if (found === undefined)
          return candidates.every(
            (candidate) => typoDistance(name.toLowerCase(), candidate.toLowerCase()) > limitOf(name),
          );
        const distance = typoDistance(name.toLowerCase(), found.toLowerCase());
        return candidates.every((candidate) => typoDistance(name.toLowerCase(), candidate.toLowerCase()) >= distance);
      }),
    );
  });
});

describe('editDistance', () => {
  it('returns the fewest insertions, deletions and substitutions', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('flaw', 'lawn'), 2);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('same', 'same'), 0);
    assert.equal(editDistance('Name', 'name'), 1);
  });

  it('is zero exactly for equal strings', () => {
    fc.assert(fc.property(wordArb, wordArb, (a, b) => (editDistance(a, b) === 0) === (a === b)));
  });

  it('is symmetric', () => {
    fc.assert(fc.property(wordArb, wordArb, (a, b) => editDistance(a, b) === editDistance(b, a)));
  });

  it('satisfies the triangle inequality', () => {
    fc.assert(
      fc.property(
        wordArb,
        wordArb,
        wordArb,
        (a, b, c) => editDistance(a, c) <= editDistance(a, b) + editDistance(b, c),
      ),
    );
  });

  it('lies between the difference of the lengths and the longer length', () => {
    fc.assert(
      fc.property(wordArb, wordArb, (a, b) => {
        const distance = editDistance(a, b);
        return distance >= Math.abs(a.length - b.length) && distance <= Math.max(a.length, b.length);
      }),
    );
  });

  it('is one for a single insertion anywhere', () => {
    fc.assert(
      fc.property(wordArb, fc.nat(), fc.constantFrom('a', 'z', '_'), (word, at, letter) => {
        const index = at % (word.length + 1);
        return editDistance(word, word.slice(0, index) + letter + word.slice(index)) === 1;
      }),
    );
  });
});
