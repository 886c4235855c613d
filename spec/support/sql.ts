/** Offline SQL: Sequelize instances per dialect that compile queries and never connect, like kysely's dummy driver. */
import { Sequelize, type FindOptions, type Model, type ModelStatic, type Options } from 'sequelize';

/** The dialects the library supports, each compiled offline. */
export const DIALECTS = ['sqlite', 'postgres', 'mariadb'] as const;

/** One of DIALECTS. */
export type Dialect = (typeof DIALECTS)[number];

/** Servers are unreachable on purpose (port 1): a query that tried to connect would fail, not pass. */
const OPTIONS: Readonly<Record<Dialect, Options>> = {
  sqlite: { dialect: 'sqlite', storage: ':memory:' },
  postgres: { dialect: 'postgres', host: '127.0.0.1', port: 1, username: 'offline', database: 'none' },
  mariadb: { dialect: 'mariadb', host: '127.0.0.1', port: 1, username: 'offline', database: 'none' },
};

/** The SQL statements an offline instance was asked to run, in order. */
const captured = new WeakMap<Sequelize, string[]>();

/**
 * A Sequelize instance of the dialect whose `query` records the SQL and answers no rows, and
 * whose connection manager throws: models defined on it compile queries without a database.
 * @example const Product = offlineSequelize('postgres').define('Product', { name: DataTypes.STRING });
 */
export function offlineSequelize(dialect: Dialect): Sequelize {
  const sequelize = new Sequelize({ ...OPTIONS[dialect], logging: false });
  const statements: string[] = [];
  captured.set(sequelize, statements);
  const refuse = () => Promise.reject(new Error(`offline ${dialect}: a query tried to connect`));
  Object.assign(sequelize.connectionManager, { getConnection: refuse, connect: refuse });
  Object.assign(sequelize, {
    query: (sql: string | { query: string }) => {
      statements.push(typeof sql === 'string' ? sql : sql.query);
      return Promise.resolve([]);
    },
  });
  return sequelize;
}

/**
 * The SELECT that `model.findAll(options)` sends, compiled on the model's offline instance: scopes,
 * hooks, field names, the paranoid clause and includes are applied exactly as findAll applies them.
 * @example await selectSql(Product, { where: { name: 'Kite' }, limit: 1 })
 *   // 'SELECT "id", … FROM "products" AS "Product" WHERE "Product"."name" = \'Kite\' LIMIT 1;'
 */
export async function selectSql(model: ModelStatic<Model>, options: FindOptions): Promise<string> {
  const statements = captured.get(model.sequelize!);
  if (statements === undefined) throw new Error(`${model.name} is not defined on an offlineSequelize instance`);
  const before = statements.length;
  await model.findAll(options);
  const sent = statements.slice(before);
  if (sent.length !== 1) throw new Error(`findAll sent ${sent.length} statements, not one: ${sent.join(' | ')}`);
  return sent[0]!;
}

/**
 * The one statement `run` sends on the model's offline instance (a fast-path select, a count).
 * @example await sentSql(Product, () => Product.count({ where: { active: true } })) // 'SELECT count(*) AS "count" FROM …;'
 */
export async function sentSql(model: ModelStatic<Model>, run: () => Promise<unknown>): Promise<string> {
  const statements = captured.get(model.sequelize!);
  if (statements === undefined) throw new Error(`${model.name} is not defined on an offlineSequelize instance`);
  const before = statements.length;
  await run();
  const sent = statements.slice(before);
  if (sent.length !== 1) throw new Error(`sent ${sent.length} statements, not one: ${sent.join(' | ')}`);
  return sent[0]!;
}
