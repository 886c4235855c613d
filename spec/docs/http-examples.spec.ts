/**
 * README's request/response examples, run in order against the demo app on a fresh SQLite database.
 * A ```http block (request line, optional headers and JSON body) is followed by a ```jsonc block whose
 * first line is `// <status>` and whose JSON is the body (or a ```csv block: status line, then the exact text). In it "<uuid>", "<date>" and "<any>" match any
 * such value, and "<uuid:name>" also remembers the value for later requests as `{name}`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { serveDemoInSuite } from '../support/demo.js';

const readme = readFileSync('README.md', 'utf8');
const examples = [...readme.matchAll(/```http\n([\s\S]*?)```\s*```(jsonc|csv)\n(?:\/\/ )?(\d{3})\n([\s\S]*?)```/g)].map(([, request, kind, status, body]) => ({
  request: request!.trim(),
  status: Number(status),
  body: kind === 'csv' ? body! : JSON.parse(body!),
}));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function match(actual: unknown, expected: unknown, saved: Map<string, string>, path: string): void {
  if (typeof expected === 'string' && /^<(uuid|date|any)(:\w+)?>$/.test(expected)) {
    const [, kind, name] = /^<(\w+)(?::(\w+))?>$/.exec(expected)!;
    if (kind === 'uuid') assert.match(String(actual), UUID, path);
    if (kind === 'date') assert.ok(!Number.isNaN(Date.parse(String(actual))), `${path}: ${String(actual)} is not a date`);
    if (name) saved.set(name, String(actual));
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${path}: ${JSON.stringify(actual)}`);
    expected.forEach((item, i) => match((actual as unknown[])[i], item, saved, `${path}[${i}]`));
    return;
  }
  if (typeof expected === 'object' && expected !== null) {
    assert.deepEqual(Object.keys(actual as object).sort(), Object.keys(expected).sort(), path);
    for (const [key, value] of Object.entries(expected)) match((actual as Record<string, unknown>)[key], value, saved, `${path}.${key}`);
    return;
  }
  assert.deepEqual(actual, expected, path);
}

describe("README's HTTP examples, against the demo app", () => {
  const demo = serveDemoInSuite();
  const saved = new Map<string, string>();

  it('finds examples in README', () => assert.ok(examples.length >= 8, `found ${examples.length}`));

  for (const example of examples) {
    it(example.request.split('\n')[0]!, async () => {
      const filled = example.request.replace(/\{(\w+)\}/g, (_, name: string) => saved.get(name) ?? assert.fail(`{${name}} was not saved`));
      const [head, body] = filled.split('\n\n');
      const [line, ...headerLines] = head!.split('\n');
      const [method, path] = line!.split(' ');
      const headers = Object.fromEntries(headerLines.map((h) => h.split(': ') as [string, string]));
      const res = await demo().request(method!, path!, { headers, ...(body !== undefined && { body }) });
      assert.equal(res.status, example.status, res.text);
      if (typeof example.body === 'string') assert.equal(res.text, example.body);
      else match(res.body, example.body, saved, 'body');
    });
  }
});
