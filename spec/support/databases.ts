/** The databases every database test runs on: SQLite always, PostgreSQL and MariaDB when reachable (always in CI). */
import { Sequelize, type Options } from 'sequelize';

/** A database a suite runs on, or the visible reason it is skipped. */
export interface TestDatabase {
  readonly dialect: 'sqlite' | 'postgres' | 'mariadb';
  /** Present when the database answered. */
  readonly sequelize?: Sequelize;
  /** Why the suite is skipped; undefined when it runs. */
  readonly skip?: string;
}

const SERVERS = {
  postgres: process.env['FAST_CRUD_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
  mariadb: process.env['FAST_CRUD_MARIADB_URL'] ?? 'mariadb://root@127.0.0.1:3306/test',
} as const;

const QUIET: Options = { logging: false, pool: { max: 4, idle: 1000 } };

/**
 * Connects to every test database. Outside CI an unreachable server gives a skip reason that the
 * test report shows; with CI=true it throws, so a missing server fails the run.
 */
export async function testDatabases(): Promise<TestDatabase[]> {
  const sqlite: TestDatabase = {
    dialect: 'sqlite',
    sequelize: new Sequelize({ ...QUIET, dialect: 'sqlite', storage: ':memory:' }),
  };
  const servers = await Promise.all(
    (Object.keys(SERVERS) as (keyof typeof SERVERS)[]).map((dialect) => connectServer(dialect, SERVERS[dialect])),
  );
  return [sqlite, ...servers];
}

async function connectServer(dialect: 'postgres' | 'mariadb', url: string): Promise<TestDatabase> {
  const dialectOptions = dialect === 'postgres' ? { connectionTimeoutMillis: 3000 } : { connectTimeout: 3000 };
  const sequelize = new Sequelize(url, { ...QUIET, dialectOptions });
  try {
    await sequelize.authenticate();
    return { dialect, sequelize };
  } catch (cause) {
    await sequelize.close().catch(() => undefined);
    const reason = `${dialect} is not reachable at ${url.replace(/\/\/[^@]*@/, '//')}: ${(cause as Error).message}`;
    if (process.env['CI'] === 'true') throw new Error(`${reason} (CI=true requires every database)`, { cause });
    return { dialect, skip: `${reason}; start it to run these tests` };
  }
}

/** True when PostgreSQL answers at `url` within 3 s: the benchmarks run their PostgreSQL rounds only then. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const sequelize = new Sequelize(url, { ...QUIET, dialectOptions: { connectionTimeoutMillis: 3000 } });
  try {
    await sequelize.authenticate();
    return true;
  } catch {
    return false;
  } finally {
    await sequelize.close().catch(() => undefined);
  }
}

/** Closes every connected database. */
export async function closeAll(databases: readonly TestDatabase[]): Promise<void> {
  await Promise.all(databases.map((db) => db.sequelize?.close()));
}
