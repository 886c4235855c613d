/**
 * What each action does with a request, step by step: the data the doc site's `<Lifecycle>`
 * diagrams draw (docs/.vitepress/theme/Lifecycle.vue). spec/docs/lifecycle.spec.ts proves it: it
 * runs every action through `crud` with a spy on every hook and compares the order the hooks ran
 * in, on the way to the reply and on the way to each exit, with the order given here.
 *
 * This module runs in the browser too: it imports nothing.
 */

/** The controller methods `crud` routes to: one diagram each. */
export type ActionName = 'search' | 'options' | 'create' | 'read' | 'update' | 'delete' | 'softDelete' | 'restore' | 'exportCsv';

/** A node of a diagram: work the library does, a hook it calls, or a way out before the reply. */
export type StepKind = 'step' | 'hook' | 'exit';

/** Work the library does. */
export interface WorkStep {
  readonly kind: 'step';
  readonly label: string;
  readonly detail?: string;
  /** Runs inside the write's transaction (`this.transaction` is set). */
  readonly transaction?: boolean;
}

/** A controller method the action calls, which a subclass may override. */
export interface HookStep {
  readonly kind: 'hook';
  /** The method's name on the controller. */
  readonly name: string;
  /** How the action calls it. */
  readonly call: string;
  /** What the hook is given and what its return value does. */
  readonly detail: string;
  /** Set when the hook runs only under a condition. */
  readonly when?: string;
  readonly transaction?: boolean;
}

/** A reply that ends the request at the step before it, before the action's own reply. */
export interface ExitStep {
  readonly kind: 'exit';
  /** The statuses this exit answers with (400 stands for `global.validation.http_status`). */
  readonly status: readonly number[];
  readonly label: string;
}

export type LifecycleStep = WorkStep | HookStep | ExitStep;

/** One action's diagram. */
export interface Lifecycle {
  readonly action: ActionName;
  /** The routes the action serves, `<uri>` standing for the resource's path. */
  readonly routes: readonly string[];
  readonly steps: readonly LifecycleStep[];
}

// Steps several actions share.
const ability = (permission: string): LifecycleStep[] => [
  { kind: 'step', label: 'Ability check', detail: `can(ctx, '<module>.access.${permission}'), when crud was given a moduleName` },
  { kind: 'exit', status: [403], label: 'forbidden' },
];
const uuidMatch: LifecycleStep[] = [
  { kind: 'step', label: 'Match {id:uuid}', detail: 'global.find_field_is_uuid' },
  { kind: 'exit', status: [404], label: 'not a UUID: the route does not match (next route, or Koa’s 404)' },
];
const queryString: LifecycleStep[] = [
  { kind: 'step', label: 'Parse the query string', detail: 'qs: at most 9 brackets deep, 100 array items, 200 parameters' },
  { kind: 'exit', status: [400], label: 'invalidValue: beyond a limit' },
];
const jsonBody: LifecycleStep[] = [
  { kind: 'step', label: 'Read the body', detail: 'JSON or a form (application/x-www-form-urlencoded), at most global.body_limit bytes' },
  { kind: 'exit', status: [415, 413, 400], label: 'neither JSON nor a form; too large; malformed JSON or a form beyond the query-string limits (always 400)' },
  { kind: 'step', label: 'Validate, keep the fillable keys, check their types', detail: 'the validation schema, if any (its output is used); field policy: fillable; other keys are dropped' },
  { kind: 'exit', status: [400], label: 'emptyPayload, schema, type' },
];
const begin: LifecycleStep = { kind: 'step', label: 'Begin the transaction', detail: 'this.transaction is set', transaction: true };
const commit: LifecycleStep = { kind: 'step', label: 'Commit', transaction: true };
const lookup = (scope: string, transaction = true): LifecycleStep[] => [
  { kind: 'step', label: 'Plan the lookup of {id}', detail: `in the find field; ${scope}`, transaction },
  { kind: 'exit', status: [404], label: 'recordNotFound: the id cannot be a value of the find field (no query runs)' },
];
const findOne = (transaction: boolean, missing = 'recordNotFound'): LifecycleStep[] => [
  { kind: 'step', label: 'findOne', detail: transaction ? 'in the transaction, the row locked' : 'the record', transaction },
  { kind: 'exit', status: [404], label: missing },
];
const softDeleteColumn: LifecycleStep[] = [
  { kind: 'step', label: 'Find the deleted-at column', detail: 'soft_delete.deleted_at_field, by attribute or column name' },
  { kind: 'exit', status: [400], label: 'columnNotFound: the model has no such column' },
];
const reply = (status: string, detail: string): LifecycleStep => ({ kind: 'step', label: `Reply ${status}`, detail });

