/**
 * Relational writes (issue 22, item 4): a belongs-to-many opened with `write: true` takes `"tags": [1, 3]` (set) or
 * `{ "add": [..], "remove": [..] }` on create and update, in the write's transaction; a has-many opened with `write`
 * and `fillable` takes nested rows on create. Unknown ids, another tenant's rows and soft-deleted rows name
 * `tags.<index>`, and nothing is written. Included tags carry no link-table object.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { clientError, tenantScope } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

function defineModels(sequelize: Sequelize, prefix: string) {
  const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true };
  const libraryId = { type: DataTypes.STRING(8), allowNull: false };
  const define = (name: string, attributes: Parameters<Sequelize['define']>[1]) =>
    sequelize.define(
      `${prefix}${name}`,
      { id, ...attributes },
      { underscored: true, timestamps: false, tableName: `${prefix}_${name.toLowerCase()}s` },
    );
  const Book = define('Book', { libraryId, title: DataTypes.STRING(40) });
  const Tag = define('Tag', { libraryId, label: DataTypes.STRING(40), deletedAt: DataTypes.DATE });
  const BookTag = define('BookTag', { libraryId, bookId: DataTypes.INTEGER, tagId: DataTypes.INTEGER });
  const Line = define('Line', {
    bookId: { type: DataTypes.INTEGER, allowNull: false },
    sku: { type: DataTypes.STRING(8), allowNull: false, validate: { len: [2, 8] } },
    quantity: { type: DataTypes.INTEGER, allowNull: false, validate: { min: 1 } },
    price: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  const loose = { constraints: false };
  Book.belongsToMany(Tag, { as: 'tags', through: BookTag, foreignKey: 'bookId', otherKey: 'tagId', ...loose });
  Book.hasMany(Line, { as: 'lines', foreignKey: 'bookId', ...loose });
  return { Book, Tag, BookTag, Line };
}

const tenantOf = (ctx: { get(name: string): string }) => ctx.get('x-library') || undefined;

for (const db of databases)
  for (const form of FORMS) {
    describe(`relational writes (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      let server: TestServer;
      let models: ReturnType<typeof defineModels>;
      const errors: unknown[] = [];
      const seen: unknown[] = [];

      before(async () => {
        models = defineModels(db.sequelize!, `rw${form.initial}`);
        const { Book, Tag, BookTag, Line } = models;
        for (const model of [Book, Tag, BookTag, Line]) await model.sync({ force: true });
        await Tag.bulkCreate([
          { libraryId: 'a', label: 'red' },
          { libraryId: 'a', label: 'blue' },
          { libraryId: 'b', label: 'B-tag' },
          { libraryId: 'a', label: 'old', deletedAt: new Date('2020-01-01T00:00:00Z') },
        ]);
        const scoped = {
          config: { global: { find_field_is_uuid: false } },
          plugins: [tenantScope('libraryId', tenantOf)],
        };
        const router = new Router();
        form.register(
          router,
          'books',
          Book,
          {
            policy: { fillable: ['title'] },
            relations: {
              tags: { include: true, write: true },
              lines: { include: true, write: true, fillable: ['sku', 'quantity'] },
            },
            hooks: {
              beforeCreate: (data) => void seen.push(data),
              beforeUpdate: (_record, data) => void seen.push(data),
              afterCreate: (record) => {
                if (record.get('title') === 'Boom') throw clientError(422, 'refused', 'No booms');
              },
            },
          },
          scoped,
        );
        form.register(
          router,
          'closed-books',
          Book,
          { policy: { fillable: ['title'] }, relations: { tags: { include: true }, lines: {} } },
          scoped,
        );
        form.register(
          router,
          'batch-books',
          Book,
          { policy: { fillable: ['title'] }, batch: true, relations: { tags: { write: true } } },
          scoped,
        );
        form.register(router, 'tags', Tag, { policy: { fillable: ['label'] } }, scoped);
        form.register(router, 'book-tags', BookTag, { policy: { fillable: ['bookId', 'tagId'] } }, scoped);
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      const send = (method: string, path: string, body?: unknown, library = 'a') =>
        server.request(method, path, {
          headers: { 'x-library': library, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      const linksOf = async (bookId: number) =>
        (await models.BookTag.findAll({ where: { bookId }, order: [['tagId', 'ASC']] })).map((row) => [
          row.get('tagId'),
          row.get('libraryId'),
        ]);
      const countOf = (model: ModelStatic<Model>, where: Record<string, unknown>) => model.count({ where });
      const fields = (body: { data: { field: string; error: string }[] }) =>
        body.data.map((item) => `${item.field}:${item.error}`);

      it('sets the links on create, in the tenant, and an include shows them without the link table', async () => {
        const created = await send('POST', '/books', { title: 'Dune', tags: [1, '2', 1] });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as number;
        assert.deepEqual(await linksOf(id), [
          [1, 'a'],
          [2, 'a'],
        ]);
        const read = await send('GET', `/books/${id}?include=tags`);
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body.data.tags.map((tag: { label: string }) => tag.label).sort(), ['blue', 'red']);
        for (const tag of read.body.data.tags)
          assert.deepEqual(Object.keys(tag).sort(), ['deletedAt', 'id', 'label', 'libraryId']);
        const search = await send('GET', `/books?include=tags&filter[id]=${id}`);
        assert.equal(search.status, 200, search.text);
        assert.ok(!search.text.includes('BookTag'), search.text);
      });

      it('an include of a belongs-to-many carries no link-table object, on read and search', async () => {
        const { Book, BookTag } = models;
        const book = await Book.create({ libraryId: 'a', title: 'Linked by hand' });
        const id = book.get('id') as number;
        await BookTag.create({ libraryId: 'a', bookId: id, tagId: 2 });
        const read = await send('GET', `/books/${id}?include=tags`);
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body.data.tags, [{ id: 2, libraryId: 'a', label: 'blue', deletedAt: null }]);
        const search = await send('GET', `/books?include=tags&filter[id]=${id}`);
        assert.equal(search.status, 200, search.text);
        assert.deepEqual(search.body.data[0].tags, [{ id: 2, libraryId: 'a', label: 'blue', deletedAt: null }]);
      });

      it('an update sets the links to exactly the ids sent, or adds and removes some; tags alone are a write', async () => {
        const created = await send('POST', '/books', { title: 'Emma', tags: [1] });
        const id = created.body.data.id as number;
        const set = await send('PATCH', `/books/${id}`, { tags: [2] });
        assert.equal(set.status, 200, set.text);
        assert.deepEqual(await linksOf(id), [[2, 'a']]);
        const change = await send('PATCH', `/books/${id}`, { tags: { add: [1], remove: [2] } });
        assert.equal(change.status, 200, change.text);
        assert.deepEqual(await linksOf(id), [[1, 'a']]);
        const cleared = await send('PUT', `/books/${id}`, { title: 'Emma II', tags: [] });
        assert.equal(cleared.status, 200, cleared.text);
        assert.equal(cleared.body.data.title, 'Emma II');
        assert.deepEqual(await linksOf(id), []);
        const alone = await send('POST', '/books', { tags: [2] });
        assert.equal(alone.status, 201, alone.text);
        assert.deepEqual(await linksOf(alone.body.data.id as number), [[2, 'a']]);
      });

      it('an unknown id names tags.<index> and writes nothing, on create and on update', async () => {
        const created = await send('POST', '/books', { title: 'Ghost', tags: [1, 99] });
        assert.equal(created.status, 409, created.text);
        assert.deepEqual(fields(created.body), ['tags.1:foreignKey']);
        assert.equal(await countOf(models.Book, { title: 'Ghost' }), 0);
        const book = await send('POST', '/books', { title: 'Kept', tags: [1] });
        const id = book.body.data.id as number;
        const updated = await send('PATCH', `/books/${id}`, { title: 'Changed', tags: { add: [2, 77], remove: [1] } });
        assert.equal(updated.status, 409, updated.text);
        assert.deepEqual(fields(updated.body), ['tags.add.1:foreignKey']);
        assert.equal(await countOf(models.Book, { title: 'Kept' }), 1);
        assert.deepEqual(await linksOf(id), [[1, 'a']]);
      });

      it("another tenant's tag and a soft-deleted tag are ids that find nothing", async () => {
        const other = await send('POST', '/books', { title: 'Spy', tags: [3] });
        assert.equal(other.status, 409, other.text);
        assert.deepEqual(fields(other.body), ['tags.0:foreignKey']);
        const trashed = await send('POST', '/books', { title: 'Relic', tags: [2, 4] });
        assert.equal(trashed.status, 409, trashed.text);
        assert.deepEqual(fields(trashed.body), ['tags.1:foreignKey']);
        assert.equal(await countOf(models.Book, { title: ['Spy', 'Relic'] }), 0);
        const asB = await send('POST', '/books', { title: 'B-book', tags: [3] }, 'b');
        assert.equal(asB.status, 201, asB.text);
        assert.deepEqual(await linksOf(asB.body.data.id as number), [[3, 'b']]);
      });

      it("setting the links keeps those to another tenant's row and to a soft-deleted row", async () => {
        const { Book, BookTag } = models;
        const book = await Book.create({ libraryId: 'a', title: 'Legacy' });
        const id = book.get('id') as number;
        await BookTag.bulkCreate([
          { libraryId: 'a', bookId: id, tagId: 2 },
          { libraryId: 'b', bookId: id, tagId: 3 },
          { libraryId: 'a', bookId: id, tagId: 4 },
        ]);
        const set = await send('PATCH', `/books/${id}`, { tags: [1] });
        assert.equal(set.status, 200, set.text);
        assert.deepEqual(await linksOf(id), [
          [1, 'a'],
          [3, 'b'],
          [4, 'a'],
        ]);
      });

      it("a hook's throw after the links were written rolls them back with the record", async () => {
        const before = await models.BookTag.count();
        const boom = await send('POST', '/books', { title: 'Boom', tags: [1, 2], lines: [{ sku: 'X1', quantity: 1 }] });
        assert.equal(boom.status, 422, boom.text);
        assert.equal(await countOf(models.Book, { title: 'Boom' }), 0);
        assert.equal(await models.BookTag.count(), before);
        assert.equal(await countOf(models.Line, { sku: 'X1' }), 0);
      });

      it('a bad shape is a 400 naming the field', async () => {
        const scalar = await send('POST', '/books', { title: 'Bad', tags: 'red' });
        assert.equal(scalar.status, 400, scalar.text);
        assert.deepEqual(fields(scalar.body), ['tags:invalidValue']);
        const item = await send('POST', '/books', { title: 'Bad', tags: [1, { id: 2 }, 'x'] });
        assert.equal(item.status, 400, item.text);
        assert.deepEqual(fields(item.body), ['tags.1:type', 'tags.2:type']);
        const keys = await send('PATCH', '/books/1', { tags: { set: [1] } });
        assert.equal(keys.status, 400, keys.text);
        assert.deepEqual(fields(keys.body), ['tags:invalidValue']);
        assert.equal(await countOf(models.Book, { title: 'Bad' }), 0);
      });

      it('creates nested has-many rows limited to their fillable list, with the parent key', async () => {
        const created = await send('POST', '/books', {
          title: 'Ledger',
          lines: [
            { sku: 'A1', quantity: 2, price: 999, bookId: 12345 },
            { sku: 'B2', quantity: 5 },
          ],
        });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as number;
        const lines = await models.Line.findAll({ where: { bookId: id }, order: [['sku', 'ASC']] });
        assert.deepEqual(
          lines.map((line) => [line.get('sku'), line.get('quantity'), line.get('price')]),
          [
            ['A1', 2, 0],
            ['B2', 5, 0],
          ],
        );
        const read = await send('GET', `/books/${id}?include=lines`);
        assert.equal(read.body.data.lines.length, 2, read.text);
      });

      it("nested rows' errors name lines.<index>.<field>, and nothing is written", async () => {
        const typed = await send('POST', '/books', { title: 'Typo', lines: [{ sku: 'A1', quantity: 'two' }, 'x'] });
        assert.equal(typed.status, 400, typed.text);
        assert.deepEqual(fields(typed.body), ['lines.0.quantity:type', 'lines.1:invalidValue']);
        const validated = await send('POST', '/books', {
          title: 'Invalid',
          tags: [1],
          lines: [
            { sku: 'A1', quantity: 2 },
            { sku: 'B2', quantity: 0 },
          ],
        });
        assert.equal(validated.status, 400, validated.text);
        assert.deepEqual(fields(validated.body), ['lines.1.quantity:min']);
        assert.equal(await countOf(models.Book, { title: ['Typo', 'Invalid'] }), 0);
        assert.equal(await countOf(models.Line, { sku: 'A1', quantity: 2 }), 1);
      });

      it('an update that writes a has-many is a 400 naming it', async () => {
        const book = await send('POST', '/books', { title: 'Fixed' });
        const id = book.body.data.id as number;
        const updated = await send('PATCH', `/books/${id}`, { title: 'Moved', lines: [{ sku: 'C3', quantity: 1 }] });
        assert.equal(updated.status, 400, updated.text);
        assert.deepEqual(fields(updated.body), ['lines:invalidValue']);
        assert.equal(await countOf(models.Book, { title: 'Moved' }), 0);
      });

      it('the write hooks see the relational fields as sent', async () => {
        seen.length = 0;
        const created = await send('POST', '/books', { title: 'Seen', tags: [2], lines: [{ sku: 'S1', quantity: 1 }] });
        assert.equal(created.status, 201, created.text);
        await send('PATCH', `/books/${created.body.data.id}`, { tags: { add: [1] } });
        assert.deepEqual(seen, [
          { title: 'Seen', tags: [2], lines: [{ sku: 'S1', quantity: 1 }] },
          { tags: { add: [1] } },
        ]);
        assert.deepEqual(errors, []);
      });

      it('an association not opened for writing is dropped from the body, as a field that is not fillable', async () => {
        const created = await send('POST', '/closed-books', { title: 'Closed', tags: [1], lines: [{ sku: 'Z9' }] });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as number;
        assert.deepEqual(await linksOf(id), []);
        assert.equal(await countOf(models.Line, { bookId: id }), 0);
      });

      it('a form body writes links too, its ids as text', async () => {
        const created = await server.request('POST', '/books', {
          headers: { 'x-library': 'a', 'content-type': 'application/x-www-form-urlencoded' },
          body: 'title=Form&tags[]=1&tags[]=2',
        });
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(await linksOf(created.body.data.id as number), [
          [1, 'a'],
          [2, 'a'],
        ]);
      });

      it('a batch write refuses an association it would not write, naming it, and writes nothing', async () => {
        const before = await countOf(models.Book, { libraryId: 'a' });
        const many = await send('POST', '/batch-books', [{ title: 'One' }, { title: 'Two', tags: [1] }]);
        assert.equal(many.status, 400, many.text);
        assert.deepEqual(fields(many.body), ['1.tags:invalidValue']);
        assert.equal(await countOf(models.Book, { libraryId: 'a' }), before);
        const patched = await send('PATCH', '/batch-books?filter[title]=One', { tags: [1] });
        assert.equal(patched.status, 400, patched.text);
        assert.deepEqual(fields(patched.body), ['tags:invalidValue']);
      });

      it('registration refuses a has-many without fillable, a belongs-to and a deeper path', () => {
        const { Book, Line } = models;
        Line.belongsTo(Book, { as: `book${form.initial}`, foreignKey: 'bookId', constraints: false });
        assert.throws(
          () =>
            form.register(new Router(), 'b', Book, {
              policy: { fillable: ['title'] },
              relations: { lines: { write: true } },
            }),
          /relations\.lines opens a has-many for writing without fillable/,
        );
        assert.throws(
          () =>
            form.register(new Router(), 'l', Line, {
              policy: { fillable: ['sku'] },
              relations: { [`book${form.initial}`]: { write: true } },
            }),
          /opens belongs-to-many and has-many associations/,
        );
        assert.throws(
          () =>
            form.register(new Router(), 'b', Book, {
              policy: { fillable: ['title'] },
              relations: { lines: { write: true, fillable: ['sku', 'bookId'] } },
            }),
          /names 'bookId', the foreign key/,
        );
      });
    });
  }
