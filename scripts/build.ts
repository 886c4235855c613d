/**
 * `npm run build`: dist/ as npm ships it. tsc compiles lib/ to ES modules with their types and
 * maps (dist/); esbuild bundles each entry of scripts/entries.ts into one CommonJS file
 * (dist/cjs/), inlining change-case, which is ESM only, and leaving every other dependency a
 * `require`; dist/cjs/ gets a copy of the types, which its package.json makes CommonJS types.
 * Then package.json's entry fields must be what the entries need: `--sync` writes them.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import { ENTRIES, entryFields, filesOf } from './entries.js';

/** Bundled into the CommonJS build: ESM-only dependencies, which `require` cannot load before Node 20.19. */
const INLINED = ['change-case'];

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, unknown> & {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const external = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })
  .filter((name) => !INLINED.includes(name))
  .flatMap((name) => [name, `${name}/*`]);
const entries = ENTRIES.filter((entry) => existsSync(entry.source));

rmSync('dist', { recursive: true, force: true });
execFileSync(
  process.execPath,
  [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  { stdio: 'inherit' },
);

mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const entry of entries) {
  const outfile = filesOf(entry).require.slice(2);
  const { metafile, warnings } = await build({
    entryPoints: [entry.source],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.17',
    external,
    sourcemap: true,
    metafile: true,
    // node_modules may be a link (a git worktree's): keep its path, so the map names node_modules/change-case.
    preserveSymlinks: true,
    // import.meta is empty in CommonJS: give its url the module's own file, as ESM has it.
    banner: { js: `const __import_meta_url = require('node:url').pathToFileURL(__filename).href;` },
    define: { 'import.meta.url': '__import_meta_url' },
    logLevel: 'warning',
  });
  // A warning (import.meta left empty, a require that cannot resolve) is a CommonJS build that breaks at run time.
  if (warnings.length > 0) throw new Error(`${outfile}: esbuild warned ${warnings.length} time(s), see above`);
  // Only lib/ and the inlined packages may be in a bundle: anything else is a dependency copied in by mistake.
  const strays = Object.keys(metafile.inputs).filter(
    (input) => !input.startsWith('lib/') && !INLINED.some((name) => input.includes(`node_modules/${name}/`)),
  );
  if (strays.length > 0)
    throw new Error(
      `${outfile} bundles ${strays.join(', ')}: add the package to dependencies (kept external) or to INLINED`,
    );
  keepInlineSourcesOutsideLib(`${outfile}.map`);
}
copyTypes('dist', 'dist/cjs');
checkPackageFields(process.argv.includes('--sync'));

/** lib/ ships beside dist/, so a map points at it; an inlined package's sources stay in the map. */
function keepInlineSourcesOutsideLib(mapFile: string): void {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
  map.sourcesContent = map.sources.map((source, i) =>
    /^(\.\.\/)+lib\//.test(source) ? null : (map.sourcesContent?.[i] ?? null),
  );
  writeFileSync(mapFile, JSON.stringify(map));
}

/** Copies every declaration (and its map, its sources one folder further up) of `from` into `to`. */
function copyTypes(from: string, to: string): void {
  for (const file of readdirSync(from, { recursive: true, encoding: 'utf8' })) {
    if (file.startsWith('cjs') || !/\.d\.ts(\.map)?$/.test(file)) continue;
    const target = join(to, file);
    mkdirSync(dirname(target), { recursive: true });
    if (file.endsWith('.d.ts')) {
      cpSync(join(from, file), target);
      continue;
    }
    const map = JSON.parse(readFileSync(join(from, file), 'utf8')) as { sources: string[] };
    writeFileSync(target, JSON.stringify({ ...map, sources: map.sources.map((source) => `../${source}`) }));
  }
}

/** Fails the build when package.json's entry fields are not what the entries need (or writes them, with `sync`). */
function checkPackageFields(sync: boolean): void {
  const expected = entryFields(entries);
  const actual = {
    main: pkg['main'],
    types: pkg['types'],
    exports: pkg['exports'],
    ...(pkg['typesVersions'] !== undefined && { typesVersions: pkg['typesVersions'] }),
  };
  if (isDeepStrictEqual(actual, { ...expected })) return;
  if (sync) {
    // Fields already there keep their place in the file; new ones go at the end.
    const next: Record<string, unknown> = {
      ...pkg,
      main: expected.main,
      types: expected.types,
      exports: expected.exports,
      typesVersions: expected.typesVersions,
    };
    if (expected.typesVersions === undefined) delete next['typesVersions'];
    writeFileSync('package.json', `${JSON.stringify(next, null, 2)}\n`);
    console.log(
      'package.json: main, types, exports and typesVersions written for',
      entries.map((e) => e.subpath).join(', '),
    );
    return;
  }
  throw new Error(
    `package.json's entry fields do not match scripts/entries.ts (entries built: ${entries.map((e) => e.subpath).join(', ')}). ` +
      `Run \`npm run build -- --sync\`, or set them to:\n${JSON.stringify(expected, null, 2)}`,
  );
}
