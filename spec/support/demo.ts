/** The demo app on a fresh in-memory SQLite database, served for a suite, or as a process of its own; and what its API answers. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before } from 'node:test';
import { Sequelize } from 'sequelize';
import { createDemoApp } from '../../docs/examples/demo/app.js';
import { seedDemo } from '../../docs/examples/demo/seed.js';
import { serve, type TestServer } from './http.js';

/** Registers before/after hooks in the calling suite; the returned getter gives its server. */
export function serveDemoInSuite(): () => TestServer {
  let server: TestServer | undefined;
  const sqlite = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  before(async () => {
    const { app, models } = createDemoApp(sqlite);
    await seedDemo(models);
    server = await serve(app);
  });
  after(async () => {
    await server?.close();
    await sqlite.close();
  });
  return () => server!;
}

/** A product as the demo's API answers it (`category` only with `include=category`). */
export interface DemoProduct {
  id: string;
  sku: string;
  name: string;
  price: number;
  categoryId: string;
  category?: { id: string; name: string } | null;
}

/** One `{label, value}` pair of an options route. */
export interface OptionItem {
  label: string;
  value: string;
}

/** One item of a JSend fail, as the browser tests read it. */
export interface Failure {
  field: string;
  message: string;
}

/**
 * Reads the demo's API as the browser tests compare against it: `data` of a GET that must answer
 * 200, and the skus of a product search.
 * @example const api = demoApi(demo); await api.skus('sort=name&page=1&perPage=5');
 */
export function demoApi(demo: () => TestServer) {
  const data = async <T>(path: string): Promise<T> => {
    const res = await demo().get(path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body.data as T;
  };
  return {
    data,
    skus: async (query: string) => (await data<DemoProduct[]>(`/api/products?${query}`)).map((p) => p.sku),
  };
}

/** A demo server process (`docs/examples/demo/main.ts`, as `npm start` runs it). */
export interface DemoProcess {
  /** Its base URL, on 127.0.0.1. */
  readonly url: string;
  /** SIGTERM, then waits for it to exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/**
 * Spawns `docs/examples/demo/main.ts` on a free port with `env` added (`DEMO_DATABASE_URL`, `DEMO_SEED`) and waits
 * until it listens. The process is killed when this one exits, however the suite ends.
 * @example const first = await startDemoProcess({ DEMO_DATABASE_URL: url });
 */
export async function startDemoProcess(env: Record<string, string>): Promise<DemoProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'docs/examples/demo/main.ts'], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /demo on http:\/\/localhost:(\d+) /.exec(output)?.[1];
      if (port !== undefined) resolve(`http://127.0.0.1:${port}`);
    });
    void exited.then(() => reject(new Error(`the demo process ended: ${output}`)));
  });
  return {
    url,
    async stop() {
      process.removeListener('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
