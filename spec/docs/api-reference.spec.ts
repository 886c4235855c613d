/**
 * The API reference's rule, proven on a probe: with the project's typedoc.json, an export without a
 * doc comment fails the build, and the same export with one passes. (The real reference is built by
 * spec/browser/doc-site.spec.ts, which fails if lib/ breaks the rule.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

mkdirSync('.tmp', { recursive: true });
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Runs TypeDoc with the project's options on a one-file program (its own folder, so probes run at once). */
async function typedoc(source: string): Promise<{ status: number | null; output: string }> {
  const dir = mkdtempSync('.tmp/typedoc-probe-');
  dirs.push(dir);
  writeFileSync(join(dir, 'probe.ts'), source);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022' }, files: ['probe.ts'] }));
  // The project's options, with only the program and the output swapped for the probe's.
  writeFileSync(join(dir, 'typedoc.json'), JSON.stringify({ extends: ['../../typedoc.json'], tsconfig: './tsconfig.json', entryPoints: ['./probe.ts'], out: './out', docsRoot: '.' }));
  const run = spawn('npx', ['typedoc', '--options', join(dir, 'typedoc.json')]);
  let output = '';
  run.stdout.on('data', (chunk) => (output += chunk));
  run.stderr.on('data', (chunk) => (output += chunk));
  const [status] = (await once(run, 'close')) as [number | null];
  return { status, output };
}

describe('the API reference (typedoc.json)', { concurrency: true }, () => {
  it('fails the build on an export without a doc comment', async () => {
    const run = await typedoc('export function undocumented(): number {\n  return 1;\n}\n');
    assert.notEqual(run.status, 0, run.output);
    assert.match(run.output, /undocumented.*does not have any documentation/);
  });

  it('builds the same export with a doc comment', async () => {
    const run = await typedoc('/** One. */\nexport function documented(): number {\n  return 1;\n}\n');
    assert.equal(run.status, 0, run.output);
  });
});
