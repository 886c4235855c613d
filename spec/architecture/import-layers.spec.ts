/**
 * lib/'s folders import one way, koa → actions → resource/compile/execute → core: every import
 * statement of lib/**\/*.ts is parsed (TypeScript's parser), each folder has a tier, and an import
 * may only go to its own tier or a deeper one, with no cycle between folders; core imports nothing
 * but core, types.ts and packages (koa, @koa/router and sequelize only as types).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/** The tiers, shallowest first: a folder may import its own tier's folders and any deeper tier's. */
const TIERS: readonly (readonly string[])[] = [
  ['index.ts', 'core.ts'],
  // The shells: Koa routing, and the class form (controllers mix the actions in).
  ['koa', 'controller'],
  ['actions'],
  ['resource', 'compile', 'execute'],
  // Pure, like core, but for one consumer each: the OpenAPI document, shipped plugins, browser clients.
  ['openapi', 'plugins', 'clients'],
  ['core', 'types.ts'],
];

/**
 * The one exception, type-only: a mixin is typed by the class it extends, so the actions (and the
 * scope and the class form read as a resource) name BaseController's type. Erased at run time.
 */
const TYPE_ONLY_ALLOWED: ReadonlySet<string> = new Set(['controller/base-controller.ts']);

/** Packages core may import only as types: the shell's. */
const SHELL_PACKAGES: ReadonlySet<string> = new Set(['koa', '@koa/router', 'sequelize']);

/** One import of one lib/ file: from and to are paths under lib/ (`koa/crud.ts`), or a package name. */
interface Edge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
  readonly local: boolean;
}

/** `koa/crud.ts` → `koa`; a file at lib/'s root is its own folder (`types.ts`, `index.ts`). */
function folderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash);
}

function tierOf(folder: string): number {
  return TIERS.findIndex((tier) => tier.includes(folder));
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    clause.name === undefined &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

/** Every import of one file: import and export … from, side-effect imports, `import()` calls and types. */
function importsOf(file: string, text: string): Edge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const local = specifier.startsWith('.');
    const to = local ? posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts') : specifier;
    edges.push({ from: file, to, typeOnly, local });
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, isTypeOnly(node));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg !== undefined && ts.isStringLiteral(arg)) add(arg.text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function libFiles(root: string): string[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/** Imports that go to a shallower tier, or from/to a folder with no tier, as `from → to` lines. */
export function upwardImports(edges: readonly Edge[]): string[] {
  const found: string[] = [];
  for (const { from, to, typeOnly, local } of edges) {
    if (!local || folderOf(from) === folderOf(to)) continue;
    if (typeOnly && TYPE_ONLY_ALLOWED.has(to)) continue;
    const [source, target] = [tierOf(folderOf(from)), tierOf(folderOf(to))];
    if (source === -1 || target === -1 || target < source) found.push(`${from} → ${to}${typeOnly ? ' (type)' : ''}`);
  }
  return found;
}

/** The cycles between folders, each as `a → b → a`, from the imports between different folders. */
export function folderCycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to, typeOnly, local } of edges) {
    if (!local || folderOf(from) === folderOf(to) || (typeOnly && TYPE_ONLY_ALLOWED.has(to))) continue;
    const set = next.get(folderOf(from)) ?? new Set<string>();
    next.set(folderOf(from), set.add(folderOf(to)));
  }
  const cycles = new Set<string>();
  const walk = (path: readonly string[]): void => {
    for (const folder of next.get(path[path.length - 1]!) ?? []) {
      const at = path.indexOf(folder);
      if (at !== -1) {
        const loop = path.slice(at);
        // One name per cycle, whichever folder it is found from: start at the smallest name.
        const start = loop.indexOf([...loop].sort()[0]!);
        cycles.add([...loop.slice(start), ...loop.slice(0, start), loop[start]].join(' → '));
      } else walk([...path, folder]);
    }
  };
  for (const folder of next.keys()) walk([folder]);
  return [...cycles].sort();
}

