/**
 * The package's entry points: the one list the build, `package.json`'s `exports` and the pack
 * test are checked against. Add a subpath here (and its source under lib/); `npm run build`
 * then builds it in both formats and says what `package.json` must declare for it.
 */
export interface Entry {
  /** The subpath users import: `.` is `koa-fast-crud`, `./refine` is `koa-fast-crud/refine`. */
  readonly subpath: string;
  /** Its TypeScript source; an entry whose source does not exist yet is skipped, not an error. */
  readonly source: string;
  /** An export the pack test expects to be a function, in both formats. */
  readonly probe: string;
}

/** Every entry point, the main one first. */
export const ENTRIES: readonly Entry[] = [
  { subpath: '.', source: 'lib/index.ts', probe: 'crud' },
  { subpath: './core', source: 'lib/core.ts', probe: 'planRoutes' },
  { subpath: './react-admin', source: 'lib/clients/react-admin.ts', probe: 'dataProvider' },
  { subpath: './refine', source: 'lib/clients/refine.ts', probe: 'dataProvider' },
];

/** Where one entry's files land in dist/: the ESM build mirrors lib/, the CJS one lives in dist/cjs/. */
export interface EntryFiles {
  /** `lib/clients/refine.ts` → `clients/refine`. */
  readonly stem: string;
  readonly import: string;
  readonly importTypes: string;
  readonly require: string;
  readonly requireTypes: string;
}

/**
 * The dist paths of an entry, as `package.json` names them.
 * @example filesOf(ENTRIES[0]) // { stem: 'index', import: './dist/index.js', …, require: './dist/cjs/index.cjs' }
 */
export function filesOf(entry: Entry): EntryFiles {
  const stem = entry.source.replace(/^lib\//, '').replace(/\.ts$/, '');
  return {
    stem,
    import: `./dist/${stem}.js`,
    importTypes: `./dist/${stem}.d.ts`,
    require: `./dist/cjs/${stem}.cjs`,
    requireTypes: `./dist/cjs/${stem}.d.ts`,
  };
}

/** The `package.json` fields that name entry points. */
export interface EntryFields {
  readonly main: string;
  readonly types: string;
  readonly exports: Record<string, unknown>;
  readonly typesVersions?: Record<string, Record<string, string[]>>;
}

/**
 * What `package.json` must say for these entries: `exports` with `import` and `require`
 * conditions (types first), and for resolvers that ignore `exports` (TypeScript's `node10`) the
 * top-level `main` and `types` and a `typesVersions` map for the subpaths.
 * @example entryFields(ENTRIES.slice(0, 1)).exports['.'] // { import: { types: './dist/index.d.ts', default: './dist/index.js' }, require: { … } }
 */
export function entryFields(entries: readonly Entry[]): EntryFields {
  const main = filesOf(entries[0]!);
  const exports: Record<string, unknown> = {};
  for (const entry of entries) {
    const files = filesOf(entry);
    exports[entry.subpath] = {
      import: { types: files.importTypes, default: files.import },
      require: { types: files.requireTypes, default: files.require },
    };
  }
  exports['./package.json'] = './package.json';
  const subpaths = Object.fromEntries(
    entries.slice(1).map((entry) => [entry.subpath.slice(2), [filesOf(entry).requireTypes.slice(2)]]),
  );
  return {
    main: main.require,
    types: main.requireTypes,
    exports,
    ...(entries.length > 1 && { typesVersions: { '*': subpaths } }),
  };
}
