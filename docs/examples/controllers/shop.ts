/** The guide's controller examples run on the demo's models, on an in-memory SQLite database of their own. */
import { Sequelize } from 'sequelize';
import { defineDemoModels } from '../demo/models.js';

export const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
export const { Category, Product } = defineDemoModels(sequelize);
