/**
 * A two-tenant library for the tenant-boundary suite: authors, books, chapters and tags of tenants
 * `lib-a` and `lib-b` (every scoped table has a `libraryId`), a link model BookTag, and publishers
 * shared by both (no tenant column). Every text value of tenant B starts with `B-`, of tenant A
 * with `A-`; the seed plants links across tenants (as rows written before foreign keys were checked
 * would be), so that a path that is not scoped carries B's rows into A's replies.
 */
import { randomUUID } from 'node:crypto';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

/** The two tenants: A asks, B must never show. */
export const TENANT_A = 'lib-a';
export const TENANT_B = 'lib-b';

/** The scoped tables, by the URI their resource is served at. */
export type ScopedTable = 'authors' | 'books' | 'chapters' | 'tags' | 'book-tags';
export type Table = ScopedTable | 'publishers';

/** Defines the models with table names that start with `prefix` (`tbc` → `tbc_books`). */
export function defineLibrary(sequelize: Sequelize, prefix: string) {
  // Fresh attribute objects each time: Sequelize writes the column name into the one it is given.
  const id = () => ({ type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true });
  const libraryId = () => ({ type: DataTypes.STRING(20), allowNull: false });
  const text = () => ({ type: DataTypes.STRING(40), allowNull: false });
  const key = () => ({ type: DataTypes.UUID, allowNull: true });
  const options = (table: string) => ({ underscored: true, timestamps: false, tableName: `${prefix}_${table}` });
  const Publisher = sequelize.define(`${prefix}Publisher`, { id: id(), name: text() }, options('publishers'));
  const Author = sequelize.define(
    `${prefix}Author`,
    { id: id(), libraryId: libraryId(), name: text() },
    options('authors'),
  );
  const Book = sequelize.define(
    `${prefix}Book`,
    { id: id(), libraryId: libraryId(), title: text(), authorId: key(), publisherId: key() },
    options('books'),
  );
  const Chapter = sequelize.define(
    `${prefix}Chapter`,
    { id: id(), libraryId: libraryId(), title: text(), bookId: key() },
    options('chapters'),
  );
  const Tag = sequelize.define(`${prefix}Tag`, { id: id(), libraryId: libraryId(), name: text() }, options('tags'));
  const BookTag = sequelize.define(
    `${prefix}BookTag`,
    { id: id(), libraryId: libraryId(), bookId: key(), tagId: key() },
    options('book_tags'),
  );
  const loose = { constraints: false };
  Book.belongsTo(Author, { ...loose, as: 'author', foreignKey: 'authorId' });
  Author.hasMany(Book, { ...loose, as: 'books', foreignKey: 'authorId' });
  Book.belongsTo(Publisher, { ...loose, as: 'publisher', foreignKey: 'publisherId' });
  Publisher.hasMany(Book, { ...loose, as: 'books', foreignKey: 'publisherId' });
  Chapter.belongsTo(Book, { ...loose, as: 'book', foreignKey: 'bookId' });
  Book.hasMany(Chapter, { ...loose, as: 'chapters', foreignKey: 'bookId' });
  Book.belongsToMany(Tag, {
    ...loose,
    as: 'tags',
    through: { model: BookTag, unique: false },
    foreignKey: 'bookId',
    otherKey: 'tagId',
  });
  Tag.belongsToMany(Book, {
    ...loose,
    as: 'books',
    through: { model: BookTag, unique: false },
    foreignKey: 'tagId',
    otherKey: 'bookId',
  });
  BookTag.belongsTo(Book, { ...loose, as: 'book', foreignKey: 'bookId' });
  BookTag.belongsTo(Tag, { ...loose, as: 'tag', foreignKey: 'tagId' });
  const models: Record<Table, ModelStatic<Model>> = {
    publishers: Publisher,
    authors: Author,
    books: Book,
    chapters: Chapter,
    tags: Tag,
    'book-tags': BookTag,
  };
  return models;
}

/** The library's models by table. */
export type Library = ReturnType<typeof defineLibrary>;

/** One seeded row, as the database holds it. */
export type Row = Readonly<Record<string, string | null>>;

