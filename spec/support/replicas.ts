/**
 * A real PostgreSQL primary with two hot standbys for the replica suites (spec/replicas/): the one
 * `.ci/run` built (`scripts/replicas.sh up`, read from FAST_CRUD_REPLICA_*), or, when none is set,
 * one the suite builds for itself with the same script and drops at its end. Outside CI a machine
 * that cannot build them (no pg_createcluster, not root) skips the suite visibly; with CI=true it fails.
 *
 * Each server logs every statement (`log_statement = 'all'`, the connection's application_name in
 * each line), so a suite counts which server ran what: give each Sequelize instance its own
 * `application_name` and read `statementsSince(mark)`.
 */
import { execFile } from 'node:child_process';
import { open, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Sequelize, type Options } from 'sequelize';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/replicas.sh', import.meta.url));

/** The servers of a replica set: host and port of each, and the log file each writes. */
export interface ReplicaSet {
  /** The primary, which takes writes. */
  readonly primary: Server;
  /** A hot standby that replays at once. */
  readonly standby: Server;
  /** A hot standby that replays each commit 300 ms late (`recovery_min_apply_delay`). */
  readonly delayed: Server;
  /** Drops the clusters when the suite built them (a no-op for `.ci/run`'s). */
  release(): Promise<void>;
}

export interface Server {
  readonly role: 'primary' | 'standby' | 'delayed';
  readonly host: string;
  readonly port: number;
  readonly log: string;
}

/**
 * The replica set, or why the suite is skipped (outside CI only). `own: true` always builds one for
 * this process, even under `.ci/run`: for a suite that stops, restarts or reconfigures the servers.
 */
export async function replicaSet(name: string, { own = false } = {}): Promise<ReplicaSet | { skip: string }> {
  // The clusters' names carry the process id, so parallel runs of one suite never share them.
  const tag = `${name}${process.pid}`;
  let variables: Record<string, string | undefined> = process.env;
  let built = false;
  if (own || process.env['FAST_CRUD_REPLICA_PRIMARY'] === undefined) {
    try {
      const { stdout } = await run('bash', [SCRIPT, 'up', tag], { timeout: 120_000 });
      variables = Object.fromEntries(
        [...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map(([, name, value]) => [name!, value!]),
      );
      built = true;
    } catch (cause) {
      const reason = `no PostgreSQL replica set could be built (scripts/replicas.sh up): ${(cause as Error).message}`;
      if (process.env['CI'] === 'true') throw new Error(`${reason} (CI=true requires it)`, { cause });
      return { skip: `${reason.split('\n')[0]}` };
    }
  }
  const logs = (variables['FAST_CRUD_REPLICA_LOGS'] ?? '').split(':');
  const server = (role: Server['role'], address: string | undefined, log: string | undefined): Server => {
    const [host, port] = (address ?? '').split(':');
    if (host === undefined || port === undefined || log === undefined)
      throw new Error(`FAST_CRUD_REPLICA_* do not name the ${role}`);
    return { role, host, port: Number(port), log };
  };
  return {
    primary: server('primary', variables['FAST_CRUD_REPLICA_PRIMARY'], logs[0]),
    standby: server('standby', variables['FAST_CRUD_REPLICA_STANDBY'], logs[1]),
    delayed: server('delayed', variables['FAST_CRUD_REPLICA_DELAYED'], logs[2]),
    release: async () => {
      if (built) await run('bash', [SCRIPT, 'down', tag], { timeout: 120_000 });
    },
  };
}

/**
 * A Sequelize instance with `replication`: writes to the primary, reads to `readers` (round robin,
 * as Sequelize chooses), every connection named `application` in the servers' logs. Each suite
 * works in a database of its own on the primary (created here when missing), so parallel suites
 * never share tables.
 */
export async function replicatedSequelize(
  set: ReplicaSet,
  readers: readonly Server[],
  database: string,
  application: string,
  options: Options = {},
): Promise<Sequelize> {
  const admin = new Sequelize({ dialect: 'postgres', ...address(set.primary), database: 'postgres', logging: false });
  try {
    const [rows] = await admin.query(`SELECT 1 FROM pg_database WHERE datname = '${database}'`);
    if (rows.length === 0) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.close();
  }
  // A standby replays the new database in a moment: wait until each reader can connect to it.
  for (const reader of readers) await reachable(reader, database);
  return new Sequelize({
    dialect: 'postgres',
    database,
    username: 'postgres',
    logging: false,
    dialectOptions: { application_name: application },
    replication: { read: readers.map(address), write: address(set.primary) },
    pool: { max: 10, idle: 1000 },
    ...options,
  });
}

function address(server: Server): { host: string; port: number; username: string } {
  return { host: server.host, port: server.port, username: 'postgres' };
}

async function reachable(server: Server, database: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const probe = new Sequelize({ dialect: 'postgres', ...address(server), database, logging: false });
    try {
      await probe.authenticate();
      return;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await probe.close();
    }
  }
}

/** Where each server's log ends now: pass it to `statementsSince`. */
export async function logMark(set: ReplicaSet): Promise<Record<Server['role'], number>> {
  const [primary, standby, delayed] = await Promise.all(
    [set.primary, set.standby, set.delayed].map(async ({ log }) => (await stat(log)).size),
  );
  return { primary: primary!, standby: standby!, delayed: delayed! };
}

/**
 * The statements each server logged since `mark` for connections named `application`, in order
 * (the text after `statement: `; a statement's later lines are left out).
 */
export async function statementsSince(
  set: ReplicaSet,
  mark: Record<Server['role'], number>,
  application: string,
): Promise<Record<Server['role'], string[]>> {
  const read = async (server: Server) => {
    const file = await open(server.log, 'r');
    try {
      const { size } = await file.stat();
      const buffer = Buffer.alloc(Math.max(0, size - mark[server.role]));
      await file.read(buffer, 0, buffer.length, mark[server.role]);
      const marker = ` ${application} LOG:  statement: `;
      return buffer
        .toString('utf8')
        .split('\n')
        .filter((line) => line.includes(marker))
        .map((line) => line.slice(line.indexOf(marker) + marker.length));
    } finally {
      await file.close();
    }
  };
  const [primary, standby, delayed] = await Promise.all([set.primary, set.standby, set.delayed].map(read));
  return { primary: primary!, standby: standby!, delayed: delayed! };
}