const search: Lifecycle = {
  action: 'search',
  routes: ['GET <uri>'],
  steps: [
    { kind: 'step', label: 'GET <uri>' },
    ...ability('search'),
    ...queryString,
    { kind: 'hook', name: 'modifyFilters', call: 'modifyFilters(filters)', detail: 'the parsed filter object; a returned value replaces it' },
    { kind: 'step', label: 'Check filters, term, sort and page', detail: 'field policy: filterable, termFields, sortable; page, perPage' },
    { kind: 'exit', status: [400], label: 'columnNotFound, invalidOperator, invalidValue' },
    { kind: 'step', label: 'Compile the where clause and the order' },
    { kind: 'hook', name: 'modifySearchQuery', call: 'modifySearchQuery(query)', detail: 'the find options; change them or return new ones' },
    { kind: 'step', label: 'findAndCountAll', detail: 'the page and the count: two queries' },
    { kind: 'step', label: 'Serialize the rows', detail: 'search.method, hidden fields removed' },
    { kind: 'hook', name: 'afterSearch', call: 'afterSearch(rows)', detail: 'the serialized rows; change them or return new ones' },
    reply('200', 'search.http_status; meta.pagination'),
  ],
};

const options: Lifecycle = {
  action: 'options',
  routes: ['GET <uri>/options'],
  steps: [
    { kind: 'step', label: 'GET <uri>/options' },
    { kind: 'step', label: 'No ability check', detail: 'options is not guarded unless options.permission names a permission' },
    { kind: 'hook', name: 'modifyFilters', call: 'modifyFilters(filters)', detail: 'filter, or undefined; a returned value replaces it' },
    { kind: 'step', label: 'Plan the query from label and value', detail: 'label required; plain identifiers; not hidden' },
    { kind: 'exit', status: [400], label: 'required, columnNotFound' },
    { kind: 'step', label: 'Describe the table', detail: 'only when value is not a model attribute' },
    { kind: 'exit', status: [400], label: 'columnNotFound: the table has no such column' },
    { kind: 'hook', name: 'modifyOptionsQuery', call: 'modifyOptionsQuery(query)', detail: 'the find options; change them or return new ones' },
    { kind: 'step', label: 'findAll', detail: 'value and label, ordered by label, soft-deleted rows left out' },
    { kind: 'step', label: 'Shape {label, value} items' },
    { kind: 'hook', name: 'afterOptions', call: 'afterOptions(items)', detail: 'the items; change them or return new ones' },
    reply('200', 'options.http_status'),
  ],
};

const create: Lifecycle = {
  action: 'create',
  routes: ['POST <uri>'],
  steps: [
    { kind: 'step', label: 'POST <uri>' },
    ...ability('create'),
    ...jsonBody,
    { kind: 'hook', name: 'beforeCreateFill', call: 'beforeCreateFill(data)', detail: 'the fillable fields; a returned object replaces them' },
    begin,
    { kind: 'hook', name: 'beforeCreate', call: 'beforeCreate(data)', detail: 'the fields about to be inserted; a returned object replaces them', transaction: true },
    { kind: 'step', label: 'INSERT', detail: 'Model.create: the model’s validators run', transaction: true },
    { kind: 'exit', status: [400, 409], label: 'validation; unique or foreign key (rolled back)' },
    { kind: 'hook', name: 'afterCreate', call: 'afterCreate(record)', detail: 'the created record; throwing rolls the insert back', transaction: true },
    commit,
    reply('201', 'create.http_status; the record, serialized by create.method'),
  ],
};

