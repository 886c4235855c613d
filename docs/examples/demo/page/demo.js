/**
 * The demo page: a product form, a category autocomplete and a product table, each driven by the demo's
 * koa-fast-crud routes under /api. A plain ES module for the browser: no build step, no framework.
 */

// #region api
/** A JSend `fail` reply: the HTTP status and its failures, each `{ field, error, message }`. */
class ApiFailure extends Error {
  constructor(status, failures) {
    super(failures.map((failure) => failure.message).join('; ') || `HTTP ${status}`);
    this.name = 'ApiFailure';
    this.status = status;
    this.failures = failures;
  }
}

/**
 * Calls the API and reads its JSend reply: resolves with `{ data, meta }` on `success`, throws an
 * ApiFailure on `fail` (a 4xx naming fields) and an Error on `error` or a reply that is not JSend.
 */
async function api(path, { method = 'GET', body, signal } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, { method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body) });
  // A body that is not JSON reads as no reply; an abort while reading it stays an abort.
  const reply = await response.json().catch((error) => {
    if (error.name === 'AbortError') throw error;
    return undefined;
  });
  if (reply?.status === 'success') return { data: reply.data, meta: reply.meta ?? {} };
  if (reply?.status === 'fail') throw new ApiFailure(response.status, failuresOf(reply.data));
  throw new Error(reply?.message ?? `${method} ${path} answered ${response.status}`);
}

/** koa-fast-crud's fail data is a list of `{ field, error, message }`; plain JSend's `{ field: message }` reads too. */
function failuresOf(data) {
  if (Array.isArray(data)) return data;
  return Object.entries(data ?? {}).map(([field, message]) => ({ field, message: String(message) }));
}
// #endregion api

// #region options-select
/** `GET /api/<resource>/options?label=<column>`: the `{ label, value }` pairs for a select box. */
async function fetchOptions(resource, label) {
  const { data } = await api(`/api/${resource}/options?label=${encodeURIComponent(label)}`);
  return data;
}

/**
 * Puts one `<option>` per pair into a `<select>`, after its placeholder (the option with an empty value):
 * <select name="categoryId"><option value="">Choose a category…</option></select>
 */
function fillSelect(select, items) {
  const placeholders = [...select.options].filter((option) => option.value === '');
  const options = items.map(({ label, value }) => new Option(String(label), String(value)));
  select.replaceChildren(...placeholders, ...options);
}

// fillSelect(form.elements.categoryId, await fetchOptions('categories', 'name'));
// #endregion options-select

// #region options-autocomplete
/**
 * Makes a text input an accessible combobox (the WAI-ARIA combobox pattern, with a listbox popup) over
 * the `{ label, value }` pairs of an options route. The options route takes no search text, so the pairs
 * are fetched once and the typed text is matched here: case-insensitively, anywhere in the label.
 * ArrowDown/ArrowUp move through the list, Enter or a click picks, Escape closes (or clears).
 * `onPick(item)` gets the picked pair, or `null` once the text no longer names it (or Escape cleared it).
 *
 * <input role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="list">
 * <ul id="list" role="listbox" hidden></ul>
 */
