import { app, Category, sequelize } from './app.js';

await sequelize.sync();
await Category.bulkCreate([{ name: 'Books' }, { name: 'Garden' }]);
app.listen(3000, () => console.log('Try http://localhost:3000/api/categories/options?label=name'));
