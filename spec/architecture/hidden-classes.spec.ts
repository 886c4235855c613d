/**
 * The replies a request builds get no hidden class of their own. In Node 20's V8, `{ ...object, newKey }` makes a new
 * map on every call (about 1 µs, and old-space garbage that runs mark-compacts under load: the performance page,
 * stop 32). The probe (`spec/support/hidden-class-probe.ts`) asks V8 itself, under `--allow-natives-syntax`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

describe('hidden classes per request', () => {
  it('a reply given a header (ETag, Location, a lowered page) and its headers keep one map; the spread control does not', () => {
    const output = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', 'spec/support/hidden-class-probe.ts'],
      { encoding: 'utf8' },
    );
    const { control, ...builders } = JSON.parse(output) as Record<string, number>;
    assert.ok(control! > 900, `the probe sees the spread's maps (${control} of 1000)`);
    assert.deepEqual(builders, {
      withTag: 0,
      withTagHeaders: 0,
      withHeader: 0,
      withHeaderHeaders: 0,
      loweredThenTagged: 0,
      loweredThenTaggedHeaders: 0,
    });
  });
});
