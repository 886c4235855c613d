/**
 * The admin's live lists: react-admin's open-source packages have no realtime hooks (ra-realtime is Enterprise), so
 * this hook is the demo's own, over the realtime methods the data provider gets from `koa-fast-crud/react-admin`
 * (`subscribe`/`unsubscribe` on `resource/<name>`). docs/guide/live-updates.md shows it.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useDataProvider, type DataProvider } from 'react-admin';
import type { RaRealtime } from 'koa-fast-crud/react-admin';

// #region hook
/**
 * Refetches what the page shows of `resource` (its lists, its records) whenever the change feed reports a write to
 * it, made here, in another tab or by another server process. The events carry only ids; the refetch goes through the
 * normal routes, so it sees only what this user may see.
 */
export function useLiveResource(resource: string): void {
  const dataProvider = useDataProvider<DataProvider & RaRealtime>();
  const queryClient = useQueryClient();
  useEffect(() => {
    const topic = `resource/${resource}`;
    // react-admin's query keys start with the resource: ['products', 'getList', {…}].
    const refetch = () => void queryClient.invalidateQueries({ queryKey: [resource] });
    void dataProvider.subscribe(topic, refetch);
    return () => void dataProvider.unsubscribe(topic, refetch);
  }, [dataProvider, queryClient, resource]);
}
// #endregion hook
