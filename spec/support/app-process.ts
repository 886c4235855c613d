/**
 * An app in a process of its own, for the suites that run several processes against one database
 * (spec/http/several-processes.spec.ts, spec/replicas/several-processes.spec.ts): `startApp` spawns
 * this file, which serves the items resource in both forms (`/class/items`, `/resource/items`), a live one
 * (`/class/live`, `/resource/live`, see `defineLiveItem`) on a
 * Koa server of its own, and `POST /test/describe-delay?ms=` (see `describeDelay`). Every process defines the same models with `defineItem`; the suite makes
 * and changes the tables.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize, type Model, type ModelStatic, type Options } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import assert from 'node:assert/strict';
import { FORMS, type Form } from './forms.js';

/** Where a process's Sequelize connects: a URL (PostgreSQL, MariaDB), a SQLite file, or a replica set's servers. */
export type AppDatabase =
  | { readonly url: string }
  | { readonly storage: string }
  | { readonly replication: NonNullable<Options['replication']>; readonly database: string };

/**
 * The items model of a form: `mp<initial>_items` with a UUID key, `name`, `price` and `rating`. The
 * table may hold more (the suites add and drop `legacy_code`, which no model declares).
 */
export function defineItem(sequelize: Sequelize, form: Pick<Form, 'initial'>): ModelStatic<Model> {
  return sequelize.define(
    `mp${form.initial}Item`,
    {
      id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
      name: { type: DataTypes.STRING(60), allowNull: false },
      price: { type: DataTypes.INTEGER, allowNull: false },
      rating: { type: DataTypes.INTEGER, allowNull: true },
    },
    { tableName: `mp${form.initial}_items`, timestamps: false },
  );
}

/**
 * The live items model of a form (`lv<initial>_live_items`, spec/http/live-processes.spec.ts): an integer key and a
 * `name`; both forms serve it live at `/<form>/live`.
 */
export function defineLiveItem(sequelize: Sequelize, form: Pick<Form, 'initial'>): ModelStatic<Model> {
  return sequelize.define(
    `lv${form.initial}LiveItem`,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(60), allowNull: false },
    },
    { tableName: `lv${form.initial}_live_items`, timestamps: false },
  );
}

/** The resource both forms serve: everything fillable; `X-Use-Master: 1` sends a read to the primary. */
const ITEMS: ResourceSpec<Model> = {
  policy: { fillable: 'all' },
  hooks: {
    modifyReadQuery: (query, { ctx }) => (ctx.get('x-use-master') === '1' ? { ...query, useMaster: true } : undefined),
  },
};

/** The Sequelize of a process (the suite's own uses it too, so both connect alike). */
export function connect(database: AppDatabase, application: string): Sequelize {
  const quiet: Options = { logging: false, pool: { max: 4, idle: 1000 } };
  if ('url' in database) return new Sequelize(database.url, quiet);
  if ('storage' in database) return new Sequelize({ ...quiet, dialect: 'sqlite', storage: database.storage });
  return new Sequelize({
    ...quiet,
    dialect: 'postgres',
    database: database.database,
    username: 'postgres',
    dialectOptions: { application_name: application },
    replication: database.replication,
  });
}

/** A response as the suites read it. */
export interface AppResponse {
  readonly status: number;
  readonly text: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  readonly body: any;
}

/** A running app process. */
export interface AppProcess {
  readonly url: string;
  request(method: string, path: string, init?: RequestInit): Promise<AppResponse>;
  get(path: string, headers?: Record<string, string>): Promise<AppResponse>;
  /** What the process wrote to stderr so far: one line per server fault. */
  faults(): string;
  stop(): Promise<void>;
}

/**
 * Spawns an app process on `port` (127.0.0.1) and waits until it listens; its Sequelize connects
 * with `application` as PostgreSQL's application_name (replica sets only).
 * @example const a = await startApp({ storage: '.tmp/x.sqlite' }, 17700, 'spA');
 */
export async function startApp(database: AppDatabase, port: number, application: string): Promise<AppProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    // The child reads its stdin to its end: when this process goes, however it goes, so does the child.
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, FC_APP: JSON.stringify({ database, port, application }) },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening\n')) resolve();
    });
    void exited.then(() => reject(new Error(`the app process on port ${port} ended: ${stderr}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const request = async (method: string, path: string, init: RequestInit = {}): Promise<AppResponse> => {
    const response = await fetch(url + path, { ...init, method });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, text, body };
  };
  return {
    url,
    request,
    get: (path, headers = {}) => request('GET', path, { headers }),
    faults: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A JSON request body. */
export function json(body: unknown): RequestInit {
  return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** Asserts the reply is the 400 `columnNotFound` naming `column`. */
export function columnGone(res: AppResponse, column: string): void {
  assert.equal(res.status, 400, res.text);
  assert.deepEqual(res.body.data, [
    { field: column, error: 'columnNotFound', message: `The column "${column}" was not found` },
  ]);
}

/** The values of a 200 options reply, in its order (by label). */
export function columnValues(res: AppResponse): unknown[] {
  assert.equal(res.status, 200, res.text);
  return (res.body.data as { value: unknown }[]).map((item) => item.value);
}

/**
 * A suite's way to widen a race: from now on every table description (`describeTable`, Sequelize's
 * DESCRIBE queries) waits `ms` before it runs; 0 removes the wait (and the hook, which would keep
 * the fast executor off the driver connection).
 */
function describeDelay(sequelize: Sequelize, ms: number): void {
  sequelize.removeHook('beforeQuery', 'spDescribeDelay');
  if (ms > 0)
    sequelize.addHook('beforeQuery', 'spDescribeDelay', async (options) => {
      if (options.type === 'DESCRIBE') await new Promise((resolve) => setTimeout(resolve, ms));
    });
}

/** A fault on one line: the error's name and message, and those of what it wraps. */
function describeFault(error: unknown): string {
  const parts: string[] = [];
  for (let at = error, depth = 0; typeof at === 'object' && at !== null && depth < 3; depth++) {
    const { name, message } = at as { name?: unknown; message?: unknown };
    parts.push(`${String(name)}: ${String(message)}`);
    at = (at as { original?: unknown; cause?: unknown }).original ?? (at as { cause?: unknown }).cause;
  }
  return parts.join(' ← ').replace(/\s+/g, ' ');
}

/** The process itself: the items resource in both forms, until SIGTERM. */
async function main(): Promise<void> {
  const { database, port, application } = JSON.parse(process.env['FC_APP']!) as {
    database: AppDatabase;
    port: number;
    application: string;
  };
  const sequelize = connect(database, application);
  const router = new Router();
  for (const form of FORMS) form.register(router, `${form.name}/items`, defineItem(sequelize, form), ITEMS);
  const live = { config: { global: { find_field_is_uuid: false } } };
  for (const form of FORMS)
    form.register(router, `${form.name}/live`, defineLiveItem(sequelize, form), { ...ITEMS, live: true }, live);
  router.post('/test/describe-delay', (ctx) => {
    describeDelay(sequelize, Number(ctx.query['ms'] ?? 0));
    ctx.status = 204;
  });
  const app = new Koa();
  app.silent = true;
  app.on('error', (error: unknown) => process.stderr.write(`fault: ${describeFault(error)}\n`));
  app.use(router.routes()).use(router.allowedMethods());
  const server = app.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
  server.on('error', (error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void sequelize.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.stdin.once('end', stop).resume();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
