/** Snapshot files for the offline SQL specs: compared exactly, written only when asked, never silently. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Set to 1 to rewrite snapshot files from what the specs compute instead of comparing. */
export const UPDATING = process.env['FAST_CRUD_UPDATE_SNAPSHOTS'] === '1';

/** A snapshot file: named strings, one per case. */
export interface SnapshotFile {
  /** Fails unless `actual` equals the stored snapshot; a missing one fails too (when not UPDATING). */
  match(name: string, actual: string): void;
  /** With UPDATING, writes every matched snapshot (and only those); otherwise fails on stored ones no case matched. */
  finish(): void;
}

/**
 * Opens a JSON snapshot file. Missing snapshots fail with the command that writes them, so CI
 * (or anyone) never passes on a snapshot nobody looked at.
 * @example const snapshots = snapshotFile(new URL('__snapshots__/postgres.json', import.meta.url).pathname);
 */
export function snapshotFile(path: string): SnapshotFile {
  const stored: Record<string, string> = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const seen = new Map<string, string>();
  return {
    match(name, actual) {
      assert.ok(!seen.has(name), `two cases share the snapshot name ${JSON.stringify(name)}`);
      seen.set(name, actual);
      if (UPDATING) return;
      assert.ok(
        Object.hasOwn(stored, name),
        `no snapshot ${JSON.stringify(name)} in ${path}: run with FAST_CRUD_UPDATE_SNAPSHOTS=1, then review the diff`,
      );
      assert.equal(actual, stored[name]);
    },
    finish() {
      if (UPDATING) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(
          path,
          `${JSON.stringify(Object.fromEntries([...seen].sort(([a], [b]) => a.localeCompare(b))), null, 2)}\n`,
        );
        return;
      }
      assert.deepEqual(
        Object.keys(stored).filter((name) => !seen.has(name)),
        [],
        `stale snapshots in ${path}: rewrite with FAST_CRUD_UPDATE_SNAPSHOTS=1`,
      );
    },
  };
}
