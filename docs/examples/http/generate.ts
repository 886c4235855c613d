/** `npm run docs:examples`: runs every scenario in scenarios/ against the demo, renders the errors page's codes table, and writes docs/generated/. */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { renderClientRun, renderDocumentExcerpt } from '../client/document-excerpt.js';
import { renderErrorCodes } from '../errors/codes-table.js';
import * as reactAdmin from '../clients/react-admin.js';
import * as refine from '../clients/refine.js';
import { renderClientTour } from './client-exchange.js';
import { renderScenario, type Step } from './exchange.js';

/** Where the rendered scenarios go; doc pages include them with `<!--@include: ../generated/<name>.md-->`. */
export const GENERATED = new URL('../../generated/', import.meta.url);

/**
 * Every scenario by name (its file name), rendered now; `error-codes`: the table of ERROR_TABLE;
 * `openapi-document` and `openapi-client`: excerpts of the demo's OpenAPI document and a typed client's run;
 * `react-admin` and `refine`: the data-provider examples.
 */
export async function renderAll(): Promise<Map<string, string>> {
  const rendered = new Map<string, string>();
  for (const file of readdirSync(new URL('./scenarios/', import.meta.url)).filter((f) => f.endsWith('.ts')).sort()) {
    const steps = (await import(`./scenarios/${file}`)) as { default: readonly Step[] };
    rendered.set(basename(file, '.ts'), await renderScenario(steps.default));
  }
  rendered.set('error-codes', renderErrorCodes());
  rendered.set('openapi-document', renderDocumentExcerpt());
  rendered.set('openapi-client', await renderClientRun());
  // The data-provider examples, each call with the exchanges it made.
  rendered.set('react-admin', await renderClientTour({ provider: (url, fetch) => reactAdmin.shopProvider(url, undefined, fetch), tour: reactAdmin.tour }));
  rendered.set('refine', await renderClientTour({ provider: (url, fetch) => refine.shopProvider(url, undefined, fetch), tour: refine.tour }));
  return rendered;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  mkdirSync(GENERATED, { recursive: true });
  for (const [name, markdown] of await renderAll()) {
    writeFileSync(new URL(`${name}.md`, GENERATED), markdown);
    console.log(`docs/generated/${name}.md`);
  }
}
