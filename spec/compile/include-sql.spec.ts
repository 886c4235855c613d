/** includesFor: the includes an export's dot paths need, as values and as SQL on every dialect (offline snapshots). */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Includeable } from 'sequelize';
import { includesFor } from '../../lib/compile/include.js';
import { defineCatalog } from '../support/catalog.js';
import { snapshotFile } from '../support/snapshots.js';
import { DIALECTS, offlineSequelize, selectSql } from '../support/sql.js';

/** The catalog, with a paranoid association (Product → Note) beside the deleted-at one (Product → Category). */
function catalogOn(dialect: (typeof DIALECTS)[number]) {
  const catalog = defineCatalog(offlineSequelize(dialect), 'sql');
  catalog.Product.belongsTo(catalog.Note, { as: 'note', foreignKey: 'categoryId', constraints: false });
  return catalog;
}

describe('includesFor', () => {
  const { Product } = catalogOn('sqlite');

  it('returns a left join per association with the named attributes, and a deleted-at is null condition for a deleted-at column', () => {
    assert.deepEqual(includesFor(Product, ['name', 'category.name'], 'deleted_at'), [
      { association: 'category', attributes: ['name'], required: false, include: [], where: { deletedAt: null } },
    ]);
  });

  it('returns no condition of its own for a paranoid model (Sequelize adds it), nor for a model without the deleted-at field', () => {
    assert.deepEqual(includesFor(Product, ['note.title'], 'deleted_at'), [
      { association: 'note', attributes: ['title'], required: false, include: [] },
    ]);
    // The deleted-at field defaults to the configuration's default, deleted_at.
    assert.deepEqual(includesFor(Product, ['category.name']), [
      { association: 'category', attributes: ['name'], required: false, include: [], where: { deletedAt: null } },
    ]);
    assert.deepEqual(includesFor(Product, ['category.name'], 'archived_at'), [
      { association: 'category', attributes: ['name'], required: false, include: [] },
    ]);
  });

  it('returns nothing for a path through an unknown association', () => {
    assert.deepEqual(includesFor(Product, ['maker.name', 'name'], 'deleted_at'), []);
  });
});

for (const dialect of DIALECTS) {
  describe(`includesFor on ${dialect} (offline)`, () => {
    const { Product } = catalogOn(dialect);
    const snapshots = snapshotFile(new URL(`__snapshots__/include-sql.${dialect}.json`, import.meta.url).pathname);
    after(() => snapshots.finish());
    const cases: Record<string, () => Includeable[]> = {
      'category name, soft-deleted categories left out of the join': () =>
        includesFor(Product, ['sku', 'category.name'], 'deleted_at'),
      'paranoid note title, destroyed notes left out of the join': () =>
        includesFor(Product, ['sku', 'note.title'], 'deleted_at'),
    };

    for (const [name, make] of Object.entries(cases)) {
      it(`compiles the ${name} to its snapshot (a left join, the condition in ON)`, async () => {
        const sql = await selectSql(Product, {
          attributes: ['sku'],
          include: make(),
          where: { deletedAt: null },
          order: [['id', 'ASC']],
          limit: 2,
        });
        assert.match(sql, /LEFT OUTER JOIN/);
        snapshots.match(name, sql);
      });
    }
  });
}
