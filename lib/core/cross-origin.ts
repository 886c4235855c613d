/**
 * Cross-origin decisions as values: whether a browser's unsafe request from another origin may run
 * (cross-site request forgery), and the CORS headers of a reply or a preflight. One list of trusted
 * origins (`cors.origins`) drives both, so they never disagree.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { CorsConfig } from '../types.js';

/** The parts of a request the cross-origin decisions read; absent headers are undefined. */
export interface CrossOriginRequest {
  readonly method: string;
  /** The `Sec-Fetch-Site` header a browser sends: `same-origin`, `same-site`, `cross-site` or `none`. */
  readonly secFetchSite: string | undefined;
  readonly origin: string | undefined;
  /** The request's host and port (`Host`), as the server sees it. */
  readonly host: string;
}

/** Why an unsafe request was refused: the header that showed it came from an untrusted origin. */
export interface CrossOriginRefusal {
  readonly _tag: 'crossOrigin';
  readonly field: 'sec-fetch-site' | 'origin';
  readonly value: string;
  readonly origin: string | undefined;
}

/** Why a request may run: a safe method, a same-origin browser request, no browser, or a trusted origin. */
export type CrossOriginPass = 'safeMethod' | 'sameOrigin' | 'notBrowser' | 'trustedOrigin';

/** The methods that change nothing, so any origin may send them. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Decides whether a request may run: safe methods always; with `Sec-Fetch-Site`, `same-origin` and
 * `none` (typed by the user) pass, anything else only from a trusted origin; without it (an older
 * browser, or no browser), no `Origin` passes, an `Origin` naming the request's own host passes, a
 * trusted origin passes, and any other is refused.
 * @example
 * const request = { method: 'POST', secFetchSite: 'cross-site', origin: 'https://evil.example', host: 'api.example' };
 * crossOriginCheck(request, [])
 *   // left({ _tag: 'crossOrigin', field: 'sec-fetch-site', value: 'cross-site', origin: 'https://evil.example' })
 */
export function crossOriginCheck(
  request: CrossOriginRequest,
  trusted: readonly string[],
): E.Either<CrossOriginRefusal, CrossOriginPass> {
  const { method, secFetchSite, origin, host } = request;
  if (SAFE_METHODS.has(method.toUpperCase())) return E.right('safeMethod');
  if (secFetchSite !== undefined) {
    if (secFetchSite === 'same-origin' || secFetchSite === 'none') return E.right('sameOrigin');
    if (isTrustedOrigin(origin, trusted)) return E.right('trustedOrigin');
    return E.left({ _tag: 'crossOrigin', field: 'sec-fetch-site', value: secFetchSite, origin });
  }
  if (origin === undefined) return E.right('notBrowser');
  if (hostOf(origin) === host.toLowerCase()) return E.right('sameOrigin');
  if (isTrustedOrigin(origin, trusted)) return E.right('trustedOrigin');
  return E.left({ _tag: 'crossOrigin', field: 'origin', value: origin, origin });
}

/**
 * True when `origin` is one of the trusted origins, compared as browsers serialize them (lower case, no path).
 * @example isTrustedOrigin('https://admin.example.com', ['https://admin.example.com']) // true
 */
export function isTrustedOrigin(origin: string | undefined, trusted: readonly string[]): boolean {
  return origin !== undefined && trusted.includes(origin.toLowerCase());
}

/**
 * True when `value` is an origin as a browser sends it: `http` or `https`, a host, an optional port,
 * nothing else (no path, no trailing slash, no user).
 * @example isSerializedOrigin('https://admin.example.com:8443') // true
 * @example isSerializedOrigin('https://admin.example.com/') // false
 */
export function isSerializedOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
}

/**
 * The CORS headers of a reply to a request from `origin`: none while no origin is trusted; else
 * `Vary: Origin` always (a cache must not give one origin's reply to another), and for a trusted
 * origin `Access-Control-Allow-Origin` naming it, the headers a script may read, and credentials
 * when configured.
 * @example
 * const cors = { origins: ['https://admin.example.com'], credentials: false, max_age: 600 };
 * corsHeaders('https://admin.example.com', cors)
 *   // { Vary: 'Origin', 'Access-Control-Allow-Origin': 'https://admin.example.com', 'Access-Control-Expose-Headers': …
 *   // }
 */
export function corsHeaders(origin: string | undefined, cors: CorsConfig): Readonly<Record<string, string>> {
  if (cors.origins.length === 0) return {};
  if (!isTrustedOrigin(origin, cors.origins)) return { Vary: 'Origin' };
  return {
    Vary: 'Origin',
    'Access-Control-Allow-Origin': origin!,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    ...(cors.credentials ? { 'Access-Control-Allow-Credentials': 'true' } : {}),
  };
}

/**
 * The reply headers a script needs beyond the safelisted ones: create's Location, export's file name, a 503's
 * Retry-After, a record's or a page's ETag (to send back in `If-Match` or `If-None-Match`), readYourWrites'
 * Consistency-Token, and search's Fast-Crud-Per-Page-Lowered.
 */
const EXPOSED_HEADERS =
  'Location, Content-Disposition, Retry-After, ETag, Consistency-Token, Fast-Crud-Per-Page-Lowered';

/** The headers of a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) as the reply reads them. */
export interface PreflightRequest {
  readonly origin: string | undefined;
  readonly requestMethod: string | undefined;
  readonly requestHeaders: string | undefined;
}

/**
 * The reply headers of a preflight from a trusted origin for a path served with `methods`, or
 * undefined when it is no preflight or its origin is not trusted (the browser then refuses the request).
 * The headers the script asks to send are allowed when each is a valid header name.
 * @example
 * const request = { origin: 'https://admin.example.com', requestMethod: 'PATCH', requestHeaders: 'content-type' };
 * preflightHeaders(request, cors, ['PATCH'])
 *   // { Vary: …, 'Access-Control-Allow-Origin': 'https://admin.example.com', 'Access-Control-Allow-Methods': 'PATCH',
 *   // … }
 */
export function preflightHeaders(
  request: PreflightRequest,
  cors: CorsConfig,
  methods: readonly string[],
): Readonly<Record<string, string>> | undefined {
  const { origin, requestMethod, requestHeaders } = request;
  if (requestMethod === undefined || !isTrustedOrigin(origin, cors.origins)) return undefined;
  const asked = (requestHeaders ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return {
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    'Access-Control-Allow-Origin': origin!,
    'Access-Control-Allow-Methods': methods.join(', '),
    ...(asked.length > 0 && asked.every((name) => HEADER_NAME.test(name))
      ? { 'Access-Control-Allow-Headers': asked.join(', ') }
      : {}),
    'Access-Control-Max-Age': String(cors.max_age),
    ...(cors.credentials ? { 'Access-Control-Allow-Credentials': 'true' } : {}),
  };
}

/** An HTTP token (RFC 9110), the shape of a header name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * An origin's host and port, lower case (`https://A.example:8443` → `a.example:8443`); undefined if it does not parse.
 */
function hostOf(origin: string): string | undefined {
  return URL.canParse(origin) ? new URL(origin).host : undefined;
}
