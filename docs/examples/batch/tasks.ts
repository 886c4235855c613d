/** Batch writes at work: tasks created, updated, soft-deleted, restored and deleted many at a time. */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { CrudController, crud, resource, type WriteData } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

export class Task extends Model<InferAttributes<Task>, InferCreationAttributes<Task>> {
  declare id: CreationOptional<number>;
  declare code: string;
  declare title: string;
  declare status: CreationOptional<string>;
  declare doneAt: CreationOptional<Date | null>;
  declare deletedAt: CreationOptional<Date | null>;
}
Task.init(
  {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    code: { type: DataTypes.STRING(20), allowNull: false, unique: true },
    title: { type: DataTypes.STRING(80), allowNull: false, validate: { len: [1, 80] } },
    status: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'open', validate: { isIn: [['open', 'done']] } },
    doneAt: DataTypes.DATE,
    deletedAt: DataTypes.DATE,
  },
  { sequelize, tableName: 'tasks', underscored: true },
);

/** Stamps `doneAt` on a task the write marks done. */
function stampDone(task: Task, data: WriteData<Task>): WriteData<Task> {
  return data.status === 'done' && task.status !== 'done' ? { ...data, doneAt: new Date() } : data;
}

// #region resource
export const tasks = resource(Task, {
  policy: { fillable: ['code', 'title', 'status'] },
  // Opens POST /tasks with an array, and PATCH /tasks, DELETE /tasks, DELETE /tasks/soft and PATCH /tasks/restore
  // with filter[...]: every record of a batch in one transaction.
  batch: true,
  hooks: {
    // Runs once per record of a batch, as for a single PATCH.
    beforeUpdate: (task, data) => stampDone(task, data),
  },
});
// #endregion resource

// #region controller
/** The class form declares the same with a field. */
export class TaskController extends CrudController.for(Task) {
  override fillable = ['code', 'title', 'status'] as const;
  override batch = true;

  // Runs once per record of a batch, as for a single PATCH.
  override beforeUpdate(task: Task, data: WriteData<Task>) {
    return stampDone(task, data);
  }
}
// #endregion controller

// #region app
const router = new Router({ prefix: '/api' });
// Integer ids: `{id}` is not a UUID, so `/tasks/soft` and `/tasks/restore` are planned before `/tasks/{id}`.
const config = { global: { find_field_is_uuid: false }, batch: { max_records: 500 } };
crud(router, 'tasks', tasks, { config });
crud(router, 'class-tasks', TaskController, { config });
export const app = new Koa().use(router.routes()).use(router.allowedMethods());
// #endregion app
