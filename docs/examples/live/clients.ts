/** The live clients: react-admin's realtime methods and Refine's liveProvider over the change feed. */
import { dataProvider, realtime } from 'koa-fast-crud/react-admin';
import { liveProvider } from 'koa-fast-crud/refine';

// #region react-admin
// The data provider with subscribe/unsubscribe/publish: react-admin's realtime hooks subscribe to
// `resource/notes` (a list) and `resource/notes/<id>` (a record page).
export const provider = { ...dataProvider('/api'), ...realtime('/api') };
// #endregion react-admin

// #region refine
// <Refine dataProvider={…} liveProvider={live} options={{ liveMode: 'auto' }}>: lists refetch on every write,
// show and edit pages on their record's.
export const live = liveProvider('/api');
// #endregion refine
