import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  corsHeaders,
  crossOriginCheck,
  isSerializedOrigin,
  isTrustedOrigin,
  preflightHeaders,
  type CrossOriginRequest,
} from '../../lib/core/cross-origin.js';
import type { CorsConfig } from '../../lib/types.js';

const HOST = 'api.example.com';
const ADMIN = 'https://admin.example.com';
const EVIL = 'https://evil.example';
const post = (headers: Partial<CrossOriginRequest>): CrossOriginRequest => ({
  method: 'POST',
  secFetchSite: undefined,
  origin: undefined,
  host: HOST,
  ...headers,
});
const cors: CorsConfig = { origins: [ADMIN], credentials: false, max_age: 600 };

const hostArb = fc.domain();
const originArb = fc
  .tuple(
    fc.constantFrom('http', 'https'),
    fc.domain(),
    fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
  )
  .map(([scheme, host, port]) => new URL(`${scheme}://${host}${port === undefined ? '' : `:${port}`}`).origin);
const siteArb = fc.option(fc.constantFrom('same-origin', 'same-site', 'cross-site', 'none', 'weird'), {
  nil: undefined,
});
const unsafeArb = fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'post');
const requestArb = fc.record({
  method: fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'),
  secFetchSite: siteArb,
  origin: fc.option(originArb, { nil: undefined }),
  host: hostArb,
});

describe('crossOriginCheck', () => {
  it('returns the refusal naming Sec-Fetch-Site for a cross-site or same-site POST from an untrusted origin', () => {
    assert.deepEqual(
      crossOriginCheck(post({ secFetchSite: 'cross-site', origin: EVIL }), [ADMIN]),
      E.left({ _tag: 'crossOrigin', field: 'sec-fetch-site', value: 'cross-site', origin: EVIL }),
    );
    assert.equal(
      E.isLeft(crossOriginCheck(post({ secFetchSite: 'same-site', origin: 'https://shop.example.com' }), [ADMIN])),
      true,
    );
  });

  it("returns the refusal naming Origin for an older browser's POST from another host", () => {
    assert.deepEqual(
      crossOriginCheck(post({ origin: EVIL }), []),
      E.left({ _tag: 'crossOrigin', field: 'origin', value: EVIL, origin: EVIL }),
    );
    assert.equal(E.isLeft(crossOriginCheck(post({ origin: 'null' }), [])), true);
  });

  it('returns why a request passes: safe method, same origin, no browser, trusted origin', () => {
    assert.deepEqual(
      crossOriginCheck({ ...post({ secFetchSite: 'cross-site', origin: EVIL }), method: 'GET' }, []),
      E.right('safeMethod'),
    );
    assert.deepEqual(
      crossOriginCheck(post({ secFetchSite: 'same-origin', origin: `https://${HOST}` }), []),
      E.right('sameOrigin'),
    );
    assert.deepEqual(crossOriginCheck(post({ secFetchSite: 'none' }), []), E.right('sameOrigin'));
    assert.deepEqual(crossOriginCheck(post({ origin: `http://${HOST.toUpperCase()}` }), []), E.right('sameOrigin'));
    assert.deepEqual(crossOriginCheck(post({}), []), E.right('notBrowser'));
    assert.deepEqual(
      crossOriginCheck(post({ secFetchSite: 'cross-site', origin: ADMIN }), [ADMIN]),
      E.right('trustedOrigin'),
    );
    assert.deepEqual(crossOriginCheck(post({ origin: ADMIN }), [ADMIN]), E.right('trustedOrigin'));
  });

  it('returns a refusal for an origin that differs from a trusted one only in port or scheme', () => {
    for (const origin of ['https://admin.example.com:8443', 'http://admin.example.com']) {
      assert.equal(E.isLeft(crossOriginCheck(post({ secFetchSite: 'cross-site', origin }), [ADMIN])), true, origin);
    }
  });

  it('never refuses GET, HEAD or OPTIONS (law)', () => {
    fc.assert(
      fc.property(
        requestArb,
        fc.array(originArb),
        (request, trusted) => !SAFE(request.method) || E.isRight(crossOriginCheck(request, trusted)),
      ),
    );
  });

  it('never refuses a trusted origin, nor a request with neither header (law)', () => {
    fc.assert(
      fc.property(
        requestArb,
        fc.array(originArb),
        (request, trusted) =>
          E.isRight(crossOriginCheck({ ...request, secFetchSite: undefined, origin: undefined }, trusted)) &&
          (request.origin === undefined || E.isRight(crossOriginCheck(request, [...trusted, request.origin]))),
      ),
    );
  });

  it('refuses every unsafe request whose browser says cross-site or same-site, from an origin not trusted (law)', () => {
    fc.assert(
      fc.property(
        unsafeArb,
        fc.constantFrom('cross-site', 'same-site'),
        fc.option(originArb, { nil: undefined }),
        hostArb,
        fc.array(originArb),
        (method, site, origin, host, trusted) => {
          fc.pre(origin === undefined || !trusted.includes(origin));
          return E.isLeft(crossOriginCheck({ method, secFetchSite: site, origin, host }, trusted));
        },
      ),
    );
  });

  it("decides an older browser's unsafe request by its Origin alone: its own host or trusted passes, any other is refused (law)", () => {
    fc.assert(
      fc.property(unsafeArb, originArb, hostArb, fc.array(originArb), (method, origin, host, trusted) => {
        const passes = new URL(origin).host === host || trusted.includes(origin);
        return E.isRight(crossOriginCheck({ method, secFetchSite: undefined, origin, host }, trusted)) === passes;
      }),
    );
  });
});

