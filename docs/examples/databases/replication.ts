/**
 * docs/guide/databases.md: a PostgreSQL connection with read replication and a sized pool.
 * spec/docs/databases-page.spec.ts serves the demo's models over it and checks where each
 * action's queries run. Here the primary doubles as the only replica (127.0.0.1:5432).
 */
import type { Options } from 'sequelize';

// #region options
export const options: Options = {
  dialect: 'postgres',
  database: 'test',
  username: 'postgres',
  replication: {
    // SELECTs outside a transaction; one entry per replica, new connections go round robin.
    read: [{ host: '127.0.0.1', port: 5432 }],
    // Everything else, and every transaction: all writes of koa-fast-crud.
    write: { host: '127.0.0.1', port: 5432 },
  },
  // Per pool: up to 10 connections to the primary and 10 spread over the replicas, per app instance.
  pool: { max: 10, min: 0, idle: 10_000, acquire: 30_000 },
  logging: false,
};
// #endregion options
