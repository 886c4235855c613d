/**
 * The demo's react-admin app at /admin: products and categories through `koa-fast-crud/react-admin`.
 * Bundled for the browser by esbuild when the demo first serves it (see ../demo/admin.ts).
 */
import {
  Admin,
  AutocompleteInput,
  Create,
  CustomRoutes,
  Datagrid,
  Edit,
  EditButton,
  List,
  NumberField,
  NumberInput,
  ReferenceField,
  ReferenceInput,
  Resource,
  SearchInput,
  ShowButton,
  SimpleForm,
  TextField,
  TextInput,
  required,
} from 'react-admin';
import { Route } from 'react-router';
import { dataProvider, realtime } from 'koa-fast-crud/react-admin';
import { ProductBulkActions } from './bulk.js';
import { useLiveResource } from './live.js';
import { ProductShow } from './show.js';
import { ProductListActions, ProductTrash, TRASH_PATH } from './trash.js';

// #region provider
/**
 * The API under the demo's /api; the provider speaks its filters, sort, pages and JSend replies. `products` has batch
 * routes: a bulk update, delete, soft delete or restore of the selected rows is one request, in one transaction. Its
 * edits are conditional: a save sends the ETag of the product the form loaded, so a product someone changed since is
 * not overwritten. A `q` on categories (the category autocomplete's) goes to their options route, labels by `name`.
 * `realtime` adds `subscribe`/`unsubscribe` over the change feed of `products` (a `live: true` resource).
 */
const provider = {
  ...dataProvider('/api', {
    batch: ['products'],
    preconditions: ['products'],
    autocomplete: { categories: 'name' },
  }),
  ...realtime('/api'),
};
// #endregion provider

// #region list
/** `q` is the term search (name and sku); `price_gte` is `filter[price][gte]`. */
const productFilters = [
  <SearchInput key="q" source="q" alwaysOn />,
  <NumberInput key="price_gte" source="price_gte" label="Min price" alwaysOn />,
];

/**
 * Sortable columns, the two filters and pages of 5. The category column is a ReferenceField: the page's categories in
 * one `getMany`, sorted by `category.name` on the server. Selected rows are moved to a category, to the trash or
 * deleted together, each in one request (./bulk.tsx): `PATCH`, `DELETE /soft` or `DELETE /api/products?filter[id][in]=…`.
 * Live: a write to any product, from this tab, another tab or another server process, refetches the page (./live.tsx).
 */
export function ProductList() {
  useLiveResource('products');
  return (
    <List filters={productFilters} sort={{ field: 'name', order: 'ASC' }} perPage={5} actions={<ProductListActions />}>
      <Datagrid bulkActionButtons={<ProductBulkActions />} rowClick="edit">
        <TextField source="sku" label="SKU" />
        <TextField source="name" />
        <ReferenceField source="categoryId" reference="categories" label="Category" sortBy="category.name" link={false} />
        <NumberField source="price" options={{ minimumFractionDigits: 2 }} />
        <EditButton />
        <ShowButton />
      </Datagrid>
    </List>
  );
}
// #endregion list

// #region form
/**
 * The category: react-admin's ReferenceInput + AutocompleteInput, as they come. Typing sends `filter: { q }` to
 * getList, which the provider's `autocomplete` option sends to `GET /api/categories/options?label=name&q=…&limit=25`
 * (categories have no term fields); the chosen category is read back by id.
 */
function CategoryInput() {
  return (
    <ReferenceInput source="categoryId" reference="categories">
      <AutocompleteInput label="Category" optionText="name" validate={required()} />
    </ReferenceInput>
  );
}

/** The fields a product form sends: the resource's fillable ones. */
function ProductFields() {
  return (
    <>
      <TextInput source="sku" label="SKU" validate={required()} />
      <TextInput source="name" validate={required()} />
      <NumberInput source="price" validate={required()} />
      <CategoryInput />
    </>
  );
}

/** Only the fillable fields go to the server: the record's id, timestamps and included category do not. */
const fillable = ({ sku, name, price, categoryId }: Record<string, unknown>) => ({ sku, name, price, categoryId });

/**
 * Pessimistic: the form waits for the server, so a refused update (a negative price, a taken SKU)
 * shows the server's message under its field, from the HttpError's `body.errors`.
 */
export function ProductEdit() {
  return (
    <Edit mutationMode="pessimistic" transform={fillable}>
      <SimpleForm>
        <ProductFields />
      </SimpleForm>
    </Edit>
  );
}

/** A new product; the server's field errors show as in the edit form. */
export function ProductCreate() {
  return (
    <Create transform={fillable} redirect="list">
      <SimpleForm>
        <ProductFields />
      </SimpleForm>
    </Create>
  );
}
// #endregion form

/** The categories: a sortable list of names and a one-field form. */
function CategoryList() {
  return (
    <List sort={{ field: 'name', order: 'ASC' }} perPage={10}>
      <Datagrid bulkActionButtons={false} rowClick="edit">
        <TextField source="name" />
      </Datagrid>
    </List>
  );
}

function CategoryEdit() {
  return (
    <Edit mutationMode="pessimistic" transform={({ name }: Record<string, unknown>) => ({ name })}>
      <SimpleForm>
        <TextInput source="name" validate={required()} />
      </SimpleForm>
    </Edit>
  );
}

// #region admin
/** The app: react-admin's default hash router, so `/admin` is its only server URL. */
export function App() {
  return (
    <Admin dataProvider={provider} title="koa-fast-crud demo admin" disableTelemetry>
      <Resource name="products" list={ProductList} edit={ProductEdit} create={ProductCreate} show={ProductShow} recordRepresentation="name" />
      <Resource name="categories" list={CategoryList} edit={CategoryEdit} recordRepresentation="name" />
      <CustomRoutes>
        <Route path={TRASH_PATH} element={<ProductTrash />} />
      </CustomRoutes>
    </Admin>
  );
}
// #endregion admin
