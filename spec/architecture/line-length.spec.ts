/**
 * No line of lib/ is longer than 120 characters. Prettier (`npm run lint`) wraps code at that width
 * but leaves comments and strings alone, so this checks them too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const LIMIT = 120;

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line (length)` for each line longer than the limit. */
function longLines(files: readonly string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (line.length > LIMIT ? [`${file}:${i + 1} (${line.length})`] : [])),
  );
}

describe('lib/ line length', () => {
  it(`has no line over ${LIMIT} characters`, () => {
    const files = sources('lib');
    assert.ok(files.length > 50, `read ${files.length} files`);
    assert.deepEqual(longLines(files), []);
  });

  it('names each line that is too long, by file, line and length', () => {
    const folder = mkdtempSync(join(tmpdir(), 'line-length-'));
    const file = join(folder, 'long.ts');
    writeFileSync(file, `const a = 1;\n// ${'x'.repeat(LIMIT - 2)}\n// ${'x'.repeat(LIMIT - 3)}\n`);
    try {
      assert.deepEqual(longLines([file]), [`${file}:2 (${LIMIT + 1})`]);
    } finally {
      rmSync(folder, { recursive: true });
    }
  });
});
