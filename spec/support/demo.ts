/** The demo app on a fresh in-memory SQLite database, served for a suite. */
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
