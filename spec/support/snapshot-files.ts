/**
 * The connections the export specs read a snapshot on: PostgreSQL and MariaDB as they are; for SQLite a file in WAL
 * mode, the setup where an export reads one snapshot (an in-memory database has one shared connection and no
 * snapshot, which a cursor needs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sequelize } from 'sequelize';

/** Snapshot connections made in one temporary directory, closed and removed together. */
export interface SnapshotFiles {
  /** `sequelize` itself, or for SQLite a WAL file named `name` in the directory. */
  connection(sequelize: Sequelize, name: string): Promise<Sequelize>;
  /** Closes every file's connection and removes the directory. */
  close(): Promise<void>;
}

/**
 * A directory for one spec's SQLite snapshot files, named after `prefix`.
 * @example const snapshots = snapshotFiles('fast-crud-export-'); after(() => snapshots.close());
 */
export function snapshotFiles(prefix: string): SnapshotFiles {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  const files: Sequelize[] = [];
  return {
    async connection(sequelize, name) {
      if (sequelize.getDialect() !== 'sqlite') return sequelize;
      const file = new Sequelize({ dialect: 'sqlite', storage: join(directory, `${name}.sqlite`), logging: false });
      await file.query('PRAGMA journal_mode = WAL');
      files.push(file);
      return file;
    },
    async close() {
      await Promise.all(files.map((sequelize) => sequelize.close()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * True while an export's snapshot is open: a connection borrowed from this Sequelize's pool (PostgreSQL, MariaDB;
 * other test files share the database, so its sessions say nothing), or a transaction's own connection (SQLite).
 * @example assert.ok(await holdsSnapshot(sequelize), 'the export holds its snapshot while it streams');
 */
export async function holdsSnapshot(sequelize: Sequelize): Promise<boolean> {
  const manager = (
    sequelize as unknown as { connectionManager: { pool?: { using?: number }; connections?: Record<string, unknown> } }
  ).connectionManager;
  if (sequelize.getDialect() === 'sqlite') return Object.keys(manager.connections ?? {}).length > 1;
  return (manager.pool?.using ?? 0) > 0;
}
