/** Hooks at work: a products controller that joins, normalizes, refuses and audits. */
import { DataTypes, type FindOptions, type Model } from 'sequelize';
import { CrudController } from 'koa-fast-crud';
import { Product, sequelize } from './shop.js';

export const AuditEntry = sequelize.define(
  'AuditEntry',
  {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    action: { type: DataTypes.STRING(20), allowNull: false },
    recordId: { type: DataTypes.UUID, allowNull: false },
    userId: DataTypes.STRING,
  },
  { tableName: 'audit_entries', underscored: true, updatedAt: false },
);

// #region controller
export class ProductController extends CrudController {
  override fillable = ['sku', 'name', 'price', 'categoryId'];
  override termFields = ['name', 'sku'];

  modelClassName() {
    return Product;
  }

  // Lists show each product's category: the query joins it, the reply keeps it.
  override modifySearchQuery(query: FindOptions) {
    return { ...query, include: [{ association: 'category', attributes: ['id', 'name'] }] };
  }

  // SKUs are stored upper-case, whatever the client sends. Runs before the transaction begins.
  override beforeCreateFill(data: Record<string, unknown>) {
    return typeof data['sku'] === 'string' ? { ...data, sku: data['sku'].toUpperCase() } : data;
  }

  // A SKU never changes: a 409 JSend fail, and the transaction rolls back.
  override beforeUpdate(record: Model, data: Record<string, unknown>) {
    if (data['sku'] !== undefined && data['sku'] !== record.get('sku')) {
      this.ctx.throw(409, 'A SKU cannot change');
    }
  }

  // One audit entry per write, in the write's transaction: if it fails, the write is undone.
  override async afterCreate(record: Model) {
    await this.audit('create', record);
  }

  override async afterUpdate(record: Model) {
    await this.audit('update', record);
  }

  override async afterDelete(record: Model) {
    await this.audit('delete', record);
  }

  private async audit(action: string, record: Model) {
    const userId = (this.ctx.state['user'] as { id: string } | undefined)?.id ?? null;
    const entry = { action, recordId: record.get('id'), userId };
    await AuditEntry.create(entry, { transaction: this.transaction });
  }
}
// #endregion controller
