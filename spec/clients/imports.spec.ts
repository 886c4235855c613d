/**
 * The data providers have no server dependencies: bundled for the browser by esbuild, each pulls in
 * only lib/clients/ and the operator table, and nothing from koa, sequelize, fp-ts or Node.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from 'esbuild';

for (const entry of ['lib/clients/react-admin.ts', 'lib/clients/refine.ts']) {
  describe(entry, () => {
    it('bundles for the browser from lib/clients/ and lib/core/operators.ts alone', async () => {
      const result = await build({
        entryPoints: [entry],
        bundle: true,
        platform: 'browser',
        format: 'esm',
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs).sort();
      assert.deepEqual(
        inputs.filter((file) => !file.startsWith('lib/clients/') && file !== 'lib/core/operators.ts'),
        [],
        inputs.join(', '),
      );
      assert.ok(inputs.includes(entry));
      const size = result.outputFiles[0]!.contents.byteLength;
      assert.ok(size < 40_000, `${size} bytes`);
    });
  });
}
