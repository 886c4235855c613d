/**
 * docs/guide/errors.md: what a client receives when a hook throws, and when the body is too
 * large. Runs top to bottom on import (spec/docs/errors-page.spec.ts imports it); every reply
 * shown is checked with assert.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { DataTypes, Sequelize } from 'sequelize';
import { CrudController, clientError, crud } from 'koa-fast-crud';

const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
const Note = sequelize.define('Note', {
  id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
  title: { type: DataTypes.STRING, allowNull: false },
});

// #region controller
class NoteController extends CrudController {
  override fillable = ['title'];
  modelClassName() {
    return Note;
  }

  override beforeCreate(data: Record<string, unknown>) {
    switch (data['title']) {
      case 'taken': // an http-errors error: its status, and the status's name as the code
        this.ctx.throw(409, 'Name taken');
      case 'locked': // your own code and field
        throw clientError(423, 'notesLocked', 'Notes are read-only today', 'title');
      case 'bug': // anything else: a bare 500
        throw new Error('relation "notes_archive" does not exist');
    }
  }
}

const router = new Router();
crud(router, 'notes', NoteController, { config: { global: { body_limit: 64 } } });

const app = new Koa().use(router.routes());
const reported: Error[] = [];
app.on('error', (err: Error) => reported.push(err)); // where a 500's cause goes
// #endregion controller

await sequelize.sync();
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes`;

/** POSTs a JSON body; resolves to the status and the parsed reply. */
async function post(body: unknown): Promise<[number, unknown]> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return [res.status, await res.json()];
}

try {
  // #region hook-replies
  assert.deepEqual(await post({ title: 'taken' }), [
    409,
    { status: 'fail', data: [{ field: null, error: 'conflict', message: 'Name taken' }], meta: {} },
  ]);

  assert.deepEqual(await post({ title: 'locked' }), [
    423,
    { status: 'fail', data: [{ field: 'title', error: 'notesLocked', message: 'Notes are read-only today' }], meta: {} },
  ]);

  // The client learns nothing of the fault; the app's error listener gets the error itself.
  assert.deepEqual(await post({ title: 'bug' }), [500, { status: 'error', message: 'Internal Server Error' }]);
  assert.equal(reported[0]?.message, 'relation "notes_archive" does not exist');
  // #endregion hook-replies

  // #region too-large
  // A body over global.body_limit (64 bytes in this app, 1 MiB by default).
  assert.deepEqual(await post({ title: 'x'.repeat(100) }), [
    413,
    { status: 'fail', data: [{ field: 'body', error: 'contentTooLarge', message: 'The body is larger than 64 bytes' }], meta: {} },
  ]);
  // #endregion too-large
} finally {
  await new Promise((resolve) => server.close(resolve));
  await sequelize.close();
}
