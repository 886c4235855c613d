/**
 * docs/guide/plugins.md: readYourWrites() for a whole app. spec/docs/plugins-page.spec.ts runs it on SQLite
 * (the commit-time window); spec/replicas/read-your-writes.spec.ts measures it on PostgreSQL hot standbys.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { createFastCrud, readYourWrites, resource } from 'koa-fast-crud';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
export const Note = sequelize.define(
  'Note',
  { id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true }, text: DataTypes.STRING(200) },
  { tableName: 'notes' },
);

// #region app
// Every resource of the app: after a write, the client's next reads see it, wherever Sequelize sends reads.
// On PostgreSQL it needs no settings; elsewhere reads go to the primary for `window` ms after a write.
const { crud } = createFastCrud({ plugins: [readYourWrites({ window: 2000 })] });

export const router = new Router({ prefix: '/api' });
crud(router, 'notes', resource(Note, { policy: { fillable: ['text'] } }));

export const app = new Koa().use(router.routes()).use(router.allowedMethods());
// #endregion app
