/**
 * The providers' shipped declarations stand alone: built as `npm run build` builds them, a consumer
 * compiled with no DOM, no @types/node, no ra-core, no @refinedev/core, no koa or sequelize types
 * and `skipLibCheck: false` type-checks against dist/clients/*.d.ts and everything they import.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

describe('dist/clients/*.d.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fast-crud-clients-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const tsc = resolve('node_modules/typescript/bin/tsc');

  it('type-check in a consumer without the DOM, Node, the frameworks or the server libraries', () => {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    writeFileSync(
      join(dir, 'consumer.ts'),
      `import { dataProvider, HttpError, type KoaFastCrudDataProvider } from './dist/clients/react-admin.js';
import { dataProvider as refineProvider, REFINE_OPERATORS, type KoaFastCrudRefineProvider } from './dist/clients/refine.js';
const ra: KoaFastCrudDataProvider = dataProvider('/api', { headers: () => ({ Authorization: 'Bearer x' }) });
const refine: KoaFastCrudRefineProvider = refineProvider('/api', { searchField: 'q' });
const error: HttpError = new HttpError('m', 400, { errors: { price: 'no' } });
export const used = [ra.getList('products', { filter: { price_gte: 1 } }), refine.getApiUrl(), REFINE_OPERATORS.contains, error.status];
`,
    );
    const compilerOptions = {
      noEmit: true,
      strict: true,
      skipLibCheck: false,
      types: [],
      lib: ['ES2022'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'ES2022',
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    try {
      execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], {
        encoding: 'utf8',
        cwd: dir,
        timeout: 300_000,
      });
    } catch (error) {
      assert.fail(String((error as { stdout?: string }).stdout ?? error));
    }
  });
});
