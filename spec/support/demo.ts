/** The demo app on a fresh in-memory SQLite database, served for a suite, and what its API answers. */
import assert from 'node:assert/strict';
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
