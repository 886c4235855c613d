import { DataTypes } from 'sequelize';
import { BaseController, Options } from 'koa-fast-crud';
import { sequelize } from './minimal/app.js';

export const Tag = sequelize.define('Tag', { slug: DataTypes.STRING, title: DataTypes.STRING }, { tableName: 'tags' });

// Only the options action: crud() registers GET tags/options and nothing else.
export class TagController extends Options(BaseController) {
  modelClassName() {
    return Tag;
  }
}