function autocomplete({ input, listbox, items, onPick }) {
  let matches = [];
  let active = -1;
  let picked = null;

  const setActive = (index) => {
    active = index;
    [...listbox.children].forEach((option, i) => option.setAttribute('aria-selected', String(i === index)));
    const option = listbox.children[index];
    if (option === undefined) return input.removeAttribute('aria-activedescendant');
    input.setAttribute('aria-activedescendant', option.id);
    option.scrollIntoView({ block: 'nearest' });
  };

  const setOpen = (open) => {
    listbox.hidden = !open;
    input.setAttribute('aria-expanded', String(open));
    if (!open) setActive(-1);
  };

  const showMatches = () => {
    const text = input.value.trim().toLowerCase();
    matches = items.filter(({ label }) => String(label).toLowerCase().includes(text));
    listbox.replaceChildren(...matches.map((item, i) => optionElement(listbox.id, i, item, text)));
    setOpen(matches.length > 0);
  };

  const pick = (item) => {
    picked = item;
    if (item !== null) input.value = String(item.label);
    setOpen(false);
    onPick(item);
  };

  input.addEventListener('input', () => {
    if (picked !== null) pick(null);
    showMatches();
  });
  input.addEventListener('keydown', (event) => {
    const open = !listbox.hidden;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (!open) showMatches();
      if (matches.length > 0) setActive((active + 1) % matches.length);
    } else if (event.key === 'ArrowUp' && open) {
      event.preventDefault();
      setActive(active <= 0 ? matches.length - 1 : active - 1);
    } else if (event.key === 'Enter' && open && active >= 0) {
      event.preventDefault();
      pick(matches[active]);
    } else if (event.key === 'Escape') {
      if (open) setOpen(false);
      else if (input.value !== '') {
        input.value = '';
        pick(null);
      }
    }
  });
  input.addEventListener('blur', () => setOpen(false));
  // Keep the focus in the input while the mouse picks an option.
  listbox.addEventListener('mousedown', (event) => event.preventDefault());
  listbox.addEventListener('click', (event) => {
    const option = event.target.closest('[role="option"]');
    if (option !== null) pick(matches[Number(option.dataset.index)]);
  });
}

/** One `<li role="option">` with the matched part of its label in a `<mark>`. */
function optionElement(listboxId, index, { label }, text) {
  const option = document.createElement('li');
  option.id = `${listboxId}-${index}`;
  option.setAttribute('role', 'option');
  option.setAttribute('aria-selected', 'false');
  option.dataset.index = String(index);
  const full = String(label);
  const at = full.toLowerCase().indexOf(text);
  if (text === '' || at < 0) {
    option.textContent = full;
  } else {
    const mark = document.createElement('mark');
    mark.textContent = full.slice(at, at + text.length);
    option.append(full.slice(0, at), mark, full.slice(at + text.length));
  }
  return option;
}
// #endregion options-autocomplete

/** The product form: `POST /api/products`; a 400 or 409 fail shows each message next to its field. */
function productForm({ form, formError, status, onCreated }) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearFailures(form, formError);
    status.textContent = '';
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      const { data } = await api('/api/products', { method: 'POST', body: formBody(form) });
      form.reset();
      status.textContent = `Created ${data.name} (${data.sku}).`;
      await onCreated(data);
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      showFailures(form, formError, error.failures);
    } finally {
      submit.disabled = false;
    }
  });
}

