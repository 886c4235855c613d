/**
 * docs/guide/operations.md, "Running with read replicas": Sequelize options for an app whose
 * primary may be down when a process starts and whose standbys may restart, and the two ways to
 * read an export on the primary. spec/replicas/operations.spec.ts and spec/replicas/export.spec.ts
 * run them on a real PostgreSQL primary and hot standbys.
 */
import type { FindOptions, Options } from 'sequelize';
import type { CrudOptions } from '../../../lib/index.js';

/** Where a server listens. */
export interface Host {
  readonly host: string;
  readonly port: number;
}

// #region options
// Sequelize reads `databaseVersion` from its options, but its `Options` type does not declare it.
export type ReplicatedOptions = Options & { databaseVersion?: string };

export function replicatedOptions(primary: Host, standbys: readonly Host[]): ReplicatedOptions {
  return {
    dialect: 'postgres',
    database: 'shop',
    username: 'postgres',
    replication: { read: [...standbys], write: primary },
    // The server's version (any 15.x will do for PostgreSQL 15): without it Sequelize asks the
    // primary before its first query, and a process started while the primary is down answers
    // every request 503.
    databaseVersion: '15.0.0',
    // Each connection is replaced after 1,000 queries, so a standby that stopped and came back
    // gets its share of the reads again; the pool never rebalances by itself while it is busy.
    pool: { max: 10, maxUses: 1000 },
    logging: false,
  };
}
// #endregion options

// #region export-on-primary
// Every export of this resource reads its snapshot on the primary:
export const exportOnPrimary: CrudOptions = { config: { export_csv: { use_master: true } } };

// Or per request, from the export's hook (class form: a `modifyExportCsvQuery` method):
export const hooks = {
  modifyExportCsvQuery: (query: FindOptions) => ({ ...query, useMaster: true }),
};
// #endregion export-on-primary
