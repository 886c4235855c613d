/**
 * Row scopes compiled: scopeQuery keeps the query's own rows and every include to the scopes, in
 * whatever form a hook wrote the include; scopeSql is the same condition inside a subquery; and
 * referencesOf finds the foreign keys a write must check. Offline, on every dialect's SQL.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DataTypes, Op, type FindOptions, type IncludeOptions, type Model, type ModelStatic } from 'sequelize';
import { referencesOf } from '../../lib/actions/references.js';
import { scopeQuery, scopeSql, scopeWhere } from '../../lib/compile/row-scope.js';
import type { RowScopes } from '../../lib/types.js';
import { DIALECTS, offlineSequelize, selectSql, type Dialect } from '../support/sql.js';

function library(dialect: Dialect) {
  const sequelize = offlineSequelize(dialect);
  const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true };
  const plain = { underscored: true, timestamps: false };
  const libraryId = DataTypes.STRING(8);
  const Author = sequelize.define('RsAuthor', { id, name: DataTypes.STRING }, { ...plain, tableName: 'rs_authors' });
  const Book = sequelize.define(
    'RsBook',
    { id, libraryId, title: DataTypes.STRING, authorId: DataTypes.INTEGER },
    { ...plain, tableName: 'rs_books' },
  );
  const Tag = sequelize.define('RsTag', { id, libraryId, label: DataTypes.STRING }, { ...plain, tableName: 'rs_tags' });
  const BookTag = sequelize.define(
    'RsBookTag',
    { id, libraryId, bookId: DataTypes.INTEGER, tagId: DataTypes.INTEGER },
    { ...plain, tableName: 'rs_book_tags' },
  );
  const Note = sequelize.define(
    'RsNote',
    { id, bookId: { type: DataTypes.INTEGER, references: { model: 'rs_books', key: 'id' } }, text: DataTypes.STRING },
    { ...plain, tableName: 'rs_notes' },
  );
  Author.hasMany(Book, { as: 'books', foreignKey: 'authorId', constraints: false });
  Book.belongsTo(Author, { as: 'author', foreignKey: 'authorId', constraints: false });
  Book.belongsToMany(Tag, {
    as: 'tags',
    through: BookTag,
    foreignKey: 'bookId',
    otherKey: 'tagId',
    constraints: false,
  });
  const scopes: RowScopes = new Map<ModelStatic<Model>, { attribute: string; values: unknown[] }[]>([
    [Book, [{ attribute: 'libraryId', values: ['a'] }]],
    [Tag, [{ attribute: 'libraryId', values: ['a'] }]],
    [BookTag, [{ attribute: 'libraryId', values: ['a'] }]],
  ]);
  return { Author, Book, Tag, BookTag, Note, scopes };
}

const { Author, Book, Tag, BookTag, Note, scopes } = library('sqlite');
const bookScope = scopeWhere(Book, scopes);

describe('scopeQuery', () => {
  it('leaves a query alone when nothing is scoped', () => {
    const query: FindOptions = { where: { name: 'x' }, include: ['books'] };
    assert.equal(scopeQuery(Author, query, new Map()), query);
  });

  it("ANDs the model's own scope after whatever the query's where says, so a widening OR stays inside it", () => {
    const widened = { [Op.or]: [{ title: 'A' }, { libraryId: 'b' }] };
    assert.deepEqual(scopeQuery(Book, { where: widened }, scopes).where, { [Op.and]: [widened, bookScope] });
    assert.deepEqual(scopeQuery(Book, {}, scopes).where, bookScope);
  });

  it('scopes an include however a hook names it, and keeps it optional', () => {
    const association = Author.associations['books']!;
    for (const include of [
      'books',
      Book,
      association,
      { association: 'books' },
      { model: Book, as: 'books' },
      { all: true as const },
    ]) {
      const [scoped] = scopeQuery(Author, { include: [include] }, scopes).include as IncludeOptions[];
      assert.deepEqual(scoped!.where, bookScope, `include ${String(include)}`);
      assert.equal(scoped!.required, false, `include ${String(include)}`);
    }
  });

  it("keeps an include's own where and required, and scopes nested includes and the link table", () => {
    const [books] = scopeQuery(
      Author,
      { include: [{ association: 'books', where: { title: 'A' }, include: [{ association: 'tags' }] }] },
      scopes,
    ).include as IncludeOptions[];
    assert.deepEqual(books!.where, { [Op.and]: [{ title: 'A' }, bookScope] });
    assert.equal(books!.required, true, 'an include with a where of its own was required: it stays so');
    const [tags] = books!.include as IncludeOptions[];
    assert.deepEqual(tags!.where, scopeWhere(Tag, scopes));
    assert.deepEqual((tags!.through as { where: unknown }).where, scopeWhere(BookTag, scopes));
  });

  it('refuses { all: true, nested: true }, which it cannot follow', () => {
    assert.throws(
      () => scopeQuery(Author, { include: [{ all: true, nested: true }] }, scopes),
      /name the associations/,
    );
  });

  it('never changes the query it is given (any where, any include form)', () => {
    const includeArb = fc.constantFrom<FindOptions['include']>(
      'books',
      [{ association: 'books', include: ['tags'] }],
      [{ all: true }],
      undefined,
    );
    fc.assert(
      fc.property(fc.option(fc.record({ title: fc.string() }), { nil: undefined }), includeArb, (where, include) => {
        const query: FindOptions = { ...(where && { where }), ...(include && { include }) };
        const before = JSON.stringify(query);
        scopeQuery(Author, query, scopes);
        assert.equal(JSON.stringify(query), before);
      }),
    );
  });
});

for (const dialect of DIALECTS) {
  describe(`row scopes in SQL on ${dialect} (offline)`, () => {
    const models = library(dialect);
    const q = (name: string) => (dialect === 'postgres' ? `"${name}"` : `\`${name}\``);

    it('puts the scope in the join of an include and in the where of the own rows', async () => {
      const sql = await selectSql(models.Author, scopeQuery(models.Author, { include: ['books'] }, models.scopes));
      assert.match(
        sql,
        new RegExp(
          `LEFT OUTER JOIN ${q('rs_books')} AS ${q('books')} ON .* AND \\(${q('books')}.${q('library_id')} = 'a'\\);$`,
        ),
      );
      const own = await selectSql(models.Book, scopeQuery(models.Book, { where: { title: 'x' } }, models.scopes));
      assert.match(
        own,
        new RegExp(
          `WHERE \\(${q('RsBook')}.${q('title')} = 'x' AND \\(${q('RsBook')}.${q('library_id')} = 'a'\\)\\);$`,
        ),
      );
    });

    it('compiles a scope without values to a condition no row meets', async () => {
      const none: RowScopes = new Map([[models.Book, [{ attribute: 'libraryId', values: [] }]]]);
      assert.match(await selectSql(models.Book, scopeQuery(models.Book, {}, none)), /WHERE \(1 = 0\);$/);
      assert.equal(scopeSql(models.Book, none, 'b1'), '((1 = 0))');
    });

    it('writes the scope of a subquery alias by column, its values escaped', () => {
      const hostile: RowScopes = new Map([[models.Book, [{ attribute: 'libraryId', values: ["a' OR 1=1 --", 'b'] }]]]);
      const sql = scopeSql(models.Book, hostile, 'books_1')!;
      assert.match(sql, new RegExp(`^\\(\\(${q('books_1')}.${q('library_id')} IN \\('a(''|\\\\')`));
      assert.equal(scopeSql(models.Author, hostile, 'a1'), undefined);
    });
  });
}

describe('referencesOf', () => {
  it("finds belongs-to keys, a link table's two keys, and attributes whose references name a table", () => {
    const pairs = (model: ModelStatic<Model>) =>
      referencesOf(model).map(({ attribute, target, targetKey }) => [attribute, target.name, targetKey]);
    assert.deepEqual(pairs(Book), [['authorId', 'RsAuthor', 'id']]);
    assert.deepEqual(pairs(BookTag), [
      ['bookId', 'RsBook', 'id'],
      ['tagId', 'RsTag', 'id'],
    ]);
    assert.deepEqual(pairs(Note), [['bookId', 'RsBook', 'id']]);
    assert.deepEqual(pairs(Author), []);
  });
});
