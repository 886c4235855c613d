import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

/**
 * Packs the package as npm would publish it, installs the tarball into a fresh Koa app outside
 * the repository, and serves options from it with plain Node (no tsx, no path mapping).
 * sqlite3 is linked from this repository rather than built again: it is the app's driver, not ours.
 */
describe('the packed package', () => {
  const app = mkdtempSync(join(tmpdir(), 'fast-crud-app-'));
  const npm = (...args: string[]) =>
    execFileSync('npm', args, { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });

  before(() => {
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')
      .at(-1)!;
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }));
    npm('install', '--no-audit', '--no-fund', '--prefer-offline', join(app, tarball), 'koa@3', '@koa/router@15', 'sequelize@6');
    symlinkSync(resolve('node_modules/sqlite3'), join(app, 'node_modules/sqlite3'), 'dir');
  });
  after(() => rmSync(app, { recursive: true, force: true }));

  it('ships only the built library, its types, README and LICENSE', () => {
    const files = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }))[0].files.map(
      (f: { path: string }) => f.path,
    ) as string[];
    assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts'));
    assert.ok(files.includes('README.md') && files.includes('LICENSE'));
    assert.deepEqual(files.filter((f) => /^(lib|spec|docs)\//.test(f) || f.endsWith('.ts') && !f.endsWith('.d.ts')), []);
  });

  it('serves options and an integer-keyed read in a fresh Koa app, from both forms', () => {
    writeFileSync(
      join(app, 'main.js'),
      `import Koa from 'koa';
import Router from '@koa/router';
import { DataTypes, Sequelize } from 'sequelize';
import { CrudController, crud, resource } from 'koa-fast-crud';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Category = sequelize.define('Category', { name: DataTypes.STRING, deletedAt: DataTypes.DATE }, { underscored: true });
await sequelize.sync();
await Category.bulkCreate([{ name: 'Toys' }, { name: 'Books' }, { name: 'Old', deletedAt: new Date() }]);
class Categories extends CrudController { modelClassName() { return Category; } }
// Sequelize's default key is an integer: the {id} routes match integers once told so.
const config = { global: { find_field_is_uuid: false } };
const router = new Router();
crud(router, 'categories', Categories, { config });
crud(router, 'typed', resource(Category, { policy: { fillable: ['name'] } }), { config });
const server = new Koa().use(router.routes()).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const get = async (path) => {
  const res = await fetch('http://127.0.0.1:' + server.address().port + path);
  return { status: res.status, body: await res.json() };
};
console.log(JSON.stringify([await get('/categories/options?label=name'), (await get('/typed/2')).body.data.name]));
server.close();
await sequelize.close();
`,
    );
    const out = JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8' }));
    assert.deepEqual(out, [
      { status: 200, body: { status: 'success', data: [{ label: 'Books', value: 2 }, { label: 'Toys', value: 1 }], meta: {} } },
      'Books',
    ]);
  });
});
