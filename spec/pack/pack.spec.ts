import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ENTRIES, entryFields, filesOf } from '../../scripts/entries.js';

/**
 * Packs the package as npm would publish it and installs the tarball into two fresh apps outside
 * the repository: a CommonJS one (what `npm init -y` makes) compiled by tsc with `module: commonjs`
 * and `moduleResolution: node10`, and an ES module one compiled with `nodenext`. Each runs README's
 * minimal app (docs/examples/minimal/app.ts, as it is) with plain Node and makes real requests.
 * The CommonJS app runs with require(esm) turned off, as on Node 20.17, where it is not there.
 * sqlite3 is linked from this repository rather than built again: it is the apps' driver, not ours.
 */
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = ENTRIES.filter((entry) => existsSync(entry.source));
const minimalApp = readFileSync('docs/examples/minimal/app.ts', 'utf8');
const work = mkdtempSync(join(tmpdir(), 'fast-crud-pack-'));
/** Runs a command to its end; one still running after `timeout` ms is killed and fails the test, so a hung app cannot hang the suite. */
const run = (cwd: string, command: string, args: string[], timeout = 60_000) =>
  execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_loglevel: 'error' },
  });

/** What both apps print: options as README shows them, then a create and the read its Location names. */
const requests = `
  await sequelize.sync();
  await Category.bulkCreate([{ name: 'Books' }, { name: 'Garden' }]);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const base = 'http://127.0.0.1:' + (server.address() as AddressInfo).port;
    const options = await fetch(base + '/api/categories/options?label=name');
    const created = await fetch(base + '/api/categories', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Toys"}' });
    const location = created.headers.get('location') ?? '';
    const read = await fetch(base + location);
    console.log(JSON.stringify({
      options: [options.status, ((await options.json()) as { data: { label: string }[] }).data.map((item) => item.label)],
      created: [created.status, location.startsWith('/api/categories/')],
      read: [read.status, ((await read.json()) as { data: { name: string } }).data.name],
    }));
  } finally {
    server.close();
    await sequelize.close();
  }
`;

/** One consumer: its package.json type, tsconfig, and main module. */
interface Consumer {
  readonly dir: string;
  readonly type: 'commonjs' | 'module';
  readonly compilerOptions: Record<string, unknown>;
  readonly main: string;
  /** Loads each built entry in plain JavaScript and prints the type of its probe export. */
  readonly probe: string;
}

const consumers: Consumer[] = [
  {
    dir: join(work, 'cjs-app'),
    type: 'commonjs',
    compilerOptions: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true },
    main: `import type { AddressInfo } from 'node:net';
${built.map((entry, i) => `import * as entry${i} from 'koa-fast-crud${entry.subpath.slice(1)}';`).join('\n')}
import { app, Category, sequelize } from './app';

void [${built.map((_, i) => `entry${i}`).join(', ')}];
async function main() {${requests}}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`,
    probe: `console.log(JSON.stringify([${built.map((entry) => `typeof require('koa-fast-crud${entry.subpath.slice(1)}').${entry.probe}`).join(', ')}]));`,
  },
  {
    dir: join(work, 'esm-app'),
    type: 'module',
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' },
    main: `import type { AddressInfo } from 'node:net';
${built.map((entry, i) => `import * as entry${i} from 'koa-fast-crud${entry.subpath.slice(1)}';`).join('\n')}
import { app, Category, sequelize } from './app.js';

void [${built.map((_, i) => `entry${i}`).join(', ')}];
${requests}`,
    probe: `console.log(JSON.stringify([${built.map((entry) => `typeof (await import('koa-fast-crud${entry.subpath.slice(1)}')).${entry.probe}`).join(', ')}]));`,
  },
];

