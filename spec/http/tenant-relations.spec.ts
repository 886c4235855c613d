/**
 * tenantScope through associations: the scope of a model holds wherever the model is reached, in
 * includes at every level, filters and sorts through associations, CSV dot paths and the foreign
 * keys a write stores, whichever resource is served and in whatever order they were registered.
 * The seed holds legacy rows that cross tenants (tenant A's invoice points at tenant B's customer,
 * B's chapter and tag link hang on A's book), so only the scope keeps B's rows out of A's replies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Sequelize } from 'sequelize';
import { observeExecution } from '../../lib/execute/state.js';
import { tenantScope } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineModels(sequelize: Sequelize, prefix: string) {
  const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true };
  const libraryId = { type: DataTypes.STRING(8), allowNull: false };
  const plain = { underscored: true, timestamps: false };
  const define = (name: string, attributes: Parameters<Sequelize['define']>[1]) =>
    sequelize.define(
      `${prefix}${name}`,
      { id, ...attributes },
      { ...plain, tableName: `${prefix}_${name.toLowerCase()}s` },
    );
  const Author = define('Author', { name: DataTypes.STRING(40) });
  const Book = define('Book', { libraryId, title: DataTypes.STRING(40), authorId: DataTypes.INTEGER });
  const Chapter = define('Chapter', { libraryId, heading: DataTypes.STRING(40), bookId: DataTypes.INTEGER });
  const Tag = define('Tag', { libraryId, label: DataTypes.STRING(40) });
  const BookTag = define('BookTag', { libraryId, bookId: DataTypes.INTEGER, tagId: DataTypes.INTEGER });
  const Customer = define('Customer', { libraryId, name: DataTypes.STRING(40) });
  const Invoice = define('Invoice', { libraryId, title: DataTypes.STRING(40), customerId: DataTypes.INTEGER });
  const loose = { constraints: false };
  Author.hasMany(Book, { as: 'books', foreignKey: 'authorId', ...loose });
  Book.belongsTo(Author, { as: 'author', foreignKey: 'authorId', ...loose });
  Book.hasMany(Chapter, { as: 'chapters', foreignKey: 'bookId', ...loose });
  Book.belongsToMany(Tag, { as: 'tags', through: BookTag, foreignKey: 'bookId', otherKey: 'tagId', ...loose });
  Invoice.belongsTo(Customer, { as: 'customer', foreignKey: 'customerId', ...loose });
  return { Author, Book, Chapter, Tag, BookTag, Customer, Invoice };
}

/** Every value of tenant B's rows starts with `B-`: a reply to tenant A must hold none. Ids follow the order of each list, from 1. */
async function seed(models: ReturnType<typeof defineModels>): Promise<void> {
  const { Author, Book, Chapter, Tag, BookTag, Customer, Invoice } = models;
  for (const model of Object.values(models)) await model.sync({ force: true });
  await Author.create({ name: 'Shared author' });
  await Book.bulkCreate([
    { libraryId: 'a', title: 'A-book', authorId: 1 },
    { libraryId: 'b', title: 'B-book', authorId: 1 },
  ]);
  await Chapter.bulkCreate([
    { libraryId: 'a', heading: 'A-chapter', bookId: 1 },
    { libraryId: 'b', heading: 'B-chapter', bookId: 1 },
  ]);
  await Tag.bulkCreate([
    { libraryId: 'a', label: 'A-tag' },
    { libraryId: 'b', label: 'B-tag' },
  ]);
  await BookTag.bulkCreate([
    { libraryId: 'a', bookId: 1, tagId: 1 },
    { libraryId: 'b', bookId: 1, tagId: 2 },
  ]);
  await Customer.bulkCreate([
    { libraryId: 'a', name: 'A-customer' },
    { libraryId: 'b', name: 'B-customer' },
  ]);
  await Invoice.bulkCreate([
    { libraryId: 'a', title: 'A-own', customerId: 1 },
    { libraryId: 'a', title: 'A-legacy', customerId: 2 },
    { libraryId: 'b', title: 'B-invoice', customerId: 2 },
  ]);
}

