import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';

const readme = readFileSync('README.md', 'utf8');
/** Every TypeScript file under docs/examples/, as text. */
const examples = readdirSync('docs/examples', { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.ts'))
  .map((path) => readFileSync(`docs/examples/${path}`, 'utf8'));
const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({ lang, code: code! }));

describe('README', () => {
  it('gives the two quick-start commands', () => {
    assert.match(readme, /npm install && npm start/);
    assert.match(readme, /npm install && npm test/);
  });

  it('opens with a crud line that passes can with its moduleName', () => {
    const first = blocks[0]!;
    assert.equal(first.lang, 'ts');
    assert.match(first.code, /^crud\(router, '\w+', \w+, \{ moduleName: '\w+', can \}\);$/m);
  });

  it('shows every TypeScript example as the file the suite runs, unchanged', () => {
    const typescript = blocks.filter((b) => b.lang === 'ts');
    assert.ok(typescript.length >= 5);
    for (const { code } of typescript) {
      const [first, ...rest] = code.split('\n');
      if (!first!.startsWith('// docs/examples/')) {
        // A fragment: every line of it is a line of an example the suite runs.
        for (const line of code.split('\n').filter((l) => l.trim() !== '')) {
          assert.ok(examples.some((file) => file.split('\n').some((l) => l.trim() === line.trim())), `fragment line not in an example: ${line}`);
        }
        continue;
      }
      const path = /^\/\/ (docs\/examples\/\S+\.ts)$/.exec(first!)?.[1];
      assert.ok(path && existsSync(path), `a ts block must start with "// docs/examples/<file>.ts": ${first}`);
      assert.equal(rest.join('\n'), readFileSync(path, 'utf8'), `README's copy of ${path} has drifted`);
    }
  });
});
