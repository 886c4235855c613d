import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Sequelize } from 'sequelize';
import {
  CrudController,
  Options,
  BaseController,
  createFastCrud,
  openApiDocument,
  openApiResource,
} from '../../lib/index.js';
import { planRoutes } from '../../lib/core.js';
import { createDemoApp } from '../../docs/examples/demo/app.js';
import { defineCatalog } from '../support/catalog.js';
import { serveDemoInSuite } from '../support/demo.js';

// Models are defined offline: nothing here connects to a database.
const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const catalog = defineCatalog(sequelize, 'oa');
class ProductController extends CrudController {
  override hidden = ['secret'];
  override fillable = 'all' as const;
  modelClassName() {
    return catalog.Product;
  }
}
class TagOptions extends Options(BaseController) {
  modelClassName() {
    return catalog.Tag;
  }
}
const document = openApiDocument({
  info: { title: 'Catalog', version: '1' },
  resources: [
    openApiResource('admin/products', ProductController, { moduleName: 'shop' }),
    openApiResource('tags', TagOptions),
  ],
}) as {
  paths: Record<
    string,
    Record<string, { 'x-ability'?: string; parameters?: { name: string; schema: object }[]; operationId: string }>
  >;
  components: { schemas: Record<string, { properties: object; required?: string[] }> };
};

async function validate(doc: object) {
  const result = await new Validator().validate(doc as never);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
}