describe('the packed package', () => {
  let tarball: string;
  let files: string[];

  before(() => {
    const packed = JSON.parse(
      run(process.cwd(), 'npm', ['pack', '--json', '--pack-destination', work], 300_000).replace(/^[^[]*/, ''),
    ) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, packed[0]!.filename);
    files = packed[0]!.files.map((f) => f.path);
    for (const consumer of consumers) {
      mkdirSync(join(consumer.dir, 'src'), { recursive: true });
      writeFileSync(
        join(consumer.dir, 'package.json'),
        JSON.stringify({ name: `fresh-${consumer.type}-app`, version: '1.0.0', private: true, type: consumer.type }),
      );
      // README's install lines: the package, its peers, Koa's types, and the database driver (linked below).
      run(
        consumer.dir,
        'npm',
        [
          'install',
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
          tarball,
          'koa@3',
          '@koa/router@15',
          'sequelize@6',
          '@types/koa',
        ],
        600_000,
      );
      symlinkSync(resolve('node_modules/sqlite3'), join(consumer.dir, 'node_modules/sqlite3'), 'dir');
      const compilerOptions = {
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        strict: true,
        outDir: 'dist',
        rootDir: 'src',
        ...consumer.compilerOptions,
      };
      writeFileSync(join(consumer.dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
      writeFileSync(join(consumer.dir, 'src/app.ts'), minimalApp);
      writeFileSync(join(consumer.dir, 'src/main.ts'), consumer.main);
    }
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('ships the ESM and CommonJS builds, their types, the sources the maps name, README, CHANGELOG and LICENSE', () => {
    for (const entry of built) {
      const { import: esm, importTypes, require, requireTypes } = filesOf(entry);
      for (const file of [esm, importTypes, require, requireTypes, entry.source])
        assert.ok(files.includes(file.replace(/^\.\//, '')), `${file} is not in the tarball`);
    }
    for (const file of ['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json', 'dist/cjs/package.json'])
      assert.ok(files.includes(file), file);
    assert.deepEqual(
      files.filter(
        (f) => /^(spec|docs|scripts)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('lib/')),
      ),
      [],
    );
  });

  it('declares exports, main, types and typesVersions for exactly the entries built (scripts/entries.ts)', () => {
    const manifest = JSON.parse(
      readFileSync(join(consumers[0]!.dir, 'node_modules/koa-fast-crud/package.json'), 'utf8'),
    ) as Record<string, unknown>;
    const expected = entryFields(built);
    assert.deepEqual(
      {
        main: manifest['main'],
        types: manifest['types'],
        exports: manifest['exports'],
        typesVersions: manifest['typesVersions'],
      },
      { typesVersions: undefined, ...expected },
    );
    assert.equal(
      JSON.parse(readFileSync(join(consumers[0]!.dir, 'node_modules/koa-fast-crud/dist/cjs/package.json'), 'utf8'))
        .type,
      'commonjs',
    );
  });

  it("has source maps whose every source resolves inside the installed package (lib/ is shipped; an inlined dependency's text is in the map)", () => {
    const root = join(consumers[0]!.dir, 'node_modules/koa-fast-crud');
    const maps = readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.map'),
    );
    assert.ok(
      maps.includes('index.js.map') &&
        maps.includes('index.d.ts.map') &&
        maps.includes('cjs/index.cjs.map') &&
        maps.includes('cjs/index.d.ts.map'),
    );
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(root, 'dist', file), 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
        sourcesContent?: (string | null)[];
      };
      assert.ok(map.sources.length > 0, file);
      map.sources.forEach((source, i) => {
        const path = resolve(root, 'dist', dirname(file), map.sourceRoot ?? '', source);
        assert.ok(!relative(root, path).startsWith('..'), `${file}: ${source} is outside the package`);
        const inline = typeof map.sourcesContent?.[i] === 'string';
        assert.ok(existsSync(path) || (inline && !source.includes('/lib/')), `${file}: ${source} does not resolve`);
      });
    }
  });

  for (const consumer of consumers) {
    const kind =
      consumer.type === 'commonjs'
        ? 'a CommonJS app (tsc: module commonjs, moduleResolution node10)'
        : 'an ES module app (tsc: nodenext)';
    it(`compiles and runs README's minimal app in ${kind}`, () => {
      run(consumer.dir, process.execPath, [tsc, '-p', 'tsconfig.json']);
      const out = JSON.parse(run(consumer.dir, process.execPath, ['--no-experimental-require-module', 'dist/main.js']));
      assert.deepEqual(out, { options: [200, ['Books', 'Garden']], created: [201, true], read: [200, 'Toys'] });
    });

    it(`loads every entry point in plain JavaScript in ${consumer.type === 'commonjs' ? 'a CommonJS app, without require(esm)' : 'an ES module app'}`, () => {
      const file = join(consumer.dir, consumer.type === 'commonjs' ? 'probe.cjs' : 'probe.mjs');
      writeFileSync(file, consumer.probe);
      assert.deepEqual(
        JSON.parse(run(consumer.dir, process.execPath, ['--no-experimental-require-module', file])),
        built.map(() => 'function'),
      );
    });
  }

  it('gives a CommonJS app under moduleResolution node16 the CommonJS types of the require condition', () => {
    const dir = consumers[0]!.dir;
    writeFileSync(
      join(dir, 'tsconfig.node16.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { module: 'node16', moduleResolution: 'node16', noEmit: true },
      }),
    );
    writeFileSync(join(dir, 'src/app.ts'), minimalApp);
    const used = run(dir, process.execPath, [tsc, '-p', 'tsconfig.node16.json', '--listFilesOnly'])
      .split('\n')
      .filter((file) => file.includes('/koa-fast-crud/'));
    assert.ok(
      used.some((file) => file.endsWith('/node_modules/koa-fast-crud/dist/cjs/index.d.ts')),
      used.join('\n'),
    );
    assert.deepEqual(
      used.filter((file) => !file.includes('/koa-fast-crud/dist/cjs/')),
      [],
    );
    run(dir, process.execPath, [tsc, '-p', 'tsconfig.node16.json']);
  });
});