const read: Lifecycle = {
  action: 'read',
  routes: ['GET <uri>/{id}'],
  steps: [
    { kind: 'step', label: 'GET <uri>/{id}' },
    ...uuidMatch,
    ...ability('view'),
    ...lookup('soft-deleted rows excluded', false),
    { kind: 'hook', name: 'modifyReadQuery', call: 'modifyReadQuery(query)', detail: 'the lookup; change it or return a new one' },
    ...findOne(false),
    { kind: 'hook', name: 'afterRead', call: 'afterRead(record)', detail: 'the found record, before it is serialized' },
    reply('200', 'read.http_status; the record, serialized by read.method'),
  ],
};

const update: Lifecycle = {
  action: 'update',
  routes: ['PUT <uri>/{id}', 'PATCH <uri>/{id}', 'POST <uri>/{id}'],
  steps: [
    { kind: 'step', label: 'PUT | PATCH | POST <uri>/{id}' },
    ...uuidMatch,
    ...ability('update'),
    ...jsonBody,
    { kind: 'hook', name: 'beforeUpdateFill', call: 'beforeUpdateFill(data)', detail: 'the fillable fields; a returned object replaces them' },
    begin,
    ...lookup('soft-deleted rows excluded'),
    { kind: 'hook', name: 'modifyUpdateQuery', call: 'modifyUpdateQuery(query)', detail: 'the lookup; change it or return a new one', transaction: true },
    ...findOne(true),
    { kind: 'hook', name: 'beforeUpdate', call: 'beforeUpdate(record, data)', detail: 'the record and the fields about to be written; a returned object replaces the fields', transaction: true },
    { kind: 'step', label: 'UPDATE', detail: 'record.update: the model’s validators run', transaction: true },
    { kind: 'exit', status: [400, 409], label: 'validation; unique or foreign key (rolled back)' },
    { kind: 'hook', name: 'afterUpdate', call: 'afterUpdate(record)', detail: 'the updated record; throwing rolls the update back', transaction: true },
    commit,
    reply('200', 'update.http_status; the record, serialized by update.method'),
  ],
};

const remove: Lifecycle = {
  action: 'delete',
  routes: ['DELETE <uri>/{id}'],
  steps: [
    { kind: 'step', label: 'DELETE <uri>/{id}' },
    ...uuidMatch,
    ...ability('delete'),
    begin,
    ...lookup('soft-deleted rows included'),
    { kind: 'hook', name: 'modifyDeleteQuery', call: 'modifyDeleteQuery(query)', detail: 'the lookup; change it or return a new one', transaction: true },
    ...findOne(true),
    { kind: 'hook', name: 'beforeDelete', call: 'beforeDelete(record)', detail: 'the record; throw to keep it', transaction: true },
    { kind: 'step', label: 'DELETE', detail: 'record.destroy (a paranoid model soft-deletes)', transaction: true },
    { kind: 'exit', status: [409], label: 'foreignKey: related rows refuse it (rolled back)' },
    { kind: 'hook', name: 'afterDelete', call: 'afterDelete(record)', detail: 'the deleted record; throwing brings it back', transaction: true },
    commit,
    reply('200', 'delete.http_status; data: null'),
  ],
};

