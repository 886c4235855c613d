/**
 * The per-request deadline (`global.timeout_ms`) and cancellation: a request's queries run under
 * it, the database stops each statement after it too, and a request that passes it or whose
 * client leaves has its running queries cancelled and its later ones refused.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { QueryOptions, Sequelize } from 'sequelize';
import { DEADLINE_ERROR_NAME } from '../core/db-failure.js';
import { privateSequelize } from './private-sequelize.js';

/**
 * How long a cancelled query may take to stop before its connection is closed under it: what
 * frees a pool connection whose server does not answer at all (a blackholed link).
 */
const CANCEL_GRACE_MS = 1000;

/** The work of one request: its deadline, why it stopped (if it did), and the queries it is running. */
export class RequestWork {
  /** Why the work stopped: the deadline's error or the client's leaving; undefined while it runs. */
  reason: Error | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;
  private readonly running = new Set<RunningQuery>();
  /** The rejections of the steps now waiting in `race`; each leaves the set when its step settles. */
  private readonly waiting = new Set<(reason: Error) => void>();

  /** @param timeoutMs `global.timeout_ms` of the route's configuration. */
  constructor(readonly timeoutMs: number) {}

  /** Starts (or restarts) the deadline: `timeoutMs` from now. */
  arm(): void {
    this.disarm();
    if (this.reason !== undefined) return;
    this.timer = setTimeout(() => this.stop(deadlineError(this.timeoutMs)), this.timeoutMs);
    this.timer.unref();
  }

  /** Clears the deadline (the work goes on without one until `arm` is called again). */
  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Stops the work for good: every step waiting in `race` rejects, running queries are cancelled, later ones refused.
   */
  stop(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.disarm();
    for (const reject of this.waiting) reject(reason);
    this.waiting.clear();
    for (const query of this.running) cancel(query);
  }

  /**
   * Runs `step` under a deadline of `timeoutMs` from now: settles as the step does (the deadline then cleared), or
   * rejects with the reason the work stops, whichever comes first; at once, without running the step, when the work
   * has stopped already. One promise and two reactions per step (a request's hot path: each promise costs more while
   * `AsyncLocalStorage` is on). Not `Promise.race` with a promise that lives as long as the request: each race would
   * leave a reaction on it holding the step's result, so an export would keep every batch it has read.
   */
  within<T>(step: () => Promise<T>): Promise<T> {
    if (this.reason !== undefined) return Promise.reject(this.reason);
    this.arm();
    return new Promise<T>((resolve, reject) => {
      let started: Promise<T>;
      try {
        started = step();
      } catch (error) {
        // Rejects this promise with the step's error.
        this.disarm();
        throw error;
      }
      // Stopped already (the step itself may have stopped the work): the step is still awaited, so its own error is
      // never unhandled.
      if (this.reason === undefined) this.waiting.add(reject);
      else reject(this.reason);
      started.then(
        (value) => {
          this.settled(reject);
          resolve(value);
        },
        (error: Error) => {
          this.settled(reject);
          reject(error);
        },
      );
    });
  }

  /** A step of `within` settled: its deadline is cleared and a later stop no longer rejects it. */
  private settled(reject: (reason: Error) => void): void {
    this.disarm();
    this.waiting.delete(reject);
  }

  /** Records a query that started on `connection`; `untrack` when it ends. */
  track(query: RunningQuery): void {
    this.running.add(query);
  }

  untrack(query: RunningQuery): void {
    query.settled = true;
    this.running.delete(query);
  }
}

/** One query in flight: the connection it runs on and the dialect that says how to cancel it. */
interface RunningQuery {
  readonly sequelize: Sequelize;
  readonly dialect: string;
  readonly connection: DriverConnection;
  settled: boolean;
}

