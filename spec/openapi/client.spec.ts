import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { conditionalEdits, dearProducts, tour } from '../../docs/examples/client/client.js';
import { TYPES_FILE, demoApiTypes } from '../../docs/examples/client/generate.js';
import { serveDemoInSuite } from '../support/demo.js';

describe('a typed client generated from the OpenAPI document', () => {
  const demo = serveDemoInSuite();

  it('is generated from the current document (run npm run openapi:types after changing the demo)', async () => {
    assert.equal(readFileSync(TYPES_FILE, 'utf8'), await demoApiTypes());
  });

  it('type-checks (npm test runs tsc over it) and makes real calls to the demo', async () => {
    assert.deepEqual(await tour(demo().url), { created: 201, name: 'Typed Teapot', pageSize: 2 });
  });

  it('runs a typed, filtered search: filter[price][gte]=30, sort and include as the generated types spell them', async () => {
    assert.deepEqual(await dearProducts(demo().url), [
      { sku: 'MU-001', price: 89, category: 'Music' },
      { sku: 'KT-001', price: 54, category: 'Kitchen' },
      { sku: 'BK-002', price: 44.5, category: 'Books' },
      { sku: 'BK-001', price: 39.9, category: 'Books' },
      { sku: 'TY-001', price: 35, category: 'Toys' },
    ]);
  });

  it('sends the ETag it read in a typed If-Match header: 200, then 412 for the stale one, then 304', async () => {
    assert.deepEqual(await conditionalEdits(demo().url), {
      statuses: [200, 412, 304],
      refusal: 'preconditionFailed',
      changed: true,
    });
  });
});
