/**
 * The package's entry points stay what the issue asked: `koa-fast-crud` exports what README and the
 * guides use (at most 60 names, values and types), `koa-fast-crud/core` the pure planners and
 * parsers, which at run time load nothing from lib/ but core (no Koa, no Sequelize), and no name is
 * exported by both.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import ts from 'typescript';

/** The names a module exports, values and types, as TypeScript resolves them. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
  });
  const module = program.getTypeChecker().getSymbolAtLocation(program.getSourceFile(file)!)!;
  return program
    .getTypeChecker()
    .getExportsOfModule(module)
    .map((symbol) => symbol.name)
    .sort();
}

const main = exportedNames('lib/index.ts');
const core = exportedNames('lib/core.ts');

describe('koa-fast-crud', () => {
  it('exports at most 60 names, crud, resource and the controllers among them', () => {
    assert.ok(main.length <= 60, `${main.length} names: ${main.join(', ')}`);
    for (const name of ['crud', 'createFastCrud', 'resource', 'CrudController', 'BaseController', 'FastCrudConfig'])
      assert.ok(main.includes(name), name);
  });

  it('exports no planner or parser: those are in koa-fast-crud/core', () => {
    for (const name of ['parseSort', 'processSort', 'planRoutes', 'buildOptionsQuery', 'parseFilters', 'planSearch']) {
      assert.ok(!main.includes(name), name);
      assert.ok(core.includes(name), name);
    }
  });
});

describe('koa-fast-crud/core', () => {
  it('shares no name with the main entry', () => {
    assert.deepEqual(
      core.filter((name) => main.includes(name)),
      [],
    );
  });

  it('loads nothing from lib/ but core, and neither koa nor sequelize, at run time', async () => {
    const result = await build({
      entryPoints: ['lib/core.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      packages: 'external',
    });
    const inputs = Object.keys(result.metafile.inputs).sort();
    assert.deepEqual(
      inputs.filter((file) => file !== 'lib/core.ts' && !file.startsWith('lib/core/')),
      [],
      inputs.join(', '),
    );
    const packages = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    assert.deepEqual(
      packages.filter((name) => /^(koa|@koa\/router|sequelize)(\/|$)/.test(name)),
      [],
      packages.join(', '),
    );
    assert.ok(inputs.includes('lib/core/sort-parser.ts'));
  });
});