/** The driver connections the cancellation touches: node-postgres's Client, the mariadb connector's Connection. */
interface DriverConnection {
  [LIMIT]?: number;
  query(sql: string): Promise<unknown>;
  getTransactionStatus?(): string | null;
  readonly processID?: number | null;
  readonly threadId?: number | null;
  readonly secretKey?: unknown;
  readonly host?: string;
  readonly port?: number;
  readonly connection?: { readonly stream?: { destroy(): void } };
  end?(): Promise<void>;
}

/** The statement limit set on a driver connection by this library, in ms. */
const LIMIT: unique symbol = Symbol('koa-fast-crud: statement limit');

const storage = new AsyncLocalStorage<RequestWork>();

/**
 * Runs `work` (a route's action) under the request's deadline: it answers with `work`'s result,
 * or rejects with the reason the request stopped (the deadline's error, or the client's leaving)
 * as soon as it stops, whatever `work` is still waiting for. Queries `work` runs on a watched
 * Sequelize instance (`watchQueries`) see the deadline.
 * @example
 * const reply = await runUnderDeadline(new RequestWork(config.global.timeout_ms), () => handler(ctx, 'search'));
 */
export function runUnderDeadline<T>(request: RequestWork, work: () => Promise<T>): Promise<T> {
  return storage.run(request, () => request.within(work));
}

/**
 * Runs one step of a long request (a batch of an export) under a deadline of its own,
 * `global.timeout_ms` from now; at once, with none, outside a request.
 * @example batch = await underFreshDeadline(() => batches.next());
 */
export async function underFreshDeadline<T>(step: () => Promise<T>): Promise<T> {
  const request = storage.getStore();
  return request === undefined ? step() : request.within(step);
}

/**
 * Runs `step` with the request's deadline paused, then restarts it: the time a client takes to
 * send its body is not the database's.
 * @example const body = await outsideDeadline(() => readBody(ctx, limit));
 */
export async function outsideDeadline<T>(step: () => Promise<T>): Promise<T> {
  const request = storage.getStore();
  request?.disarm();
  try {
    return await step();
  } finally {
    request?.arm();
  }
}

/**
 * Runs `work` outside any request: its queries, and the timers and callbacks it starts, see no request's deadline
 * and are not cancelled when a request stops (the change feed's reads, which outlive the request that started them).
 * @example outsideRequests(() => hub.start());
 */
export function outsideRequests<T>(work: () => T): T {
  return storage.exit(work);
}

/**
 * An error of the request's deadline; `replyForError` answers it with a 503 `databaseTimeout`.
 * @example deadlineError(10_000).name // 'FastCrudDeadlineError'
 */
function deadlineError(timeoutMs: number): Error {
  return Object.assign(new Error(`The request passed its deadline of ${timeoutMs} ms (global.timeout_ms)`), {
    name: DEADLINE_ERROR_NAME,
  });
}

/**
 * The name of the query hooks `watchQueries` adds; the driver path applies the deadline itself (`underRequestDeadline`)
 * where they are the only ones.
 */
export const DEADLINE_HOOK = 'koa-fast-crud:deadline';

const watched = new WeakSet<Sequelize>();

/**
 * Adds to a Sequelize instance, once, the query hooks that apply the requests' deadlines: a query
 * of a stopped request is refused (COMMIT and ROLLBACK excepted), a running one is tracked so it
 * can be cancelled, and the connection gets the statement limit (PostgreSQL `statement_timeout`,
 * MariaDB `max_statement_time`) of `global.timeout_ms`, set once per connection and taken off
 * again before a query that runs outside any request.
 * @example watchQueries(Product.sequelize!);
 */
