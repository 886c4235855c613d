/**
 * The products' trash at `#/products/trash`: the soft-deleted rows (`filter[deletedAt][nn]=1`), restored one by one
 * or together. A list outside the `products` Resource, on its own route, with its own store key so that its page,
 * sort and selection are not the product list's.
 */
import {
  Button,
  CreateButton,
  Datagrid,
  DateField,
  ExportButton,
  LinkBase,
  List,
  NumberField,
  ReferenceField,
  TextField,
  TopToolbar,
} from 'react-admin';
import { BulkRestoreButton, RestoreButton } from './bulk.js';

/** The trash's route, under the products' own. */
export const TRASH_PATH = '/products/trash';

/** The product list's top toolbar: react-admin's two default buttons, and a link to the trash. */
export function ProductListActions() {
  return (
    <TopToolbar>
      <CreateButton />
      <ExportButton />
      <Button component={LinkBase} label="Trash" to={TRASH_PATH} />
    </TopToolbar>
  );
}

// #region trash
/** `deletedAt_nn: true` is the provider's `filter[deletedAt][nn]=1`: the trash only (see the filtering guide). */
export function ProductTrash() {
  return (
    <List
      resource="products"
      storeKey="products.trash"
      title="Products in the trash"
      filter={{ deletedAt_nn: true }}
      sort={{ field: 'name', order: 'ASC' }}
      perPage={5}
      disableSyncWithLocation
      actions={
        <TopToolbar>
          <Button component={LinkBase} label="Back to products" to="/products" />
        </TopToolbar>
      }
    >
      <Datagrid bulkActionButtons={<BulkRestoreButton />} rowClick={false}>
        <TextField source="sku" label="SKU" />
        <TextField source="name" />
        <ReferenceField source="categoryId" reference="categories" label="Category" sortable={false} />
        <NumberField source="price" options={{ minimumFractionDigits: 2 }} />
        <DateField source="deletedAt" label="Deleted" showTime />
        <RestoreButton />
      </Datagrid>
    </List>
  );
}
// #endregion trash
