/**
 * docs/guide/operations.md and docs/guide/databases.md: a Sequelize instance on a SQLite file, set up
 * for concurrent writes. The demo (`npm start`) opens its file with it; spec/docs/operations-page.spec.ts
 * checks each setting and sends concurrent writes from two instances on one file through it.
 */
import { Sequelize, Transaction } from 'sequelize';

// #region sqlite
/** Opens a SQLite file for an app that writes to it concurrently. */
export async function openSqlite(storage: string): Promise<Sequelize> {
  const sequelize = new Sequelize({
    dialect: 'sqlite',
    storage,
    logging: false,
    // Your own transactions take the write lock at BEGIN, as koa-fast-crud's do, so SQLite's
    // busy timeout (1 s per connection in node-sqlite3) waits for another writer there.
    transactionType: Transaction.TYPES.IMMEDIATE,
    // A lock another process (a second server, a sqlite3 shell, a backup) holds for longer than
    // that: each query, BEGIN and COMMIT included, is tried up to 10 times (Sequelize's default: 5).
    retry: { match: [/SQLITE_BUSY/], max: 10, backoffBase: 50 },
  });
  // Write-ahead log: readers no longer block a COMMIT, nor a COMMIT the readers, and a commit
  // syncs one file instead of three. It is stored in the file, so it holds for every connection.
  await sequelize.query('PRAGMA journal_mode = WAL');
  return sequelize;
}
// #endregion sqlite
