import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';

const run = promisify(execFile);

/** One `curl …` line of the demo's "Try:" list: its arguments, and the status its comment promises (2xx without one). */
interface Command {
  readonly line: string;
  readonly args: string[];
  readonly status: number | undefined;
}

/**
 * The curl commands `npm start` prints, read as a shell would: single-quoted words, bare words,
 * and a trailing `# 400: …` comment naming the status a mistake gets.
 */
function commandsOf(output: string): Command[] {
  const tried = output.slice(output.indexOf('Try:\n') + 'Try:\n'.length).split('\n\n')[0]!;
  return tried.split('\n').map((line) => {
    const [command, comment] = line.trim().split(/\s+#\s+/);
    const words = [...command!.matchAll(/'([^']*)'|(\S+)/g)].map(([, quoted, bare]) => quoted ?? bare!);
    assert.equal(words.shift(), 'curl', line);
    return { line: line.trim(), args: words, status: comment === undefined ? undefined : Number(/^(\d{3})\b/.exec(comment)?.[1]) };
  });
}

describe('npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fast-crud-demo-'));
  let child: ChildProcess;
  let output = '';
  /** What the demo printed on stderr. */
  let printed = '';

  before(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'docs/examples/demo/main.ts'], {
      env: { ...process.env, PORT: '0', DEMO_DB: join(dir, 'demo.sqlite') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ctrl-C stops it.')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`demo exited with ${code}: ${output}`)));
    });
  });
  after(() => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds an SQLite file, listens and prints its routes and the URLs to try', async () => {
    const base = /demo on (http:\/\/localhost:\d+) \(SQLite file /.exec(output)![1]!.replace('localhost', '127.0.0.1');
    assert.match(output, /Routes:\n(\s+(GET|POST|PUT|PATCH|DELETE)\s+\/\S+\n)+/);
    const res = await fetch(`${base}/api/categories/options?label=name`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { data: unknown[] }).data.length, 5);
  });

  it('prints curl commands that each run as printed: exit 0, a JSend success (a fail where the comment says 400)', async () => {
    const commands = commandsOf(output);
    assert.equal(commands.length, 7, output);
    for (const { line, args, status } of commands) {
      // Run where the command would be typed, so `-o products.csv` writes there; --write-out only reports the status.
      const cwd = mkdtempSync(join(dir, 'cwd-'));
      const { stdout } = await run('curl', [...args, '--silent', '--show-error', '--write-out', '\n%{http_code}'], { cwd, encoding: 'utf8' }).catch(
        (error: { code?: number; stderr?: string }) => assert.fail(`${line}: curl exited with ${error.code}: ${error.stderr}`),
      );
      const code = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
      const body = stdout.slice(0, stdout.lastIndexOf('\n'));
      const output = args.indexOf('-o');
      if (output >= 0) {
        assert.equal(code, 200, line);
        assert.match(readFileSync(join(cwd, args[output + 1]!), 'utf8'), /^SKU,Name,Category,Price\r?\n(.+\r?\n){2,}/, line);
      } else if (status === undefined) {
        assert.ok(code >= 200 && code < 300, `${line}: ${code} ${body}`);
        const reply = JSON.parse(body) as { status: string; data: unknown[] };
        assert.equal(reply.status, 'success', line);
        assert.ok(reply.data.length > 0, `${line}: no rows`);
      } else {
        assert.equal(code, status, `${line}: ${body}`);
        assert.equal((JSON.parse(body) as { status: string }).status, 'fail', line);
      }
    }
  });

  it('prints nothing when a client closes its change feed, which Koa reports as a premature close', async () => {
    const base = /demo on (http:\/\/localhost:\d+) /.exec(output)![1]!.replace('localhost', '127.0.0.1');
    for (let i = 0; i < 3; i++) {
      const leaving = new AbortController();
      const feed = await fetch(`${base}/api/products/changes`, { signal: leaving.signal });
      assert.equal(feed.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      await feed.body!.getReader().read();
      leaving.abort();
    }
    // The server hears of the closed connections on its next turns; a request after them is answered after them.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await fetch(`${base}/api/products/changes?ids=`)).status, 400);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(printed, '');
  });
});