const SAFE = (method: string) => ['GET', 'HEAD', 'OPTIONS'].includes(method);

describe('isSerializedOrigin', () => {
  it('returns true for scheme, host and port only', () => {
    for (const origin of [ADMIN, 'http://localhost:5173', 'http://127.0.0.1:8080'])
      assert.equal(isSerializedOrigin(origin), true, origin);
  });

  it('returns false for paths, slashes, other schemes, default ports, upper case and no origin', () => {
    for (const bad of [
      `${ADMIN}/`,
      `${ADMIN}/app`,
      'https://Admin.example.com',
      'https://admin.example.com:443',
      'ftp://x.example',
      'file:///tmp',
      '*',
      'null',
      '',
      'admin.example.com',
    ]) {
      assert.equal(isSerializedOrigin(bad), false, bad);
    }
  });

  it('is true of every origin a URL serializes (law)', () => {
    fc.assert(fc.property(originArb, (origin) => isSerializedOrigin(origin)));
  });
});

describe('isTrustedOrigin', () => {
  it('returns true for a listed origin, in any case, and false for none', () => {
    assert.equal(isTrustedOrigin('HTTPS://ADMIN.EXAMPLE.COM', [ADMIN]), true);
    assert.equal(isTrustedOrigin(undefined, [ADMIN]), false);
    assert.equal(isTrustedOrigin(ADMIN, []), false);
  });
});

describe('corsHeaders', () => {
  it('returns nothing while no origin is trusted, so replies stay as they were', () => {
    assert.deepEqual(corsHeaders(ADMIN, { ...cors, origins: [] }), {});
  });

  it('returns Vary alone for an untrusted or absent origin', () => {
    assert.deepEqual(corsHeaders(EVIL, cors), { Vary: 'Origin' });
    assert.deepEqual(corsHeaders(undefined, cors), { Vary: 'Origin' });
  });

  it('returns the origin itself, the exposed headers and, when configured, credentials for a trusted origin', () => {
    assert.deepEqual(corsHeaders(ADMIN, { ...cors, credentials: true }), {
      Vary: 'Origin',
      'Access-Control-Allow-Origin': ADMIN,
      'Access-Control-Expose-Headers':
        'Location, Content-Disposition, Retry-After, ETag, Consistency-Token, Fast-Crud-Per-Page-Lowered',
      'Access-Control-Allow-Credentials': 'true',
    });
    assert.equal(corsHeaders(ADMIN, cors)['Access-Control-Allow-Credentials'], undefined);
  });

  it('allows an origin exactly when crossOriginCheck would trust it (law)', () => {
    fc.assert(
      fc.property(originArb, fc.array(originArb, { minLength: 1 }), (origin, origins) => {
        const allowed = corsHeaders(origin, { ...cors, origins })['Access-Control-Allow-Origin'] === origin;
        const trusted = E.isRight(crossOriginCheck(post({ secFetchSite: 'cross-site', origin }), origins));
        return allowed === trusted;
      }),
    );
  });
});

describe('preflightHeaders', () => {
  const request = { origin: ADMIN, requestMethod: 'PATCH', requestHeaders: 'content-type, x-demo-abilities' };

  it('returns the methods, the asked headers and the max age for a trusted origin', () => {
    assert.deepEqual(preflightHeaders(request, cors, ['GET', 'PATCH']), {
      Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      'Access-Control-Allow-Origin': ADMIN,
      'Access-Control-Allow-Methods': 'GET, PATCH',
      'Access-Control-Allow-Headers': 'content-type, x-demo-abilities',
      'Access-Control-Max-Age': '600',
    });
  });

  it('returns undefined for an untrusted origin and for an OPTIONS that is no preflight', () => {
    assert.equal(preflightHeaders({ ...request, origin: EVIL }, cors, ['PATCH']), undefined);
    assert.equal(preflightHeaders({ ...request, requestMethod: undefined }, cors, ['PATCH']), undefined);
  });

  it('returns no allowed headers when one asked for is no header name', () => {
    assert.equal(
      preflightHeaders({ ...request, requestHeaders: 'content-type, bad header' }, cors, ['PATCH'])?.[
        'Access-Control-Allow-Headers'
      ],
      undefined,
    );
  });
});
