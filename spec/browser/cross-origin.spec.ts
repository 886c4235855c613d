/// <reference lib="dom" />
/**
 * docs/examples/cross-origin.ts in Debian's Chromium, from pages on two other origins: the API runs
 * on 127.0.0.1, the pages on `localhost` ports (another site). From the origin `cors.origins` trusts,
 * `fetch` reads the list and a JSON PATCH passes its preflight; from the other, the browser blocks the
 * read and the API refuses the form post a browser sends without a preflight, creating nothing.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Sequelize } from 'sequelize';
import { crossOriginApi } from '../../docs/examples/cross-origin.js';
import { browserInSuite, browserSkipReason } from '../support/browser.js';
import { serve, type TestServer } from '../support/http.js';

/** A page of another origin: a form that posts a note to the API, as a forging site would. */
function page(api: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another origin</title><link rel="icon" href="data:,"></head>
<body><form id="forge" method="post" action="${api}/api/notes"><input name="title" value="forged"><button>Send</button></form></body></html>`;
}

/** Serves `page` on a free port of the loopback interface; pages name it `localhost`. */
async function pageServer(html: () => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, server };
}

/** What the API saw of one request. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly origin: string;
  readonly site: string;
  readonly preflightFor: string;
}

describe('docs/examples/cross-origin.ts, called from other origins in a browser', { skip: browserSkipReason() }, () => {
  const browser = browserInSuite();
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  let api: TestServer;
  let trusted: { origin: string; server: Server };
  let other: { origin: string; server: Server };
  let Note: ReturnType<typeof crossOriginApi>['Note'];
  const seen: Seen[] = [];

  before(async () => {
    let apiUrl = '';
    trusted = await pageServer(() => page(apiUrl));
    other = await pageServer(() => page(apiUrl));
    const built = crossOriginApi(sequelize, trusted.origin);
    Note = built.Note;
    await sequelize.sync();
    built.app.middleware.unshift(async (ctx, next) => {
      seen.push({
        method: ctx.method,
        path: ctx.path,
        origin: ctx.get('origin'),
        site: ctx.get('sec-fetch-site'),
        preflightFor: ctx.get('access-control-request-method'),
      });
      await next();
    });
    api = await serve(built.app);
    apiUrl = api.url;
  });
  after(async () => {
    await api?.close();
    for (const { server } of [trusted, other]) await new Promise((resolve) => server?.close(resolve));
    await sequelize.close();
  });

  it('reads the list and patches a note with a JSON body through a preflight, from the trusted origin', async () => {
    const note = await Note.create({ title: 'Draft' });
    const { page: tab, problems } = await browser.open();
    await tab.goto(`${trusted.origin}/`);
    seen.length = 0;
    const result = await tab.evaluate(
      async ([base, id]) => {
        const list = await fetch(`${base}/api/notes`, { credentials: 'include' });
        const listed = (await list.json()) as { data: { title: string }[] };
        const patch = await fetch(`${base}/api/notes/${id}`, {
          method: 'PATCH',
          credentials: 'include',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Published' }),
        });
        return {
          list: list.status,
          titles: listed.data.map((row) => row.title),
          patch: patch.status,
          body: await patch.json(),
        };
      },
      [api.url, note.get('id') as string] as const,
    );
    assert.deepEqual(result, { list: 200, titles: ['Draft'], patch: 200, body: { ...result.body, status: 'success' } });
    assert.equal(result.body.data.title, 'Published');
    assert.equal((await note.reload()).get('title'), 'Published');
    const preflight = seen.find((request) => request.method === 'OPTIONS');
    assert.deepEqual(preflight && { path: preflight.path, origin: preflight.origin, for: preflight.preflightFor }, {
      path: `/api/notes/${note.get('id')}`,
      origin: trusted.origin,
      for: 'PATCH',
    });
    assert.deepEqual(
      seen.filter((request) => request.method === 'PATCH').map((request) => [request.origin, request.site]),
      [[trusted.origin, 'cross-site']],
    );
    assert.deepEqual(problems, []);
    await browser.shot(tab, 'cross-origin-trusted');
    await note.destroy();
  });

  it('blocks the read and refuses the form post from an origin the API does not trust, creating nothing', async () => {
    const { page: tab, problems } = await browser.open();
    await tab.goto(`${other.origin}/`);
    const read = await tab.evaluate(
      async (base) =>
        fetch(`${base}/api/notes`).then(
          (res) => `read ${res.status}`,
          (error: Error) => error.name,
        ),
      api.url,
    );
    assert.equal(read, 'TypeError');
    assert.ok(
      problems.some((problem) => /CORS policy/.test(problem)),
      problems.join('\n'),
    );
    seen.length = 0;
    const [reply] = await Promise.all([tab.waitForNavigation(), tab.click('#forge button')]);
    assert.equal(reply?.status(), 403);
    assert.deepEqual(JSON.parse(await tab.locator('body').innerText()).data[0], {
      field: 'sec-fetch-site',
      error: 'crossOrigin',
      message: 'A browser sent this request as cross-site, from an origin cors.origins does not list',
    });
    // The page the form navigated to then asks for its /favicon.ico; only the post matters here.
    const posts = seen.filter((request) => request.method === 'POST');
    assert.deepEqual(
      posts.map((request) => [request.path, request.origin, request.site]),
      [['/api/notes', other.origin, 'cross-site']],
    );
    assert.equal(await Note.count(), 0);
    await browser.shot(tab, 'cross-origin-refused');
  });

  it('accepts the same form post from the trusted origin', async () => {
    const { page: tab, problems } = await browser.open();
    await tab.goto(`${trusted.origin}/`);
    const [reply] = await Promise.all([tab.waitForNavigation(), tab.click('#forge button')]);
    assert.equal(reply?.status(), 201);
    assert.deepEqual(
      (await Note.findAll()).map((row) => row.get('title')),
      ['forged'],
    );
    assert.deepEqual(problems, []);
  });
});
