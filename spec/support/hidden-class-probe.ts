/**
 * Run by `spec/architecture/hidden-classes.spec.ts` as `node --allow-natives-syntax --import tsx <this file>`: builds
 * replies the way a request does, 4,000 times each, and prints as JSON how many of the last 1,000 got a hidden class
 * (V8 map) other than the one before. A builder that makes a map per call (`{ ...reply, headers }` in Node 20) counts
 * about 1,000; one that does not, 0.
 */
import { withTag } from '../../lib/actions/record-tag.js';
import { withHeader } from '../../lib/core/jsend.js';
import type { Reply } from '../../lib/types.js';

// V8's intrinsic, reachable only with --allow-natives-syntax, and only from code parsed at run time.
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const CALLS = 4000;
const COUNTED = 1000;

/** How many of the last `COUNTED` results of `build` (and of the object `part` picks from each) changed map. */
function freshMaps(build: (i: number) => object, part: (built: object) => object = (built) => built): number {
  let previous: object | undefined;
  let fresh = 0;
  for (let i = 0; i < CALLS; i++) {
    const built = part(build(i));
    if (previous !== undefined && i >= CALLS - COUNTED && !sameMap(previous, built)) fresh++;
    previous = built;
  }
  return fresh;
}

const reply = (i: number): Reply => ({ status: 200, body: { status: 'success', data: { id: i }, meta: {} } });
const headersOf = (built: object) => (built as Reply).headers!;
const tag = { weak: false, opaque: 'v1' };

process.stdout.write(
  JSON.stringify({
    control: freshMaps((i) => ({ ...reply(i), headers: { ETag: '"v1"' } })),
    withTag: freshMaps((i) => withTag(reply(i), tag, '{}')),
    withTagHeaders: freshMaps((i) => withTag(reply(i), tag), headersOf),
    // A create's Location on its tagged reply; a lowered search page's header, then its tag.
    withHeader: freshMaps((i) => withHeader(withTag(reply(i), tag), 'Location', `/items/${i}`)),
    withHeaderHeaders: freshMaps((i) => withHeader(withTag(reply(i), tag), 'Location', `/items/${i}`), headersOf),
    loweredThenTagged: freshMaps((i) => withTag(withHeader(reply(i), 'Fast-Crud-Per-Page-Lowered', '100'), tag, '{}')),
    loweredThenTaggedHeaders: freshMaps(
      (i) => withTag(withHeader(reply(i), 'Fast-Crud-Per-Page-Lowered', '100'), tag),
      headersOf,
    ),
  }),
);
