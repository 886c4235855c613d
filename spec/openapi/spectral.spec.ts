// Spectral (the installed @stoplight/spectral-cli) lints the documents with spectral:oas: 0 errors and 0 warnings.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Sequelize } from 'sequelize';
import { createDemoApp } from '../../docs/examples/demo/app.js';
import { openApiDocument, openApiResource, resource } from '../../lib/index.js';
import { orders } from '../../docs/examples/relations/writes.js';
import { defineRelationCatalog } from '../support/relations-catalog.js';

const SPECTRAL = 'node_modules/.bin/spectral';
const RULESET = 'spec/openapi/spectral.yaml';
const folder = mkdtempSync(join(tmpdir(), 'fc-spectral-'));
after(() => rmSync(folder, { recursive: true, force: true }));

type Finding = { code: string; message: string; path: string[]; severity: number };

/** Spectral's findings for a document, every severity (0 error, 1 warning, 2 info, 3 hint). */
async function lint(name: string, document: object): Promise<Finding[]> {
  const file = join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify(document, null, 2));
  // Spectral exits 1 when it finds an error; its JSON report is on stdout either way.
  const run = await promisify(execFile)(SPECTRAL, [
    'lint',
    '--ruleset',
    RULESET,
    '--format',
    'json',
    '--fail-severity',
    'error',
    file,
  ]).catch((failed: { stdout?: string; stderr?: string }) => failed);
  const output = run.stdout ?? '';
  const start = output.indexOf('[');
  assert.ok(start >= 0, `no JSON report from spectral: ${output}${run.stderr ?? ''}`);
  return JSON.parse(output.slice(start, output.lastIndexOf(']') + 1)) as Finding[];
}

const printed = (findings: Finding[]) =>
  findings
    .map((f) => `${['error', 'warning', 'info', 'hint'][f.severity]} ${f.code} at ${f.path.join('.')}: ${f.message}`)
    .join('\n');

describe('Spectral (spectral:oas) on the generated documents', () => {
  it("reports nothing for the demo's document", async () => {
    const { openApi } = createDemoApp(new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false }));
    const findings = await lint('demo', openApi);
    assert.deepEqual(findings, [], printed(findings));
  });

  it('reports nothing for resources with relations, includes, relational writes and abilities under the default security scheme', async () => {
    const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
    const { Product } = defineRelationCatalog(sequelize, 'spec');
    const products = resource(Product, {
      policy: { fillable: 'all' },
      relations: {
        category: { include: true },
        order: {},
        'order.customer': { include: true },
        tags: { include: true },
      },
    });
    const document = openApiDocument({
      info: { title: 'Shop', version: '1', description: 'A shop', contact: { name: 'Shop team' } },
      servers: [{ url: '/' }],
      resources: [
        openApiResource('products', products, { moduleName: 'shop' }),
        openApiResource('admin/products', products),
        openApiResource('orders', orders, { config: { global: { find_field_is_uuid: false } } }),
      ],
    });
    const findings = await lint('relations', document);
    assert.deepEqual(findings, [], printed(findings));
  });

  it('reports nothing for a resource with batch routes, guarded and open', async () => {
    const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
    const { Product } = defineRelationCatalog(sequelize, 'spec');
    const products = resource(Product, { policy: { fillable: 'all' }, batch: true });
    const document = openApiDocument({
      info: { title: 'Shop', version: '1', description: 'A shop', contact: { name: 'Shop team' } },
      servers: [{ url: '/' }],
      resources: [
        openApiResource('products', products, { moduleName: 'shop' }),
        openApiResource('admin/products', products, { config: { global: { find_field_is_uuid: false } } }),
      ],
    });
    const findings = await lint('batch', document);
    assert.deepEqual(findings, [], printed(findings));
  });

  it('reports what is wrong when a document breaks a rule, so an empty list means something', async () => {
    const findings = await lint('broken', {
      openapi: '3.1.0',
      info: { title: 'x', version: '1' },
      paths: { '/a': { get: { responses: { '200': { description: 'ok' } } } } },
    });
    assert.ok(
      findings.some((f) => f.code === 'operation-description'),
      printed(findings),
    );
  });
});
