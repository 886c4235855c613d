import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import Koa from 'koa';
import { router as manyResources } from '../../docs/examples/many-resources.js';
import { Tag } from '../../docs/examples/tag-controller.js';
import { app as minimalApp, Category, sequelize } from '../../docs/examples/minimal/app.js';
import { serveDemoInSuite } from '../support/demo.js';
import { serve } from '../support/http.js';

describe('docs/examples', () => {
  before(async () => {
    await sequelize.sync({ force: true });
    await Category.bulkCreate([{ name: 'Garden' }, { name: 'Books' }, { name: 'Gone', deletedAt: new Date() }]);
    await Tag.bulkCreate([{ slug: 'sale', title: 'On sale' }]);
  });

  it('minimal/app.ts serves category options', async () => {
    const server = await serve(minimalApp);
    try {
      const res = await server.get('/api/categories/options?label=name');
      assert.deepEqual(res.body.data.map((i: { label: string }) => i.label), ['Books', 'Garden']);
    } finally {
      await server.close();
    }
  });

  it('planners.ts holds', async () => {
    await import('../../docs/examples/planners.js');
  });

  it('many-resources.ts, hooks.ts and tag-controller.ts serve what they say', async () => {
    const app = new Koa().use(async (ctx, next) => {
      ctx.state['abilities'] = ctx.get('x-abilities').split(',');
      await next();
    });
    const server = await serve(app.use(manyResources.routes()));
    try {
      assert.deepEqual((await server.get('/categories/options?label=name&startsWith=G')).body.data.map((i: { label: string }) => i.label), ['GARDEN']);
      assert.deepEqual((await server.get('/tags/options?label=title')).body.data, [{ label: 'On sale', value: 'sale' }]);
      assert.equal((await server.get('/tags/options')).status, 422);
      assert.equal((await server.get('/tags')).status, 404);
    } finally {
      await server.close();
    }
  });
});

describe('the demo app', () => {
  const demo = serveDemoInSuite();

  it('serves category options without the soft-deleted category', async () => {
    const res = await demo().get('/api/categories/options?label=name');
    assert.deepEqual(res.body.data.map((i: { label: string }) => i.label), ['Books', 'Garden', 'Kitchen', 'Music', 'Toys']);
  });

  it('serves product options by sku without the soft-deleted product', async () => {
    const res = await demo().get('/api/products/options?label=sku&value=name');
    assert.equal(res.body.data.length, 7);
    assert.ok(!res.body.data.some((i: { label: string }) => i.label === 'TY-002'));
  });
});

describe('npm start', () => {
  it('seeds an SQLite file, listens and prints URLs that answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fast-crud-demo-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'docs/examples/demo/main.ts'], {
      env: { ...process.env, PORT: '0', DEMO_DB: join(dir, 'demo.sqlite') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const url = /demo on (http:\/\/localhost:\d+)/.exec(out)?.[1];
          if (url && out.includes('Try:')) resolve(url.replace('localhost', '127.0.0.1'));
        });
        child.once('exit', (code) => reject(new Error(`demo exited with ${code}: ${out}`)));
      });
      const res = await fetch(`${base}/api/categories/options?label=name`);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { data: unknown[] }).data.length, 5);
    } finally {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