export function watchQueries(sequelize: Sequelize): void {
  if (watched.has(sequelize)) return;
  watched.add(sequelize);
  const tracked = new WeakMap<object, { request: RequestWork; query: RunningQuery }>();
  sequelize.addHook('beforeQuery', DEADLINE_HOOK, async (options: QueryOptions, query: object) => {
    const connection = (query as { connection?: DriverConnection }).connection;
    if (connection === undefined) return;
    // COMMIT and ROLLBACK are left to finish: cancelling them would leave the transaction's end unknown.
    if ((options as { completesTransaction?: boolean }).completesTransaction === true) return;
    const request = storage.getStore();
    const running = await startQuery(sequelize, connection, request);
    if (running !== undefined) tracked.set(query, { request: request!, query: running });
  });
  sequelize.addHook('afterQuery', DEADLINE_HOOK, (_options: QueryOptions, query: object) => {
    const entry = tracked.get(query);
    if (entry !== undefined) entry.request.untrack(entry.query);
  });
}

/**
 * Runs a query the driver path sends past Sequelize (`driverSelect`) as the deadline's hooks would
 * see it: refused when the request has stopped, tracked so it can be cancelled, on a connection
 * with the statement limit. A Sequelize instance `watchQueries` never saw runs it as it is.
 * @example const rows = await underRequestDeadline(sequelize, connection, () => run(connection));
 */
export function underRequestDeadline<T>(sequelize: Sequelize, connection: object, run: () => Promise<T>): Promise<T> {
  if (!watched.has(sequelize)) return run();
  const request = storage.getStore();
  const started = startQuery(sequelize, connection as DriverConnection, request);
  return started instanceof Promise
    ? started.then((running) => runTracked(request, running, run))
    : runTracked(request, started, run);
}

/** Runs a query `startQuery` let start, and untracks it (when it tracked it) as it ends. */
function runTracked<T>(request: RequestWork | undefined, running: RunningQuery | undefined, run: () => Promise<T>) {
  if (running === undefined) return run();
  let result: Promise<T>;
  try {
    result = run();
  } catch (error) {
    request!.untrack(running);
    throw error;
  }
  return result.then(
    (value) => {
      request!.untrack(running);
      return value;
    },
    (error: unknown) => {
      request!.untrack(running);
      throw error;
    },
  );
}

/**
 * What every query does before it starts: outside a request, its connection gets its own
 * statement limit back; in a stopped request, it is refused (thrown); else it is tracked (the caller
 * untracks it when it ends) and its connection gets the request's statement limit. Synchronous when
 * no statement has to be sent first (the connection has the limit, or its dialect has none to set).
 */
function startQuery(
  sequelize: Sequelize,
  connection: DriverConnection,
  request: RequestWork | undefined,
): RunningQuery | undefined | Promise<RunningQuery | undefined> {
  const dialect = sequelize.getDialect();
  if (request === undefined)
    return connection[LIMIT] === undefined ? undefined : liftLimit(dialect, connection).then(() => undefined);
  if (request.reason !== undefined) return Promise.reject(request.reason);
  const running: RunningQuery = { sequelize, dialect, connection, settled: false };
  request.track(running);
  if (connection[LIMIT] === request.timeoutMs || (dialect !== 'postgres' && dialect !== 'mariadb')) return running;
  return applyLimit(dialect, connection, request.timeoutMs).then(
    () => {
      if (request.reason === undefined) return running;
      // Stopped while the limit was being set: the cancel went to that statement, so this one must not start.
      request.untrack(running);
      throw request.reason;
    },
    (error: unknown) => {
      request.untrack(running);
      throw error;
    },
  );
}

/**
 * Sets the connection's statement limit to `ms` unless it has it: on PostgreSQL only outside a transaction block, where
 * a SET is not undone by a rollback.
 */
async function applyLimit(dialect: string, connection: DriverConnection, ms: number): Promise<void> {
  if (connection[LIMIT] === ms) return;
  if (dialect === 'postgres' && connection.getTransactionStatus?.() === 'I') {
    await connection.query(`SET statement_timeout = ${ms}`);
    connection[LIMIT] = ms;
  } else if (dialect === 'mariadb') {
    await connection.query(`SET SESSION max_statement_time = ${ms / 1000}`);
    connection[LIMIT] = ms;
  }
}