/** The seeded rows by table, and every row's id by its text (`B-Bob` → uuid; link rows by `A:A-Atlas+A-Red`). */
export interface World {
  readonly rows: Readonly<Record<Table, readonly Row[]>>;
  readonly ids: Readonly<Record<string, string>>;
}

/**
 * The rows: tenant A's and B's own, plus links across tenants in both directions: an A book by B's
 * author (A-Astray), a B book by A's author (B-Bridge), a B chapter of an A book (B-Cross-1), an A
 * chapter of a B book (A-Adrift-1), B's link of an A book with a B tag, A's link to a B tag and to a
 * B book, and B's link between two of A's rows.
 */
export function libraryWorld(): World {
  const ids: Record<string, string> = {};
  const idOf = (name: string) => (ids[name] ??= randomUUID());
  const owner = (name: string) => (name.startsWith('B-') ? TENANT_B : TENANT_A);
  const publishers = ['P-Orbit', 'P-Quill'].map((name) => ({ id: idOf(name), name }));
  const authors = ['A-Ann', 'A-Abe', 'B-Bob', 'B-Bea'].map((name) => ({
    id: idOf(name),
    libraryId: owner(name),
    name,
  }));
  const books = (
    [
      ['A-Atlas', 'A-Ann', 'P-Orbit'],
      ['A-Arc', 'A-Abe', 'P-Quill'],
      ['A-Astray', 'B-Bob', 'P-Orbit'],
      ['B-Blue', 'B-Bob', 'P-Orbit'],
      ['B-Bridge', 'A-Ann', 'P-Quill'],
      ['B-Brine', 'B-Bea', 'P-Quill'],
    ] as const
  ).map(([title, author, publisher]) => ({
    id: idOf(title),
    libraryId: owner(title),
    title,
    authorId: idOf(author),
    publisherId: idOf(publisher),
  }));
  const chapters = (
    [
      ['A-Atlas-1', 'A-Atlas'],
      ['A-Arc-1', 'A-Arc'],
      ['A-Adrift-1', 'B-Blue'],
      ['B-Blue-1', 'B-Blue'],
      ['B-Cross-1', 'A-Atlas'],
    ] as const
  ).map(([title, book]) => ({ id: idOf(title), libraryId: owner(title), title, bookId: idOf(book) }));
  const tags = ['A-Red', 'A-Green', 'B-Black', 'B-White'].map((name) => ({
    id: idOf(name),
    libraryId: owner(name),
    name,
  }));
  const bookTags = (
    [
      [TENANT_A, 'A-Atlas', 'A-Red'],
      [TENANT_A, 'A-Arc', 'A-Green'],
      [TENANT_A, 'A-Arc', 'B-White'],
      [TENANT_A, 'B-Blue', 'A-Red'],
      [TENANT_B, 'B-Blue', 'B-Black'],
      [TENANT_B, 'A-Atlas', 'B-Black'],
      [TENANT_B, 'A-Arc', 'A-Red'],
    ] as const
  ).map(([libraryId, book, tag]) => ({
    id: idOf(`${libraryId === TENANT_A ? 'A' : 'B'}:${book}+${tag}`),
    libraryId,
    bookId: idOf(book),
    tagId: idOf(tag),
  }));
  return { rows: { publishers, authors, books, chapters, tags, 'book-tags': bookTags }, ids };
}

/** Drops, creates and fills the tables with the world's rows. */
export async function seedLibrary(library: Library, world: World): Promise<void> {
  for (const [table, model] of Object.entries(library) as [Table, ModelStatic<Model>][]) {
    await model.sync({ force: true });
    await model.bulkCreate(world.rows[table].map((row) => ({ ...row })));
  }
}

/** Puts a table back as the world has it, after a write: rows it does not hold are deleted, the others rewritten. */
export async function resetTable(library: Library, world: World, table: Table): Promise<void> {
  const model = library[table];
  await model.destroy({ where: {}, force: true });
  await model.bulkCreate(world.rows[table].map((row) => ({ ...row })));
}
