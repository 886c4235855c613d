/**
 * The product page (`#/products/<id>/show`): the category through react-admin's ReferenceField, which reads it with
 * the provider's `getMany` (`GET /api/categories?filter[id][in]=…`, one request for every field on the screen) and
 * links to it.
 */
import {
  DateField,
  EditButton,
  NumberField,
  ReferenceField,
  Show,
  SimpleShowLayout,
  TextField,
  TopToolbar,
} from 'react-admin';
import { SoftDeleteButton } from './bulk.js';

// #region show
export function ProductShow() {
  return (
    <Show
      actions={
        <TopToolbar>
          <EditButton />
          <SoftDeleteButton />
        </TopToolbar>
      }
    >
      <SimpleShowLayout>
        <TextField source="sku" label="SKU" />
        <TextField source="name" />
        <ReferenceField source="categoryId" reference="categories" label="Category" />
        <NumberField source="price" options={{ minimumFractionDigits: 2 }} />
        <DateField source="updatedAt" label="Updated" showTime />
      </SimpleShowLayout>
    </Show>
  );
}
// #endregion show