/** Core's imports of anything but core and types.ts, and its value imports of koa, @koa/router or sequelize. */
export function impureCoreImports(edges: readonly Edge[]): string[] {
  return edges
    .filter(({ from }) => folderOf(from) === 'core')
    .filter(({ to, typeOnly, local }) =>
      local
        ? !['core', 'types.ts'].includes(folderOf(to))
        : !typeOnly &&
          SHELL_PACKAGES.has(
            to
              .split('/')
              .slice(0, to.startsWith('@') ? 2 : 1)
              .join('/'),
          ),
    )
    .map(({ from, to, typeOnly }) => `${from} → ${to}${typeOnly ? ' (type)' : ''}`);
}

const root = join(dirname(new URL(import.meta.url).pathname), '..', '..', 'lib');
const edges = libFiles(root).flatMap((file) => importsOf(file, readFileSync(join(root, file), 'utf8')));

describe('lib/ import layers', () => {
  it('reads the imports of every lib/ file (the route handler imports the route planner)', () => {
    assert.ok(edges.length > 300, `${edges.length} imports`);
    assert.ok(edges.some(({ from, to }) => from === 'koa/route-handler.ts' && to === 'core/plan-routes.ts'));
  });

  it('gives every lib/ folder a tier', () => {
    const folders = [...new Set(libFiles(root).map(folderOf))].filter((folder) => tierOf(folder) === -1);
    assert.deepEqual(folders, []);
  });

  it('imports only from its own tier or a deeper one: koa → actions → resource/compile/execute → core', () => {
    assert.deepEqual(upwardImports(edges), []);
  });

  it('has no import cycle between folders', () => {
    assert.deepEqual(folderCycles(edges), []);
  });

  it('core imports nothing but core, types.ts and packages, koa and sequelize only as types', () => {
    assert.deepEqual(impureCoreImports(edges), []);
  });
});

describe('the layer checks themselves', () => {
  const edge = (from: string, to: string, typeOnly = false): Edge => ({ from, to, typeOnly, local: true });

  it('report an import that goes up a tier, and allow one down', () => {
    assert.deepEqual(upwardImports([edge('actions/a.ts', 'koa/b.ts'), edge('koa/b.ts', 'actions/a.ts')]), [
      'actions/a.ts → koa/b.ts',
    ]);
  });

  it("report a type import that goes up, except BaseController's", () => {
    const found = upwardImports([
      edge('resource/s.ts', 'actions/a.ts', true),
      edge('actions/a.ts', 'controller/base-controller.ts', true),
    ]);
    assert.deepEqual(found, ['resource/s.ts → actions/a.ts (type)']);
  });

  it('report a cycle between folders once, and none within a folder', () => {
    const cycle = [
      edge('resource/a.ts', 'compile/b.ts'),
      edge('compile/b.ts', 'execute/c.ts'),
      edge('execute/c.ts', 'resource/d.ts'),
    ];
    assert.deepEqual(folderCycles([...cycle, edge('core/a.ts', 'core/b.ts'), edge('core/b.ts', 'core/a.ts')]), [
      'compile → execute → resource → compile',
    ]);
  });

  it("report core's value imports of sequelize and its imports of other folders", () => {
    const found = impureCoreImports([
      { from: 'core/a.ts', to: 'sequelize', typeOnly: false, local: false },
      { from: 'core/a.ts', to: 'sequelize', typeOnly: true, local: false },
      { from: 'core/a.ts', to: 'fp-ts/lib/Either.js', typeOnly: false, local: false },
      edge('core/a.ts', 'resource/r.ts', true),
      edge('core/a.ts', 'types.ts', true),
    ]);
    assert.deepEqual(found, ['core/a.ts → sequelize', 'core/a.ts → resource/r.ts (type)']);
  });
});