/** The form's fields as a JSON body. Empty fields are left out, so the server names what is missing. */
function formBody(form) {
  const body = {};
  for (const [name, raw] of new FormData(form)) {
    const value = String(raw).trim();
    if (value === '') continue;
    body[name] = name === 'price' && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return body;
}

function errorSlot(control) {
  return document.getElementById(`${control.id}-error`);
}

function clearFailures(form, formError) {
  for (const control of form.querySelectorAll('[aria-invalid]')) {
    control.removeAttribute('aria-invalid');
    Object.assign(errorSlot(control), { textContent: '', hidden: true });
  }
  Object.assign(formError, { textContent: '', hidden: true });
}

/** Each failure's message under its field; failures naming no field of the form go above the button. */
function showFailures(form, formError, failures) {
  const elsewhere = [];
  for (const { field, message } of failures) {
    const control = field ? form.elements.namedItem(field) : null;
    const slot = control instanceof HTMLElement ? errorSlot(control) : null;
    if (slot === null) {
      elsewhere.push(message);
      continue;
    }
    control.setAttribute('aria-invalid', 'true');
    slot.textContent = slot.hidden ? message : `${slot.textContent} ${message}`;
    slot.hidden = false;
  }
  Object.assign(formError, { textContent: elsewhere.join(' '), hidden: elsewhere.length === 0 });
  form.querySelector('[aria-invalid="true"]')?.focus();
}

/**
 * What the table shows: one search request. `category` is a category name: typed text matches
 * any part of it (`like`), a picked option matches it exactly.
 */
const FIRST_VIEW = { sort: 'name', term: '', category: '', categoryExact: false, trashed: false, page: 1, perPage: 5 };

// #region relations
/**
 * The query of `GET /api/products` for a view; without the page, that of `GET /api/products/export-csv`.
 * The filter and the sort reach into the product's category by name (`category.name`), and
 * `include=category` brings each product's category along, so the table needs no id-to-name map.
 */
function searchQuery(view, { paged = true } = {}) {
  const query = new URLSearchParams({ sort: view.sort });
  if (view.term !== '') query.set('filter[term]', view.term);
  if (view.category !== '') query.set(view.categoryExact ? 'filter[category.name]' : 'filter[category.name][like]', view.category);
  if (view.trashed) query.set('filter[deleted_at][nn]', '1');
  if (paged) {
    query.set('include', 'category');
    query.set('page', String(view.page));
    query.set('perPage', String(view.perPage));
  }
  return query;
}
// #endregion relations

/**
 * The product table: sortable headers, filters, pages, soft-delete and restore, and a CSV link that
 * carries the current sort and filters. `update(change)` changes the view and loads it.
 */
function productTable({ table, heading, pager, csvLink, status }) {
  let view = { ...FIRST_VIEW, perPage: Number(pager.perPage.value) };
  let inFlight;

  async function load() {
    inFlight?.abort();
    const request = (inFlight = new AbortController());
    table.setAttribute('aria-busy', 'true');
    csvLink.href = `/api/products/export-csv?${searchQuery(view, { paged: false })}`;
    try {
      const { data, meta } = await api(`/api/products?${searchQuery(view)}`, { signal: request.signal });
      const { pagination } = meta;
      if (pagination.current > pagination.pagesCount) return await update({ page: pagination.pagesCount });
      table.tBodies[0].replaceChildren(...rowsOf(data));
      renderSort();
      renderPager(pagination);
      heading.textContent = view.trashed ? 'Deleted products' : 'Products';
    } catch (error) {
      if (error.name !== 'AbortError') throw error;
    } finally {
      if (inFlight === request) table.setAttribute('aria-busy', 'false');
    }
  }

  function update(change) {
    view = { ...view, ...change };
    return load();
  }

  function rowsOf(products) {
    if (products.length === 0) return [emptyRow(view.trashed ? 'No deleted products match.' : 'No products match.')];
    return products.map((product) => productRow(product, view.trashed));
  }

  function renderSort() {
    for (const header of table.querySelectorAll('th[data-sort]')) {
      const column = header.dataset.sort;
      if (view.sort === column) header.setAttribute('aria-sort', 'ascending');
      else if (view.sort === `-${column}`) header.setAttribute('aria-sort', 'descending');
      else header.removeAttribute('aria-sort');
    }
  }

  function renderPager({ current, pagesCount, count }) {
    pager.indicator.textContent = `Page ${current} of ${pagesCount} · ${count} ${count === 1 ? 'product' : 'products'}`;
    pager.previous.disabled = current <= 1;
    pager.next.disabled = current >= pagesCount;
  }

  /** Soft-deletes or restores a row's product; a fail (say, someone else restored it first) is shown. */
  async function act(button) {
    const { action, id, name } = button.dataset;
    button.disabled = true;
    try {
      if (action === 'soft-delete') await api(`/api/products/${id}/soft`, { method: 'DELETE' });
      else await api(`/api/products/${id}/restore`, { method: 'PATCH' });
      status.textContent = action === 'soft-delete' ? `${name} moved to the deleted products.` : `${name} restored.`;
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      status.textContent = `${name}: ${error.message}`;
    }
    await load();
  }

  table.tHead.addEventListener('click', (event) => {
    const column = event.target.closest('th[data-sort]')?.dataset.sort;
    if (column !== undefined) void update({ sort: view.sort === column ? `-${column}` : column, page: 1 });
  });
  table.tBodies[0].addEventListener('click', (event) => {
    const button = event.target.closest('button[data-action]');
    if (button !== null) void act(button);
  });
  pager.previous.addEventListener('click', () => void update({ page: view.page - 1 }));
  pager.next.addEventListener('click', () => void update({ page: view.page + 1 }));
  pager.perPage.addEventListener('change', () => void update({ perPage: Number(pager.perPage.value), page: 1 }));

  return { load, update };
}

/** A table row; the category's name comes with the product (`include=category`), `—` when it is soft-deleted. */
function productRow(product, trashed) {
  const row = document.createElement('tr');
  row.dataset.id = product.id;
  row.append(
    cell(product.sku),
    cell(product.name),
    cell(product.category?.name ?? '—'),
    cell(Number(product.price).toFixed(2), 'number'),
    actionCell(product, trashed ? 'restore' : 'soft-delete'),
  );
  return row;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function actionCell(product, action) {
  const verb = action === 'restore' ? 'Restore' : 'Delete';
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = verb;
  button.setAttribute('aria-label', `${verb} ${product.name}`);
  Object.assign(button.dataset, { action, id: product.id, name: product.name });
  const td = cell('', 'actions');
  td.append(button);
  return td;
}

function emptyRow(message) {
  const td = cell(message, 'empty');
  td.colSpan = 5;
  const row = document.createElement('tr');
  row.append(td);
  return row;
}

/** Calls `fn` once the calls stop for `ms` milliseconds. */
function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/**
 * Wires the filters above the table: the search text (debounced), the category combobox (typed text
 * filters by part of the category's name, debounced; a picked option by the whole name), the deleted toggle.
 */
function productFilters({ form, table, categories }) {
  const { term, trashed } = form.elements;
  const category = document.getElementById('category-filter');
  let picked = false;
  const applyTerm = () => table.update({ term: term.value.trim(), page: 1 });
  const applyCategory = () => table.update({ category: category.value.trim(), categoryExact: picked, page: 1 });
  term.addEventListener('input', debounce(applyTerm, 250));
  category.addEventListener(
    'input',
    debounce(() => {
      if (!picked) void applyCategory();
    }, 250),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void applyTerm();
  });
  trashed.addEventListener('change', () => void table.update({ trashed: trashed.checked, page: 1 }));
  autocomplete({
    input: category,
    listbox: document.getElementById('category-filter-listbox'),
    items: categories,
    onPick(item) {
      picked = item !== null;
      void applyCategory();
    },
  });
}

function showPageError(error) {
  const banner = document.getElementById('page-error');
  banner.textContent = `Something went wrong: ${error?.message ?? error}`;
  banner.hidden = false;
}

async function main() {
  const categories = await fetchOptions('categories', 'name');
  const form = document.getElementById('product-form');
  fillSelect(form.elements.categoryId, categories);

  const table = productTable({
    table: document.getElementById('products'),
    heading: document.getElementById('products-title'),
    pager: {
      previous: document.getElementById('previous-page'),
      next: document.getElementById('next-page'),
      indicator: document.getElementById('page-indicator'),
      perPage: document.getElementById('per-page'),
    },
    csvLink: document.getElementById('csv-link'),
    status: document.getElementById('products-status'),
  });
  productFilters({ form: document.getElementById('product-filters'), table, categories });
  productForm({
    form,
    formError: document.getElementById('product-form-error'),
    status: document.getElementById('product-form-status'),
    onCreated: () => table.load(),
  });
  await table.load();
}

// An error nobody handled (the API down, a 500) shows on the page; the browser logs it too.
window.addEventListener('unhandledrejection', (event) => showPageError(event.reason));
void main();
