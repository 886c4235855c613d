/** Live updates at work: a notes resource whose every committed write is streamed to subscribers as an event. */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { CrudController, crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export class Note extends Model<InferAttributes<Note>, InferCreationAttributes<Note>> {
  declare id: CreationOptional<number>;
  declare title: string;
  declare deletedAt: CreationOptional<Date | null>;
}
Note.init(
  {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    title: { type: DataTypes.STRING(80), allowNull: false },
    deletedAt: DataTypes.DATE,
  },
  { sequelize, tableName: 'notes', underscored: true },
);

// #region resource
export const notes = resource(Note, {
  policy: { fillable: ['title'] },
  // Opens GET /notes/changes, and makes every write of a note record its event in the outbox.
  live: true,
});
// #endregion resource

// #region controller
/** The class form declares the same with a field. */
export class NoteController extends CrudController.for(Note) {
  override fillable = ['title'] as const;
  override live = true;
}
// #endregion controller

// #region app
const router = new Router({ prefix: '/api' });
const config = { global: { find_field_is_uuid: false }, live: { heartbeat_s: 20 } };
crud(router, 'notes', notes, { config });
crud(router, 'class-notes', NoteController, { config });
export const app = new Koa().use(router.routes()).use(router.allowedMethods());
// #endregion app

// #region outbox
/**
 * Registering a live resource defined the outbox model on the app's Sequelize instance: `sync()` creates its table
 * with the app's own, and a migration can create it from the model's definition.
 */
export async function createTables(): Promise<void> {
  await sequelize.sync();
  const Change = sequelize.models['FastCrudChange']!;
  console.assert(Change.getTableName() === 'fast_crud_changes');
}
// #endregion outbox
