import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const readme = readFileSync('README.md', 'utf8');
const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({ lang, code: code! }));

describe('README', () => {
  it('gives the two quick-start commands', () => {
    assert.match(readme, /npm install && npm start/);
    assert.match(readme, /npm install && npm test/);
  });

  it('shows every TypeScript example as the file the suite runs, unchanged', () => {
    const typescript = blocks.filter((b) => b.lang === 'ts');
    assert.ok(typescript.length >= 5);
    for (const { code } of typescript) {
      const [first, ...rest] = code.split('\n');
      if (rest.join('').trim() === '' && first!.startsWith('crud(')) {
        assert.ok(readFileSync('docs/examples/many-resources.ts', 'utf8').includes(first!), `one-liner not in an example: ${first}`);
        continue;
      }
      const path = /^\/\/ (docs\/examples\/\S+\.ts)$/.exec(first!)?.[1];
      assert.ok(path && existsSync(path), `a ts block must start with "// docs/examples/<file>.ts": ${first}`);
      assert.equal(rest.join('\n'), readFileSync(path, 'utf8'), `README's copy of ${path} has drifted`);
    }
  });
});
