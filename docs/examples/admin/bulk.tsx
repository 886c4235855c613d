/**
 * The product list's bulk actions and the trash's restore buttons (../admin/App.tsx, ./trash.tsx). `products` is a
 * batch resource and the provider names it in its `batch` option, so each action on the selected rows is one request
 * in one transaction: `PATCH /api/products?filter[id][in]=…`, `DELETE /api/products/soft?…`,
 * `PATCH /api/products/restore?…`.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  BulkDeleteButton,
  BulkUpdateButton,
  Button,
  useDataProvider,
  useListContext,
  useNotify,
  useRecordContext,
  useRedirect,
  useResourceContext,
  type Identifier,
} from 'react-admin';
import type { KoaFastCrudDataProvider } from 'koa-fast-crud/react-admin';

// #region move
/**
 * react-admin's BulkUpdateButton with the category picked beside it: one `PATCH /api/products?filter[id][in]=…` with
 * `{ "categoryId": … }`, once confirmed. The choices are the options route's (`getOptions`).
 */
export function MoveToCategoryButton() {
  const provider = useDataProvider<KoaFastCrudDataProvider>();
  const { selectedIds } = useListContext();
  const { data } = useQuery({
    queryKey: ['categories', 'options', 'name'],
    queryFn: ({ signal }) => provider.getOptions('categories', { label: 'name', signal }),
    // The toolbar is there, hidden, before any row is selected: the choices are read once one is.
    enabled: selectedIds.length > 0,
  });
  const [categoryId, setCategoryId] = useState('');
  return (
    <>
      <select
        aria-label="Move to category"
        value={categoryId}
        onChange={(event) => setCategoryId(event.target.value)}
        style={{ marginRight: 4, padding: 4 }}
      >
        <option value="">Category…</option>
        {(data?.data ?? []).map(({ label, value }) => (
          <option key={String(value)} value={String(value)}>
            {String(label)}
          </option>
        ))}
      </select>
      <BulkUpdateButton
        label="Move"
        data={{ categoryId }}
        disabled={categoryId === ''}
        mutationMode="pessimistic"
      />
    </>
  );
}
// #endregion move

// #region trash
/**
 * A call of the provider's soft-delete or restore methods with react-admin's usual side effects: a notification, the
 * resource's lists read again (not the record shown, which a soft delete takes out of reach), the selection cleared.
 */
function useTrashAction(
  run: (provider: KoaFastCrudDataProvider, resource: string) => Promise<unknown>,
  done: string,
  after?: () => void,
) {
  const provider = useDataProvider<KoaFastCrudDataProvider>();
  const resource = useResourceContext()!;
  const notify = useNotify();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => run(provider, resource),
    onSuccess: async () => {
      notify(done, { type: 'info' });
      after?.();
      await queryClient.invalidateQueries({ queryKey: [resource, 'getList'] });
    },
    onError: (error: Error) => notify(error.message, { type: 'error' }),
  });
}

/** Soft-deletes the selected rows: `softDeleteMany`, one `DELETE /api/products/soft?filter[id][in]=…`. */
export function BulkSoftDeleteButton() {
  const { selectedIds, onUnselectItems } = useListContext();
  const ids: Identifier[] = selectedIds;
  const { mutate, isPending } = useTrashAction(
    (provider, resource) => provider.softDeleteMany(resource, { ids }),
    `${ids.length} moved to the trash`,
    () => onUnselectItems(true),
  );
  return <Button label="Move to trash" onClick={() => mutate()} disabled={isPending} />;
}

/** Restores the selected rows of the trash: `restoreMany`, one `PATCH /api/products/restore?filter[id][in]=…`. */
export function BulkRestoreButton() {
  const { selectedIds, onUnselectItems } = useListContext();
  const ids: Identifier[] = selectedIds;
  const { mutate, isPending } = useTrashAction(
    (provider, resource) => provider.restoreMany(resource, { ids }),
    `${ids.length} restored`,
    () => onUnselectItems(true),
  );
  return <Button label="Restore" onClick={() => mutate()} disabled={isPending} />;
}

/** Restores one row of the trash: `restore`, `PATCH /api/products/<id>/restore`. */
export function RestoreButton() {
  const record = useRecordContext();
  const { mutate, isPending } = useTrashAction(
    (provider, resource) => provider.restore(resource, { id: record!.id }),
    'Restored',
  );
  return (
    <Button
      label="Restore"
      onClick={(event) => {
        event.stopPropagation();
        mutate();
      }}
      disabled={isPending || !record}
    />
  );
}

/** Soft-deletes the record shown, then goes back to the list: `softDelete`, `DELETE /api/products/<id>/soft`. */
export function SoftDeleteButton() {
  const record = useRecordContext();
  const redirect = useRedirect();
  const resource = useResourceContext()!;
  const { mutate, isPending } = useTrashAction(
    (provider) => provider.softDelete(resource, { id: record!.id }),
    'Moved to the trash',
    () => redirect('list', resource),
  );
  return <Button label="Move to trash" onClick={() => mutate()} disabled={isPending || !record} />;
}
// #endregion trash

/** The product list's bulk actions: move to a category, move to the trash, delete for good (each one request). */
export function ProductBulkActions() {
  return (
    <>
      <MoveToCategoryButton />
      <BulkSoftDeleteButton />
      <BulkDeleteButton mutationMode="pessimistic" />
    </>
  );
}