/** Gives a connection that carries the library's statement limit back its own, for a query outside any request. */
async function liftLimit(dialect: string, connection: DriverConnection): Promise<void> {
  if (connection[LIMIT] === undefined) return;
  if (dialect === 'postgres' && connection.getTransactionStatus?.() === 'I') {
    await connection.query('RESET statement_timeout');
    delete connection[LIMIT];
  } else if (dialect === 'mariadb') {
    await connection.query('SET SESSION max_statement_time = DEFAULT');
    delete connection[LIMIT];
  }
}

/**
 * Cancels a running query. PostgreSQL: a cancel request (what `pg_cancel_backend` does) on a
 * connection of its own, then, when the query has not stopped within `CANCEL_GRACE_MS`, the
 * connection is closed and left out of the pool. MariaDB: `KILL QUERY` of the connection's
 * thread, from a connection of its own (not the connector's `destroy()`, which drops commands it
 * has queued without settling them, and so would never give the connection back to the pool);
 * not with replication, where that connection could reach another server than the query's. SQLite
 * runs in the process: its statement runs to its end, but the request's reply does not wait for it.
 */
function cancel(query: RunningQuery): void {
  const { dialect, connection } = query;
  if (dialect === 'mariadb') return void killMariadbQuery(query);
  if (dialect !== 'postgres' || typeof connection.processID !== 'number') return;
  const canceller = sendPgCancel(connection);
  const grace = setTimeout(() => {
    canceller?.stream?.destroy();
    if (!query.settled) {
      privateSequelize.markBroken(connection);
      connection.connection?.stream?.destroy();
    }
  }, CANCEL_GRACE_MS);
  grace.unref();
}

/**
 * `KILL QUERY <thread>` on a new connection with the instance's settings, closed at once; every failure ignored (the
 * statement limit still stops the query). Not when the query ended while that connection was opened: its connection
 * may be back in the pool, running another request's query, which the KILL would stop.
 */
async function killMariadbQuery(query: RunningQuery): Promise<void> {
  const { sequelize, connection } = query;
  const { threadId } = connection;
  const config = sequelize.config as typeof sequelize.config & { replication?: unknown; dialectOptions?: object };
  if (typeof threadId !== 'number' || (config.replication !== undefined && config.replication !== false)) return;
  const driver = (
    sequelize.connectionManager as unknown as { lib: { createConnection(options: object): Promise<DriverConnection> } }
  ).lib;
  let killer: DriverConnection | undefined;
  try {
    killer = await driver.createConnection({
      connectTimeout: CANCEL_GRACE_MS,
      ...config.dialectOptions,
      host: config.host,
      port: config.port,
      user: config.username,
      password: config.password,
    });
    if (!query.settled) await killer.query(`KILL QUERY ${threadId}`);
  } catch {
    // The database is out of reach: nothing more to do from here.
  } finally {
    await killer?.end?.().catch(() => undefined);
  }
}

/**
 * A PostgreSQL cancel request (a new socket to the same server carrying the backend's key), sent as node-postgres sends
 * it; its errors are ignored.
 */
function sendPgCancel(connection: DriverConnection): PgWire | undefined {
  const { host = 'localhost', port = 5432, processID, secretKey } = connection;
  const Client = connection.constructor as new (config: object) => { readonly connection: PgWire };
  try {
    const wire = new Client({ host, port }).connection;
    wire.on('error', () => undefined);
    wire.once('connect', () => wire.cancel(processID, secretKey));
    if (host.startsWith('/')) wire.connect(`${host}/.s.PGSQL.${port}`);
    else wire.connect(port, host);
    return wire;
  } catch {
    return undefined;
  }
}

/** node-postgres's wire connection, as far as a cancel request uses it. */
interface PgWire {
  readonly stream?: { destroy(): void };
  on(event: string, listener: () => void): void;
  once(event: string, listener: () => void): void;
  connect(portOrPath: number | string, host?: string): void;
  cancel(processID: unknown, secretKey: unknown): void;
}
