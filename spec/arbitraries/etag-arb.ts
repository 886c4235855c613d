/** Arbitrary entity tags and tag-list headers, built valid by construction. */
import fc from 'fast-check';
import type { EntityTag } from '../../lib/core/etag.js';

/** An etagc character (RFC 9110 §8.8.3): `!`, `#`–`~` (commas and spaces in a tag too), or obs-text. */
const etagcArb = fc.oneof(
  fc.integer({ min: 0x23, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('!', '\x80', '\xff', ','),
);

/** An entity tag: weak or strong, with an opaque part of etagc characters (possibly empty). */
export const entityTagArb: fc.Arbitrary<EntityTag> = fc
  .tuple(fc.boolean(), fc.array(etagcArb, { maxLength: 12 }))
  .map(([weak, chars]) => ({ weak, opaque: chars.join('') }));

/** Optional whitespace around a list member. */
const owsArb = fc.constantFrom('', ' ', '  ', '\t', ' \t');

/** A list header with the tags it names, members padded with optional whitespace and empty members between some. */
export const tagListArb = fc
  .array(fc.tuple(entityTagArb, owsArb, owsArb, fc.boolean()), { maxLength: 5 })
  .map((members) => ({
    tags: members.map(([tag]) => tag),
    header: members
      .map(([tag, left, right, empty]) => `${empty ? ' ,' : ''}${left}${tag.weak ? 'W/' : ''}"${tag.opaque}"${right}`)
      .join(','),
  }));