const tenantOf = (ctx: { get(name: string): string }) => ctx.get('x-library') || undefined;

for (const db of databases)
  for (const form of FORMS) {
    describe(`tenantScope through associations (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let models: ReturnType<typeof defineModels>;
      const errors: unknown[] = [];

      before(async () => {
        models = defineModels(db.sequelize!, `tr${form.initial}`);
        await seed(models);
        const { Author, Book, Chapter, Tag, BookTag, Customer, Invoice } = models;
        const integerIds = { config: { global: { find_field_is_uuid: false } } };
        const scoped = { ...integerIds, plugins: [tenantScope('libraryId', tenantOf)] };
        const router = new Router();
        // The unscoped resource first: the books' scope, registered after it, still holds in its includes.
        form.register(
          router,
          'authors',
          Author,
          {
            policy: { fillable: ['name'] },
            relations: { books: { include: true }, 'books.chapters': { include: true } },
          },
          integerIds,
        );
        form.register(
          router,
          'books',
          Book,
          { policy: { fillable: ['title', 'authorId'] }, relations: { tags: { include: true }, author: {} } },
          scoped,
        );
        form.register(router, 'chapters', Chapter, { policy: { fillable: ['heading', 'bookId'] } }, scoped);
        form.register(router, 'tags', Tag, { policy: { fillable: ['label'] } }, scoped);
        form.register(router, 'book-tags', BookTag, { policy: { fillable: ['bookId', 'tagId'] } }, scoped);
        form.register(router, 'customers', Customer, { policy: { fillable: ['name'] } }, scoped);
        form.register(
          router,
          'invoices',
          Invoice,
          {
            policy: { fillable: ['title', 'customerId'] },
            relations: { customer: { include: true } },
            csv: { columns: { title: 'Title', 'customer.name': 'Customer' } },
          },
          scoped,
        );
        // The observer tells whether a search reused an earlier request's plan; the header shows it to the test.
        observeExecution(db.sequelize!, {
          searched: (ctx, { reused }) => (ctx as Koa.Context).set('x-search-plan-reused', String(reused)),
        });
        const app = new Koa();
        server = await serve(app.use(router.routes()), errors);
      });
      after(() => server?.close());

      const send = (library: string | undefined, method: string, path: string, body?: unknown) =>
        server.request(method, path, {
          headers: { ...(library && { 'x-library': library }), 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      const leaksB = (text: string) => /B-/.test(text);

      it("includes at every level hold only the request's tenant's rows, through an unscoped resource too", async () => {
        const read = await send('a', 'GET', '/authors/1?include=books.chapters');
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(
          read.body.data.books.map((book: { title: string }) => book.title),
          ['A-book'],
        );
        assert.deepEqual(
          read.body.data.books[0].chapters.map((chapter: { heading: string }) => chapter.heading),
          ['A-chapter'],
        );
        const search = await send('a', 'GET', '/authors?include=books.chapters');
        assert.equal(search.status, 200, search.text);
        assert.ok(!leaksB(search.text), search.text);
        const asB = await send('b', 'GET', '/authors/1?include=books');
        assert.deepEqual(
          asB.body.data.books.map((book: { title: string }) => book.title),
          ['B-book'],
        );
      });

      it('a request without a tenant reaches none of the scoped rows through an unscoped resource', async () => {
        const read = await send(undefined, 'GET', '/authors/1?include=books.chapters');
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body.data.books, []);
        assert.equal((await send(undefined, 'GET', '/books')).status, 403);
      });

      it('a many-to-many include holds only the tags the tenant may see, whatever the link table holds', async () => {
        const read = await send('a', 'GET', '/books/1?include=tags');
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(
          read.body.data.tags.map((tag: { label: string }) => tag.label),
          ['A-tag'],
        );
      });

      it("filters through an association never match another tenant's related rows", async () => {
        const probe = await send('a', 'GET', '/invoices?filter[customer.name][like]=B-customer');
        assert.equal(probe.status, 200, probe.text);
        assert.deepEqual(probe.body.data, []);
        assert.equal(probe.body.meta.pagination.count, 0);
        const own = await send('a', 'GET', '/invoices?filter[customer.name][like]=A-customer');
        assert.deepEqual(
          own.body.data.map((invoice: { title: string }) => invoice.title),
          ['A-own'],
        );
        const asB = await send('b', 'GET', '/invoices?filter[customer.name][like]=B-customer');
        assert.deepEqual(
          asB.body.data.map((invoice: { title: string }) => invoice.title),
          ['B-invoice'],
        );
      });

      it("sorts and includes through an association see another tenant's row as none", async () => {
        const sorted = await send('a', 'GET', '/invoices?include=customer&sort=customer.name,id');
        assert.equal(sorted.status, 200, sorted.text);
        // A-legacy's customer is B's: it sorts as no customer (NULL first) and is shown as none.
        assert.deepEqual(
          sorted.body.data.map((invoice: { title: string }) => invoice.title),
          ['A-legacy', 'A-own'],
        );
        assert.equal(sorted.body.data[0].customer, null);
        assert.ok(!leaksB(sorted.text), sorted.text);
      });

      it("the export's dot paths hold no cell of another tenant's row", async () => {
        const csv = await send('a', 'GET', '/invoices/export-csv');
        assert.equal(csv.status, 200, csv.text);
        assert.match(csv.text, /A-own,A-customer/);
        assert.match(csv.text, /A-legacy,/);
        assert.ok(!leaksB(csv.text), csv.text);
      });

      it("a foreign key to another tenant's row is a 409 naming the field, and nothing is written", async () => {
        const { Invoice, BookTag } = models;
        const invoices = await Invoice.count();
        const created = await send('b', 'POST', '/invoices', { title: 'B-new', customerId: 1 });
        assert.equal(created.status, 409, created.text);
        assert.deepEqual(
          created.body.data.map((item: { field: string; error: string }) => [item.field, item.error]),
          [['customerId', 'foreignKey']],
        );
        assert.equal(await Invoice.count(), invoices);
        const updated = await send('b', 'PATCH', '/invoices/3', { customerId: 1 });
        assert.equal(updated.status, 409, updated.text);
        assert.equal(updated.body.data[0].field, 'customerId');
        assert.equal((await Invoice.findByPk(3))?.get('customerId'), 2);
        const links = await BookTag.count();
        const tagged = await send('b', 'POST', '/book-tags', { bookId: 1, tagId: 2 });
        assert.equal(tagged.status, 409, tagged.text);
        assert.equal(tagged.body.data[0].field, 'bookId');
        assert.equal(await BookTag.count(), links);
        const own = await send('b', 'POST', '/invoices', { title: 'B-new', customerId: 2 });
        assert.equal(own.status, 201, own.text);
        await Invoice.destroy({ where: { id: own.body.data.id } });
      });

      it('a scoped search reuses its prepared plan for the same tenant only', async () => {
        const titles = (reply: { body: { data: { title: string }[] } }) =>
          reply.body.data.map((invoice) => invoice.title);
        const path = `/invoices?sort=-title&perPage=7`;
        const first = await send('a', 'GET', path);
        const again = await send('a', 'GET', path);
        const other = await send('b', 'GET', path);
        assert.deepEqual(
          [titles(first), titles(again), titles(other)],
          [['A-own', 'A-legacy'], ['A-own', 'A-legacy'], ['B-invoice']],
        );
        assert.equal(again.headers.get('x-search-plan-reused'), 'true');
        assert.equal(other.headers.get('x-search-plan-reused'), 'false');
      });

      it('a page that includes a many-to-many association sorts through a belongs-to (a subquery page)', async () => {
        const sorted = await send('a', 'GET', '/books?include=tags&sort=-author.name,id');
        assert.equal(sorted.status, 200, sorted.text);
        assert.deepEqual(
          sorted.body.data.map((book: { title: string }) => book.title),
          ['A-book'],
        );
        assert.deepEqual(Object.keys(sorted.body.data[0]).sort(), ['authorId', 'id', 'libraryId', 'tags', 'title']);
      });

      it('served every request without a server fault', () => {
        assert.deepEqual(errors, []);
      });
    });
  }
