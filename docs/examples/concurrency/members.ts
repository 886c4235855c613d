/** docs/guide/concurrency.md: a model with Sequelize's optimistic locking, and writes that must be conditional. */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Model, Sequelize, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { crud, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });

// #region version
// Sequelize declares `version` itself, so Member.init does not list it.
export class Member extends Model<
  InferAttributes<Member, { omit: 'version' }>,
  InferCreationAttributes<Member, { omit: 'version' }>
> {
  declare id: CreationOptional<string>;
  declare name: string;
  declare version: number;
}
Member.init(
  {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    name: { type: DataTypes.STRING, allowNull: false },
  },
  // Sequelize adds the `version` column and counts every write in it; the ETag is "v<version>".
  { sequelize, tableName: 'members', version: true },
);
// #endregion version

const router = new Router({ prefix: '/api' });

// #region required
// Every update, delete, soft delete and restore of members must send If-Match: 428 without it.
crud(router, 'members', resource(Member, { policy: { fillable: ['name'] } }), {
  config: {
    update: { require_if_match: true },
    delete: { require_if_match: true },
    restore: { require_if_match: true },
  },
});
// #endregion required

export const app = new Koa().use(router.routes()).use(router.allowedMethods());
