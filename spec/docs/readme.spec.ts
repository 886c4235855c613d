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

  it('opens with a crud line that passes can with its moduleName, and defines that can first', () => {
    const first = blocks[0]!;
    assert.equal(first.lang, 'ts');
    assert.match(first.code, /^const can = \(ctx: Context, ability: string\) => .+;\ncrud\(router, '\w+', \w+, \{ moduleName: '\w+', can \}\);$/m);
  });

  it("installs Koa's types with the package, and says it is ES modules and CommonJS for Node.js 20.17 or later", () => {
    const install = blocks.find((b) => b.lang === 'sh' && b.code.includes('npm install koa-fast-crud'))!.code;
    assert.match(install, /^npm install koa-fast-crud koa @koa\/router sequelize$/m);
    assert.match(install, /^npm install -D typescript @types\/koa\b/m);
    assert.match(readme, /^### ES modules and CommonJS$/m);
    assert.match(readme, /require\('koa-fast-crud'\)/);
    assert.match(readme, /Node\.js 20\.17 or later/);
  });

  it('never says that every route is guarded without saying options is not', () => {
    const pages = ['README.md', ...readdirSync('docs', { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.md') && !p.startsWith('generated')).map((p) => `docs/${p}`)];
    for (const page of pages) {
      // Sentences, and the lines of lists, tables, headings and front matter, each on its own.
      const sentences = readFileSync(page, 'utf8')
        .split(/\.\s+|\n(?=\s*(?:[-|#]|\w+:))/)
        .map((s) => s.replace(/\s+/g, ' '));
      for (const sentence of sentences.filter((s) => /\b(guards? (each|every)|each guarded|every route (is|are) guarded)\b/.test(s))) {
        assert.match(sentence, /options/, `${page}: ${sentence}`);
      }
    }
  });

  it("names the repository, its issues and home in package.json, and keeps a CHANGELOG with an Unreleased section", () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, { url?: string } | string>;
    assert.deepEqual(pkg['repository'], { type: 'git', url: 'git+https://github.com/koa-fast-crud/koa-fast-crud.git' });
    assert.deepEqual(pkg['bugs'], { url: 'https://github.com/koa-fast-crud/koa-fast-crud/issues' });
    assert.equal(pkg['homepage'], 'https://github.com/koa-fast-crud/koa-fast-crud#readme');
    const changelog = readFileSync('CHANGELOG.md', 'utf8');
    assert.match(changelog, /^## Unreleased$/m);
    assert.match(changelog, new RegExp(`^## ${String(pkg['version']).replace(/\./g, '\\.')}$`, 'm'));
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
