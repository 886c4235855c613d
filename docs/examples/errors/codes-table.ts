/**
 * docs/guide/errors.md's table of codes, made from ERROR_TABLE: `npm run docs:examples` writes it to
 * docs/generated/error-codes.md, which the page includes, and spec/docs/site-examples.spec.ts fails
 * when the committed file differs from what the table gives now.
 */
import { ERROR_TABLE, type ErrorCode } from 'koa-fast-crud';
import { ERROR_CODES, type ErrorStatus } from 'koa-fast-crud/core';

/** The sections of the errors page that show a code in a reply, by the link text the table uses. */
const SECTIONS = {
  query: '#query-string-errors',
  body: '#body-errors',
  records: '#records-and-constraints',
  database: '#records-and-constraints',
  permissions: '#permissions',
  validation: 'validation.md#what-a-failure-looks-like',
  routes: '#responses-when-no-route-matches',
  outages: '#database-outages-and-timeouts',
  concurrency: 'concurrency.md#conditional-writes',
} as const;

/** Where on the page each code is shown in a reply; none for the codes no example can provoke. */
const SHOWN_IN: Readonly<Record<ErrorCode, readonly (keyof typeof SECTIONS)[]>> = {
  required: ['query'],
  columnNotFound: ['query'],
  invalidOperator: ['query'],
  invalidValue: ['query', 'database'],
  type: ['body'],
  invalid: [],
  emptyPayload: ['body'],
  schema: ['validation'],
  unknownParameter: ['query'],
  invalidJson: ['body'],
  invalidForm: ['body'],
  invalidBody: ['body'],
  unsupportedMediaType: ['body'],
  contentTooLarge: ['body'],
  unique: ['records'],
  foreignKey: ['records'],
  recordNotFound: ['records'],
  preconditionFailed: ['concurrency'],
  preconditionRequired: ['concurrency'],
  staleVersion: ['concurrency'],
  routeNotFound: ['routes'],
  methodNotAllowed: ['routes'],
  forbidden: ['permissions'],
  crossOrigin: ['permissions'],
  tooDeep: [],
  uriTooLong: [],
  tooManyRows: [],
  invalidCursor: [],
  filterRequired: [],
  clientError: [],
  databaseUnavailable: ['outages'],
  databaseTimeout: ['outages'],
  tooManySubscribers: [],
};

/** How the table writes a status; `400\*` is explained above the table. */
function statusCell(status: ErrorStatus): string {
  if (status === 'validation') return '400\\*';
  if (status === 'thrown') return 'the thrown 4xx';
  return String(status);
}

function exampleCell(code: ErrorCode): string {
  const links = SHOWN_IN[code].map((name) => `[${name}](${SECTIONS[name]})`);
  return links.length === 0 ? 'none' : links.join(', ');
}

/**
 * The Markdown table of every code in ERROR_TABLE, in its order: code, status, when, example.
 * @example renderErrorCodes().split('\n')[2] // '| `required` | 400\* | `options` without `label` | [query](#query-string-errors) |'
 */
export function renderErrorCodes(): string {
  const rows = ERROR_CODES.map((code) => {
    const { status, meaning } = ERROR_TABLE[code];
    return `| \`${code}\` | ${statusCell(status)} | ${meaning} | ${exampleCell(code)} |`;
  });
  return ['| code | status | when | example |', '|---|---|---|---|', ...rows, ''].join('\n');
}
