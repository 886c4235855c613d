/**
 * docs/guide/validation.md: every request the page shows, sent to docs/examples/validation/app.ts,
 * answers the status and body the page shows next to it; the page is in the sidebar and names
 * the error codes it describes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ERROR_TABLE } from '../../lib/index.js';
import { Product, app, sequelize } from '../../docs/examples/validation/app.js';
import { serve, type TestServer } from '../support/http.js';

const PAGE = readFileSync('docs/guide/validation.md', 'utf8');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** One request of the page and the reply it shows. */
interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly status: number;
  readonly reply: unknown;
}

/** The page's ```http blocks, read in pairs: a request, then its reply (`HTTP/1.1 <status>`, a blank line, JSON). */
function exchanges(page: string): Exchange[] {
  const blocks = [...page.matchAll(/```http\n([\s\S]*?)```/g)].map(([, text]) => text!);
  assert.equal(blocks.length % 2, 0, 'every request block is followed by a reply block');
  const pairs: Exchange[] = [];
  for (let i = 0; i < blocks.length; i += 2) {
    const [head, ...rest] = blocks[i]!.split('\n\n');
    const [requestLine, ...headerLines] = head!.split('\n');
    const [method, path] = requestLine!.split(' ') as [string, string];
    const headers = Object.fromEntries(headerLines.map((line) => line.split(': ') as [string, string]));
    const [statusLine, ...replyText] = blocks[i + 1]!.split('\n\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1]);
    pairs.push({ method, path, headers, body: rest.join('\n\n').trim(), status, reply: JSON.parse(replyText.join('\n\n')) });
  }
  return pairs;
}

describe('docs/guide/validation.md', () => {
  let server: TestServer;
  before(async () => {
    await sequelize.sync({ force: true });
    server = await serve(app);
  });
  after(() => server?.close());

  it('returns, for every request the page shows, the status and body the page shows', async () => {
    const shown = exchanges(PAGE);
    assert.ok(shown.length >= 6);
    for (const exchange of shown) {
      const path = exchange.path.includes('{id}') ? exchange.path.replace('{id}', (await Product.findOne({ where: { sku: 'KT-001' } }))!.get('id') as string) : exchange.path;
      const res = await server.request(exchange.method, path, { headers: exchange.headers, body: exchange.body });
      const label = `${exchange.method} ${exchange.path}`;
      assert.equal(res.status, exchange.status, `${label}: ${res.text}`);
      assert.deepEqual(JSON.parse(res.text.replace(UUID, '<uuid>')), exchange.reply, label);
    }
  });

  it('is in the sidebar, and names the codes of ERROR_TABLE it describes', () => {
    assert.match(readFileSync('docs/.vitepress/config.ts', 'utf8'), /link: '\/guide\/validation'/);
    for (const code of ['schema', 'invalidForm', 'emptyPayload', 'type'] as const) {
      assert.ok(code in ERROR_TABLE);
      assert.match(PAGE, new RegExp(`\`${code}\``), code);
    }
  });
});