const softDelete: Lifecycle = {
  action: 'softDelete',
  routes: ['DELETE <uri>/{id}/soft'],
  steps: [
    { kind: 'step', label: 'DELETE <uri>/{id}/soft' },
    ...uuidMatch,
    ...ability('delete'),
    ...softDeleteColumn,
    begin,
    ...lookup('soft-deleted rows excluded'),
    { kind: 'hook', name: 'modifySoftDeleteQuery', call: 'modifySoftDeleteQuery(query)', detail: 'the lookup; change it or return a new one', transaction: true },
    ...findOne(true, 'recordNotFound: missing or already soft-deleted'),
    { kind: 'hook', name: 'beforeSoftDelete', call: 'beforeSoftDelete(record)', detail: 'the record; throw to keep it as it is', transaction: true },
    {
      kind: 'hook',
      name: 'softDeleteUserId',
      call: 'softDeleteUserId(ctx)',
      detail: 'returns who is soft-deleting; default ctx.state.user?.id ?? null',
      when: 'the model has the deleted-by column (soft_delete.deleted_by_field)',
      transaction: true,
    },
    { kind: 'step', label: 'UPDATE: deleted-at = now', detail: 'and deleted-by; a paranoid model: destroy()', transaction: true },
    { kind: 'hook', name: 'afterSoftDelete', call: 'afterSoftDelete(record)', detail: 'the marked record; throwing undoes the mark', transaction: true },
    commit,
    reply('200', 'soft_delete.http_status; the record, serialized by soft_delete.method'),
  ],
};

const restore: Lifecycle = {
  action: 'restore',
  routes: ['PATCH <uri>/{id}/restore', 'PUT <uri>/{id}/restore'],
  steps: [
    { kind: 'step', label: 'PATCH | PUT <uri>/{id}/restore' },
    ...uuidMatch,
    ...ability('restore'),
    ...softDeleteColumn,
    begin,
    ...lookup('soft-deleted rows only'),
    { kind: 'hook', name: 'modifyRestoreQuery', call: 'modifyRestoreQuery(query)', detail: 'the lookup; change it or return a new one', transaction: true },
    ...findOne(true, 'recordNotFound: missing or not soft-deleted'),
    { kind: 'hook', name: 'beforeRestore', call: 'beforeRestore(record)', detail: 'the record; throw to keep it deleted', transaction: true },
    { kind: 'step', label: 'UPDATE: deleted-at = null', detail: 'and deleted-by; a paranoid model: restore()', transaction: true },
    { kind: 'hook', name: 'afterRestore', call: 'afterRestore(record)', detail: 'the restored record; throwing undoes the restore', transaction: true },
    commit,
    reply('200', 'restore.http_status; the record, serialized by restore.method'),
  ],
};

const exportCsv: Lifecycle = {
  action: 'exportCsv',
  routes: ['GET <uri>/export-csv'],
  steps: [
    { kind: 'step', label: 'GET <uri>/export-csv' },
    ...ability('exportCsv'),
    ...queryString,
    { kind: 'hook', name: 'modifyFilters', call: 'modifyFilters(filters)', detail: 'the parsed filter object; a returned value replaces it' },
    { kind: 'step', label: 'Check filters, term and sort', detail: 'field policy: filterable, termFields, sortable; no paging' },
    { kind: 'exit', status: [400], label: 'columnNotFound, invalidOperator, invalidValue' },
    { kind: 'step', label: 'Compile the where clause, the order and the includes', detail: 'includes for csvColumns’ dot paths' },
    { kind: 'hook', name: 'modifyExportCsvQuery', call: 'modifyExportCsvQuery(query)', detail: 'the find options; change them or return new ones' },
    { kind: 'step', label: 'Read the first batch', detail: 'export_csv.batch_size rows' },
    reply('200', 'text/csv; Content-Disposition: attachment; filename="<csvFileName>.csv"'),
    { kind: 'step', label: 'Stream the rest, batch by batch', detail: 'as fast as the client reads; a fault now ends the download and goes to app.on(\'error\')' },
  ],
};

/** Every action's diagram, in route-table order. */
export const LIFECYCLES: Readonly<Record<ActionName, Lifecycle>> = { search, options, create, exportCsv, read, update, delete: remove, softDelete, restore };

/**
 * The hooks a diagram names, in order.
 * @example hooksOf('create') // ['beforeCreateFill', 'beforeCreate', 'afterCreate']
 */
export function hooksOf(action: ActionName): string[] {
  return LIFECYCLES[action].steps.flatMap((step) => (step.kind === 'hook' ? [step.name] : []));
}

/** True when a name is one of the actions that have a diagram. */
export function isActionName(name: string): name is ActionName {
  return Object.hasOwn(LIFECYCLES, name);
}
