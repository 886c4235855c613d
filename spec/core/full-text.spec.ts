/** The full-text planner: a term's words, and each dialect's query text made of them alone. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  INNODB_STOPWORDS,
  MAX_TERM_WORDS,
  MAX_WORD_LENGTH,
  fts5Query,
  fullTextProblems,
  fullTextTerm,
  mariadbBooleanQuery,
  postgresTsQuery,
  termWords,
} from '../../lib/core/full-text.js';
import { termTextArb } from '../arbitraries/term-arb.js';

const WORD = /^[\p{L}\p{N}\p{M}]+$/u;

describe('termWords', () => {
  it('returns the lower-cased runs of letters and digits, operators and quotes separating them', () => {
    assert.deepEqual(termWords('"Cast-iron" pan*'), ['cast', 'iron', 'pan']);
    assert.deepEqual(termWords('NEAR(track OR -rails)'), ['near', 'track', 'or', 'rails']);
    assert.deepEqual(termWords("kids' title:pan ^x"), ['kids', 'title', 'pan', 'x']);
    assert.deepEqual(termWords('Café CRÈME e\u0301'), ['café', 'crème', 'é']);
    assert.deepEqual(termWords('中文 ж42'), ['中文', 'ж42']);
  });

  it('returns no word for a term of syntax alone', () => {
    for (const term of ['', '"', '*', '-', "'", '()', ':', '+@~<>', '🙂']) assert.deepEqual(termWords(term), [], term);
  });

  it('drops repeats, and keeps at most MAX_TERM_WORDS words of at most MAX_WORD_LENGTH characters', () => {
    assert.deepEqual(termWords('pan PAN Pan'), ['pan']);
    assert.equal(termWords(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')).length, MAX_TERM_WORDS);
    assert.equal(termWords('x'.repeat(500))[0]!.length, MAX_WORD_LENGTH);
  });

  it('returns words of letters, digits and marks only, never more than the limits, for any term (law)', () => {
    fc.assert(
      fc.property(termTextArb, (term) => {
        const words = termWords(term);
        assert.ok(words.length <= MAX_TERM_WORDS);
        for (const word of words) {
          assert.match(word, WORD);
          assert.ok([...word].length <= MAX_WORD_LENGTH);
        }
        assert.equal(new Set(words).size, words.length);
      }),
    );
  });

  it('is idempotent: the words of the words joined are the words (law)', () => {
    fc.assert(
      fc.property(termTextArb, (term) => assert.deepEqual(termWords(termWords(term).join(' ')), termWords(term))),
    );
  });
});

describe('fullTextTerm', () => {
  it('returns undefined without the setting (LIKE), else the words and the language', () => {
    assert.equal(fullTextTerm('pan', undefined), undefined);
    assert.equal(fullTextTerm('pan', false), undefined);
    assert.deepEqual(fullTextTerm('Pan', true), { words: ['pan'], language: 'simple' });
    assert.deepEqual(fullTextTerm('Pan', { language: 'english' }), { words: ['pan'], language: 'english' });
  });
});

describe('fullTextProblems', () => {
  it('returns a sentence for a language that is not a plain name, none otherwise', () => {
    assert.deepEqual(fullTextProblems(true), []);
    assert.deepEqual(fullTextProblems({ language: 'english' }), []);
    assert.equal(fullTextProblems({ language: "english'); DROP" }).length, 1);
  });
});

describe('postgresTsQuery', () => {
  it('returns every word as a quoted prefix, ANDed', () => {
    assert.equal(postgresTsQuery(['cast', 'pan']), "'cast':* & 'pan':*");
    assert.equal(postgresTsQuery(['or']), "'or':*");
  });

  it("returns only quoted lexemes with ':*' joined by ' & ' for any term (law)", () => {
    fc.assert(
      fc.property(termTextArb, (term) => {
        const query = postgresTsQuery(termWords(term));
        assert.match(query, /^(?:'[\p{L}\p{N}\p{M}]+':\*(?: & (?!$)|$))*$/u);
      }),
    );
  });
});

describe('mariadbBooleanQuery', () => {
  it('returns every word as a required prefix, a stop word as an optional one', () => {
    assert.equal(mariadbBooleanQuery(['cast', 'pan']), '+cast* +pan*');
    assert.equal(mariadbBooleanQuery(['the', 'pan']), 'the* +pan*');
  });

  it('returns only words with + and *, no other boolean operator, for any term (law)', () => {
    fc.assert(
      fc.property(termTextArb, (term) => {
        const words = termWords(term);
        const query = mariadbBooleanQuery(words);
        const tokens = query === '' ? [] : query.split(' ');
        assert.equal(tokens.length, words.length);
        for (const token of tokens) {
          const match = /^(\+?)([\p{L}\p{N}\p{M}]+)\*$/u.exec(token);
          assert.ok(match, token);
          assert.equal(match[1] === '', INNODB_STOPWORDS.has(match[2]!));
        }
      }),
    );
  });
});

describe('fts5Query', () => {
  it('returns every word as an FTS5 string and a prefix, ANDed', () => {
    assert.equal(fts5Query(['cast', 'or', 'near']), '"cast"* AND "or"* AND "near"*');
  });

  it('returns only FTS5 strings of words, each a prefix, joined by AND, for any term (law)', () => {
    fc.assert(
      fc.property(termTextArb, (term) => {
        assert.match(fts5Query(termWords(term)), /^(?:"[\p{L}\p{N}\p{M}]+"\*(?: AND (?!$)|$))*$/u);
      }),
    );
  });
});