describe('openApiDocument', () => {
  it('returns a valid OpenAPI 3.1 document (which the validator would refuse if it were not)', async () => {
    await validate(document);
    assert.equal((await new Validator().validate({ ...document, info: undefined } as never)).valid, false);
  });

  it('returns every planned route, with its ability as x-ability', () => {
    const plan = planRoutes(ProductController, { uri: 'admin/products', moduleName: 'shop' });
    for (const def of plan) {
      const operation = document.paths[`/${def.path.replace('{id:uuid}', '{id}')}`]?.[def.verb];
      assert.ok(operation, `${def.verb} ${def.path}`);
      assert.equal(operation['x-ability'], def.ability ?? undefined);
    }
    assert.deepEqual(
      Object.keys(document.paths).filter((p) => p.startsWith('/tags')),
      ['/tags/options'],
    );
  });

  it('returns options with no ability and no 403 by default, and with both when options.permission names one', () => {
    const options = (config?: { options: { permission: string } }) =>
      (
        openApiDocument({
          info: { title: 'T', version: '1' },
          resources: [
            openApiResource('admin/products', ProductController, { moduleName: 'shop', ...(config && { config }) }),
          ],
        }) as typeof document
      ).paths['/admin/products/options']!['get'] as unknown as {
        'x-ability'?: string;
        responses: Record<string, unknown>;
      };
    assert.equal(options()['x-ability'], undefined);
    assert.equal(options().responses['403'], undefined);
    assert.equal(options({ options: { permission: 'search' } })['x-ability'], 'shop.access.search');
    assert.ok(options({ options: { permission: 'search' } }).responses['403']);
  });

  it("returns options' q, limit (its maximum named) and the search's filter parameters, without sort", () => {
    const options = (config?: { options: { max_limit: number } }) =>
      (
        openApiDocument({
          info: { title: 'T', version: '1' },
          resources: [openApiResource('products', ProductController, { ...(config && { config }) })],
        }) as typeof document
      ).paths['/products/options']!['get'] as unknown as {
        parameters: { name: string; description: string; schema: Record<string, unknown> }[];
      };
    const names = options().parameters.map((parameter) => parameter.name);
    assert.deepEqual(names.slice(0, 4), ['label', 'value', 'q', 'limit']);
    const search = (document.paths['/admin/products']!['get'] as unknown as { parameters: { name: string }[] })
      .parameters;
    const filters = search.map((parameter) => parameter.name).filter((name) => name.startsWith('filter['));
    assert.ok(filters.length > 0);
    assert.deepEqual(names.slice(4), filters);
    const limit = options({ options: { max_limit: 25 } }).parameters.find((parameter) => parameter.name === 'limit')!;
    assert.deepEqual(limit.schema, { type: 'integer', minimum: 1 });
    assert.match(limit.description, /options\.max_limit \(25\)/);
  });

  it('returns the 403 crossOrigin on every POST, PUT, PATCH and DELETE, with or without an ability, and on no GET', () => {
    const unguarded = openApiDocument({
      info: { title: 'T', version: '1' },
      resources: [openApiResource('products', ProductController)],
    }) as typeof document;
    for (const doc of [document, unguarded])
      for (const [path, operations] of Object.entries(doc.paths))
        for (const [verb, operation] of Object.entries(operations)) {
          const { description } =
            (operation as unknown as { responses: Record<string, { description: string }> }).responses['403'] ?? {};
          const unsafe = verb !== 'get';
          assert.equal(description?.includes('(code crossOrigin)') ?? false, unsafe, `${verb} ${path}`);
          // The ability's reason, where there is one, shares the one 403 response.
          assert.equal(description?.includes('(code forbidden)') ?? false, operation['x-ability'] !== undefined);
        }
    const create = unguarded.paths['/products']!['post'] as unknown as { responses: Record<string, object> };
    assert.deepEqual(create.responses['403'], {
      description: 'A browser sent it from an origin that cors.origins does not list (code crossOrigin)',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/JSendFail' } } },
    });
  });

  it('returns unique operation ids', () => {
    const ids = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.equal(new Set(ids).size, ids.length);
  });

  it('returns create and update bodies as JSON or a form, with the same schema', () => {
    const bodyOf = (path: string, verb: string) =>
      (document.paths[path]![verb] as unknown as { requestBody: { content: Record<string, { schema: object }> } })
        .requestBody.content;
    for (const [path, verb, schema] of [
      ['/admin/products', 'post', 'OaProductInput'],
      ['/admin/products/{id}', 'patch', 'OaProductInputPatch'],
    ] as const) {
      const content = bodyOf(path, verb);
      assert.deepEqual(
        Object.keys(content),
        ['application/json', 'application/x-www-form-urlencoded'],
        `${verb} ${path}`,
      );
      assert.deepEqual(content['application/x-www-form-urlencoded'], content['application/json']);
      assert.deepEqual(content['application/json'], { schema: { $ref: `#/components/schemas/${schema}` } });
    }
  });

  it("returns create's 201 with a Location header when read is registered, and without one when it is not (ETag always)", () => {
    type Responses = Record<string, { headers?: Record<string, unknown> }>;
    const created = (doc: typeof document, path: string) =>
      (doc.paths[path]!['post'] as unknown as { responses: Responses }).responses['201']!;
    const etag = created(document, '/admin/products').headers!['ETag'];
    assert.deepEqual(created(document, '/admin/products').headers, {
      ETag: etag,
      Location: { description: "The created record's read URL", schema: { type: 'string', format: 'uri-reference' } },
    });
    const writeOnly = openApiDocument({
      info: { title: 't', version: '1' },
      resources: [openApiResource('products', ProductController, { except: ['read'] })],
    }) as typeof document;
    assert.deepEqual(Object.keys(created(writeOnly, '/products').headers ?? {}), ['ETag']);
  });

  it('returns the id as a uuid path parameter', () => {
    const read = document.paths['/admin/products/{id}']!['get']!;
    assert.deepEqual(read.parameters?.find((p) => p.name === 'id')?.schema, { type: 'string', format: 'uuid' });
  });

  it("returns the controller's term key as a filter parameter, and no term search where there are no term fields", () => {
    class Renamed extends ProductController {
      override termFields = ['name'];
      override termKey = 'q';
    }
    const doc = openApiDocument({
      info: { title: 't', version: '1' },
      resources: [openApiResource('renamed', Renamed), openApiResource('plain', ProductController)],
    }) as typeof document;
    const names = (path: string) => doc.paths[path]!['get']!.parameters!.map((p) => p.name);
    assert.ok(names('/renamed').includes('filter[q]'));
    assert.deepEqual(
      names('/plain').filter((name) => !/^filter\[\w+\]\[\w+\]$/.test(name)),
      ['filter[$or]', 'filter[$and]', 'sort', 'page', 'perPage', 'skipPagination', 'cursor', 'fields', 'If-None-Match'],
    );
    const or = doc.paths['/plain']!['get']!.parameters!.find((p) => p.name === 'filter[$or]');
    assert.equal((or as { style?: string } | undefined)?.style, 'deepObject');
  });

  it('describes a full-text term search as a word search, and a LIKE one as contains', () => {
    class Worded extends ProductController {
      override termFields = ['name'];
      override fullText = true;
    }
    class Contains extends ProductController {
      override termFields = ['name'];
    }
    const doc = openApiDocument({
      info: { title: 't', version: '1' },
      resources: [openApiResource('worded', Worded), openApiResource('contains', Contains)],
    }) as typeof document;
    const term = (path: string) =>
      (doc.paths[path]!['get']!.parameters!.find((p) => p.name === 'filter[term]') as { description?: string })
        .description;
    assert.match(term('/worded')!, /every word of the text begins a word/);
    assert.match(term('/contains')!, /contains the text/);
  });

  it("describes createFastCrud's resources with its configuration, as its crud registers them", () => {
    const app = createFastCrud({
      config: { create: { http_status: 200 }, global: { validation: { http_status: 422 } } },
    });
    const doc = openApiDocument({
      info: { title: 'Catalog', version: '1' },
      resources: [app.openApiResource('products', ProductController, { config: { read: { http_status: 203 } } })],
    }) as typeof document;
    const responses = (path: string, verb: string) =>
      Object.keys((doc.paths[path]![verb] as unknown as { responses: object }).responses);
    assert.ok(responses('/products', 'post').includes('200') && !responses('/products', 'post').includes('201'));
    assert.ok(responses('/products/{id}', 'get').includes('203'));
    assert.ok(responses('/products', 'post').includes('422') && !responses('/products', 'post').includes('400'));
  });

  it('returns record and input schemas from the policy, required from not-null attributes without defaults', () => {
    const { OaProduct, OaProductInput } = document.components.schemas;
    assert.ok('createdAt' in OaProduct!.properties && !('createdAt' in OaProductInput!.properties));
    assert.deepEqual(OaProductInput!.required, ['sku', 'name', 'price']);
    assert.deepEqual((OaProductInput!.properties as Record<string, object>)['name'], {
      type: 'string',
      maxLength: 60,
      minLength: 1,
    });
    assert.deepEqual((OaProductInput!.properties as Record<string, object>)['stock'], { type: ['integer', 'null'] });
  });

  it('returns records with every visible attribute required, nullable ones typed with null, and the key never null', () => {
    const record = document.components.schemas['OaProduct'] as {
      properties: Record<string, { type: unknown }>;
      required: string[];
    };
    assert.deepEqual([...record.required].sort(), Object.keys(record.properties).sort());
    assert.ok(['id', 'sku', 'createdAt', 'updatedAt', 'stock'].every((name) => record.required.includes(name)));
    assert.deepEqual(record.properties['id']!.type, 'string');
    assert.deepEqual(record.properties['stock']!.type, ['integer', 'null']);
  });

  it('returns a tag per resource, a summary and a description per operation, and security where an ability guards the route', () => {
    const doc = document as unknown as {
      tags: { name: string }[];
      components: { securitySchemes?: object };
      paths: Record<
        string,
        Record<
          string,
          { tags: string[]; summary: string; description: string; security?: object[]; 'x-ability'?: string }
        >
      >;
    };
    assert.deepEqual(
      doc.tags.map((tag) => tag.name),
      ['admin/products', 'tags'],
    );
    assert.deepEqual(Object.keys(doc.components.securitySchemes ?? {}), ['bearerAuth']);
    for (const [path, item] of Object.entries(doc.paths))
      for (const [verb, operation] of Object.entries(item)) {
        assert.ok(
          operation.summary &&
            operation.description.length > 20 &&
            doc.tags.some((tag) => tag.name === operation.tags[0]),
          `${verb} ${path}`,
        );
        assert.deepEqual(
          operation.security,
          operation['x-ability'] === undefined ? [] : [{ bearerAuth: [] }],
          `${verb} ${path}`,
        );
      }
    const custom = openApiDocument({
      info: { title: 'T', version: '1' },
      securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'x-key' } },
      resources: [openApiResource('p', ProductController, { moduleName: 'shop' })],
    }) as typeof doc;
    assert.deepEqual(custom.paths['/p']!['get']!.security, [{ key: [] }]);
    const none = openApiDocument({
      info: { title: 'T', version: '1' },
      securitySchemes: {},
      resources: [openApiResource('p', ProductController, { moduleName: 'shop' })],
    }) as typeof doc;
    assert.equal(none.paths['/p']!['get']!.security, undefined);
    assert.equal(none.components.securitySchemes, undefined);
    const unguarded = openApiDocument({
      info: { title: 'T', version: '1' },
      resources: [openApiResource('p', ProductController)],
    }) as typeof doc;
    assert.equal(unguarded.components.securitySchemes, undefined);
  });

  it('never shows a hidden attribute', () => {
    assert.doesNotMatch(JSON.stringify(document.components.schemas['OaProduct']), /secret/);
  });
});

describe('the demo serves /openapi.json', () => {
  const demo = serveDemoInSuite();

  it('answers a valid document that lists the demo routes', async () => {
    const res = await demo().get('/api/openapi.json');
    assert.equal(res.status, 200);
    await validate(res.body);
    assert.ok(res.body.paths['/products/{id}/restore'].patch);
    assert.deepEqual(
      res.body,
      createDemoApp(new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false })).openApi,
    );
  });

  it('serves the explorer page and its assets from the local package, and nothing else', async () => {
    const page = await demo().get('/docs');
    assert.equal(page.status, 200);
    assert.match(page.text, /src="\/docs\/assets\/swagger-ui-bundle\.js"/);
    assert.match(page.text, /url: "\/api\/openapi\.json"/);
    assert.doesNotMatch(page.text, /https?:\/\//);
    const bundle = await demo().get('/docs/assets/swagger-ui-bundle.js');
    assert.deepEqual([bundle.status, bundle.headers.get('content-type')], [200, 'text/javascript; charset=utf-8']);
    assert.ok(bundle.text.includes('SwaggerUIBundle'));
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/assets/index.html']) {
      assert.equal((await demo().get(path)).status, 404, path);
    }
  });
});
