/**
 * Unique and foreign-key refusals answered with fields a form can use: the attribute (not the
 * column) the database names, a foreign key's column on every dialect whose driver reports it,
 * and nothing that confirms a hidden value exists elsewhere. Tables `ce<form>_authors`, `ce<form>_books`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { ResourceSpec } from '../../lib/index.js';
import { closeAll, testDatabases } from '../support/databases.js';
import { FORMS } from '../support/forms.js';
import { serve, type TestServer } from '../support/http.js';

const databases = await testDatabases();
after(() => closeAll(databases));

/** Books reference authors (a real constraint); `isbn` is unique, `serialNo` unique in the column `serial_no`, `token` unique and hidden. */
function defineModels(sequelize: Sequelize, prefix: string) {
  const Author = sequelize.define(
    `${prefix}Author`,
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      name: { type: DataTypes.STRING(60), allowNull: false },
    },
    { tableName: `${prefix}_authors`, timestamps: false },
  );
  const Book = sequelize.define(
    `${prefix}Book`,
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      title: { type: DataTypes.STRING(60), allowNull: false },
      isbn: { type: DataTypes.STRING(20), allowNull: true, unique: true },
      serialNo: { type: DataTypes.STRING(20), allowNull: true, unique: true, field: 'serial_no' },
      token: { type: DataTypes.STRING(40), allowNull: true, unique: true },
      authorId: { type: DataTypes.UUID, allowNull: true },
    },
    { tableName: `${prefix}_books`, timestamps: false },
  );
  Book.belongsTo(Author, { as: 'author', foreignKey: 'authorId', onDelete: 'RESTRICT' });
  return { Author, Book };
}

const authorSpec: ResourceSpec<Model> = { policy: { fillable: ['name'] } };
const bookSpec: ResourceSpec<Model> = {
  policy: { fillable: ['title', 'isbn', 'serialNo', 'token', 'authorId'], hidden: ['token'] },
};
const json = { 'content-type': 'application/json' };
type Item = { field: string | null; error: string; message: string };

for (const db of databases)
  for (const form of FORMS) {
    describe(`constraint errors (${form.name} form) on ${db.dialect}`, { skip: db.skip }, () => {
      const prefix = `ce${form.initial}`;
      const sequelize = db.sequelize!;
      let server: TestServer;
      const errors: unknown[] = [];
      let author = '';
      let book = '';

      before(async () => {
        const { Author, Book } = defineModels(sequelize, prefix);
        await Book.drop().catch(() => undefined);
        await Author.sync({ force: true });
        await Book.sync({ force: true });
        author = ((await Author.create({ name: 'Ursula' })) as unknown as { id: string }).id;
        book = (
          (await Book.create({
            title: 'Earthsea',
            isbn: 'I-1',
            serialNo: 'S-1',
            token: 'secret-1',
            authorId: author,
          })) as unknown as { id: string }
        ).id;
        const router = new Router();
        form.register(router, 'authors', Author, authorSpec);
        form.register(router, 'books', Book, bookSpec);
        server = await serve(new Koa().use(router.routes()), errors);
      });
      after(() => server?.close());

      const post = (uri: string, body: object) =>
        server.request('POST', uri, { headers: json, body: JSON.stringify(body) });
      const items = (body: { data: Item[] }) => body.data.map((i) => [i.field, i.error]);

      it('answers 409 unique naming the attribute, also for a column of another name (serial_no → serialNo)', async () => {
        const isbn = await post('/books', { title: 'Again', isbn: 'I-1' });
        assert.deepEqual([isbn.status, items(isbn.body)], [409, [['isbn', 'unique']]]);
        const serial = await post('/books', { title: 'Again', serialNo: 'S-1' });
        assert.deepEqual([serial.status, items(serial.body)], [409, [['serialNo', 'unique']]]);
        assert.equal(serial.body.data[0].message, 'The serialNo is already taken');
      });

      it('answers 409 unique on a hidden column without naming it or confirming that the value exists', async () => {
        const res = await post('/books', { title: 'Again', token: 'secret-1' });
        assert.deepEqual([res.status, items(res.body)], [409, [[null, 'unique']]]);
        assert.doesNotMatch(JSON.stringify(res.body), /token|secret|taken/i);
        const patched = await server.request('PATCH', `/books/${book}`, {
          headers: json,
          body: '{"token":"secret-1"}',
        });
        assert.equal(patched.status, 200, patched.text);
        const other = await post('/books', { title: 'Other', token: 'secret-2' });
        assert.equal(other.status, 201, other.text);
        const clash = await server.request('PATCH', `/books/${other.body.data.id}`, {
          headers: json,
          body: '{"token":"secret-1"}',
        });
        assert.deepEqual([clash.status, items(clash.body)], [409, [[null, 'unique']]]);
      });

      it('answers 409 foreignKey naming the column on PostgreSQL and MariaDB, which report it, and null on SQLite, which does not', async () => {
        const field = db.dialect === 'sqlite' ? null : 'authorId';
        const created = await post('/books', { title: 'Orphan', authorId: randomUUID() });
        assert.deepEqual([created.status, items(created.body)], [409, [[field, 'foreignKey']]]);
        const patched = await server.request('PATCH', `/books/${book}`, {
          headers: json,
          body: JSON.stringify({ authorId: randomUUID() }),
        });
        assert.deepEqual([patched.status, items(patched.body)], [409, [[field, 'foreignKey']]]);
      });

      it("answers 409 foreignKey with no field for a delete of a row still referenced: the column is another table's", async () => {
        const res = await server.request('DELETE', `/authors/${author}`);
        assert.deepEqual([res.status, items(res.body)], [409, [[null, 'foreignKey']]]);
      });

      it('leaves no server fault behind', () => {
        assert.deepEqual(errors, []);
      });
    });
  }
