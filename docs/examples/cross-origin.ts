/**
 * An API that a single-page app on another origin calls with `fetch`: `cors.origins` names that
 * origin once, for CORS and for the cross-site refusal. spec/browser/cross-origin.spec.ts runs it in
 * Chromium, from the trusted origin and from another one.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, type Sequelize } from 'sequelize';
import { createFastCrud, notFound, resource } from 'koa-fast-crud';

/** The API on `sequelize`, trusting the origin the admin app is served from (`https://admin.example.com`). */
export function crossOriginApi(sequelize: Sequelize, adminOrigin: string) {
  const Note = sequelize.define('Note', {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    title: DataTypes.STRING(80),
  }, { tableName: 'notes', timestamps: false });

  // #region cors
  const { crud } = createFastCrud({
    // The origins browsers may call the API from, as they send them: scheme, host, port.
    // credentials: true when the API reads cookies or HTTP authentication.
    config: { cors: { origins: [adminOrigin], credentials: true } },
  });
  const router = new Router({ prefix: '/api' });
  crud(router, 'notes', resource(Note, { policy: { fillable: ['title'] } }));

  // allowedMethods() answers OPTIONS that are no preflight; notFound() answers 404 and 405 as JSend.
  const app = new Koa().use(router.routes()).use(router.allowedMethods()).use(notFound());
  // #endregion cors
  return { app, Note };
}
