/**
 * The exportCsv action: `GET <uri>/export-csv`, streamed in batches with backpressure from one snapshot, as a lifecycle
 * and as a mixin.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions, Model, ModelStatic } from 'sequelize';
import { includesFor } from '../compile/include.js';
import { compileSearch } from '../compile/search.js';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { csvColumns, csvRow, type CsvColumn } from '../core/csv-cells.js';
import { csvField, csvLine } from '../core/csv-line.js';
import { ownFields } from '../core/sparse-fields.js';
import type { ExportRead } from '../core/export-read.js';
import { KEY_ALIAS, relationSorts } from '../execute/batches.js';
import { exportReader } from '../execute/export-cursor.js';
import { underFreshDeadline } from '../execute/deadline.js';
import { endSnapshot, openSnapshot } from '../execute/snapshot.js';
import { stateOf } from '../execute/state.js';
import type { HookResult } from '../resource/resource.js';
import { rowScopesOf } from '../resource/row-scopes.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { fastColumns, type FastColumn } from './export-fast.js';
import { serializerFor } from './records.js';
import { planSearchRequest, relationSettings, unreadableJsonReply } from './search.js';
import { queryStage, rowsStage } from './stages.js';

/** Headers that keep an export of private data out of every cache and stop a browser sniffing its type. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'X-Content-Type-Options': 'nosniff' } as const;

/** How long the export waits for a client that takes no bytes before it gives up and ends its snapshot. */
export const EXPORT_STALL_MS = 60_000;

/**
 * Serves `GET <uri>/export-csv`: the search's filters, term and sort, every matching row, as an
 * RFC 4180 CSV download, never cached; `fields=` names the columns (visible attributes, in its order).
 * Rows are read `export_csv.batch_size` at a time in one
 * read-only snapshot (see `openSnapshot`), batch after batch by keyset over the whole sort tuple
 * (by offset when a hook's order cannot be followed), or, for a sort that does not lead with the
 * primary key, from one cursor over the sorted result (`exportReader`), and written as the client takes them, so
 * memory does not grow with the table. Cells are what search shows: raw rows converted per
 * attribute kind where that gives the same text (`fastColumns`), otherwise model instances
 * serialized as search serializes them (`search.method`, minus hidden fields, then the plugins'
 * `rows` stage). With `replication` the snapshot is read on a standby, or on the primary when
 * `export_csv.use_master` is set or `modifyExportCsvQuery` returns `useMaster: true`. A batch that
 * fails after the first bytes (a lost snapshot, such as a recovery conflict on a standby) aborts
 * the reply: the connection is destroyed with no terminating chunk, so the client sees a failed
 * transfer, never a short CSV. Hooks: `modifyFilters`, `modifyExportCsvQuery`.
 * @example const reply = await exportCsvAction(resourceScope(bound, ctx));
 */
export async function exportCsvAction(scope: ActionScope): Promise<Reply | undefined> {
  const planned = await planSearchRequest(scope, false);
  if (E.isLeft(planned)) return planned.left;
  const { model, config, resource, ctx } = scope;
  const plan = planned.right;
  const kept = plan.fields && ownFields(model, plan.fields);
  const headers = csvColumnsOf(resource.csvColumns, model, resource.policy.visible, kept);
  const columns = csvColumns(model, headers);
  const include = includesFor(model, Object.keys(headers), config.soft_delete.deleted_at_field);
  const settings = relationSettings(scope, await rowScopesOf(scope, 'exportCsv'));
  const compiled = {
    ...compileSearch(model, plan, resource.deletedAt, settings),
    include,
    // A sparse fieldset selects its columns alone.
    ...(kept !== undefined && { attributes: kept }),
  };
  const query = await queryStage(scope, 'exportCsv', 'modifyExportCsvQuery', compiled);
  const fast = fastColumns(scope, query, columns);
  // A hook's `useMaster: true`, or `export_csv.use_master`, puts the snapshot (and so every batch) on the primary.
  const useMaster = config.export_csv.use_master || (query as { useMaster?: unknown }).useMaster === true;
  const snapshot = query.transaction ? undefined : await openSnapshot(model.sequelize!, { useMaster });
  const observer = stateOf(model.sequelize!).observer;
  const options = {
    size: config.export_csv.batch_size,
    raw: fast !== undefined,
    transaction: snapshot,
    known: relationSorts(model, plan, compiled.order),
    batches: observer?.forceExport?.(ctx) === 'batches',
    told: observer?.exported && ((read: ExportRead) => observer.exported!(ctx, read)),
  };
  const batches = exportReader(model, query, options);
  let first: Batch;
  try {
    first = await batches.next();
  } catch (error) {
    await endSnapshot(snapshot);
    return unreadableJsonReply(scope, plan, error);
  }
  const body = new PassThrough();
  ctx.status = config.export_csv.http_status;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.attachment(`${resource.csvFileName ?? tableName(model)}.csv`);
  ctx.set(NO_STORE);
  ctx.body = body;
  body.write(csvLine(columns.map((column) => column.header)));
  const text =
    fast === undefined
      ? instanceText(scope, columns)
      : (rows: Model[]) => Promise.resolve(fastText(fast, rows as unknown as Record<string, unknown>[]));
  void pump(body, first, batches, text)
    .catch((error: unknown) => {
      // A client that left destroyed the body and stopped the request: nothing to report. Otherwise
      // the body fails with the cause: Koa's pipeline destroys the connection with no terminating
      // chunk, so the client sees a failed transfer (never a complete short CSV), and reports the
      // cause once on the app's error event.
      if (!body.destroyed) body.destroy(error instanceof Error ? error : new Error(String(error)));
    })
    .finally(() =>
      batches
        .return(undefined)
        .catch(() => undefined)
        .then(() => endSnapshot(snapshot)),
    );
  return undefined;
}

/**
 * Adds `GET <uri>/export-csv` and its hooks to a controller class.
 * @example
 * class Products extends ExportCsv(BaseController) {
 *   csvColumns = { name: 'Name', 'category.name': 'Category' };
 * }
 */
export function ExportCsv<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class ExportCsvAction extends Base {
    /**
     * Columns and their headers; dot paths reach into associations; hidden attributes are left out. Default: every
     * visible attribute.
     */
    csvColumns: Readonly<Record<string, string>> | undefined = undefined;
    /** The download's file name without `.csv`; default: the table name. */
    csvFileName: string | undefined = undefined;

    /** Serves `GET <uri>/export-csv`. */
    async exportCsv(_ctx: Context): Promise<Reply | undefined> {
      return exportCsvAction(controllerScope(this));
    }

    /** Called with the compiled find options before the first batch: change them in place or return new ones. */
    modifyExportCsvQuery(_query: FindOptions): HookResult<FindOptions> {}
  }
  return ExportCsvAction;
}

/**
 * The export's columns: `csvColumns` less any of the model's own attributes that are hidden (hidden
 * wins, even over the controller's list), or every visible attribute when it is not set. With a sparse fieldset
 * (`kept`, visible attributes), its attributes alone, in its order, each under its `csvColumns` header if it has one.
 */
function csvColumnsOf(
  declared: Readonly<Record<string, string>> | undefined,
  model: ModelStatic<Model>,
  visible: ReadonlySet<string>,
  kept: readonly string[] | undefined,
): Record<string, string> {
  if (kept !== undefined)
    return Object.fromEntries(
      kept.map((name) => [name, declared !== undefined && Object.hasOwn(declared, name) ? declared[name]! : name]),
    );
  if (declared === undefined) return Object.fromEntries([...visible].map((name) => [name, name]));
  const attributes = model.getAttributes();
  return Object.fromEntries(
    Object.entries(declared).filter(([path]) => !Object.hasOwn(attributes, path) || visible.has(path)),
  );
}

type Batch = IteratorResult<Model[], undefined>;

/** A batch of raw rows as CSV text: each column's reader, quoted as RFC 4180 wants, no object per row. */
function fastText(columns: readonly FastColumn[], rows: readonly Record<string, unknown>[]): string {
  let text = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i]!;
      line += (i === 0 ? '' : ',') + csvField(column.cell(row[column.key]));
    }
    text += `${line}\n`;
  }
  return text;
}

/** A batch of model instances as CSV text: serialized as search serializes them, through the plugins' `rows` stage. */
function instanceText(scope: ActionScope, columns: readonly CsvColumn[]): (records: Model[]) => Promise<string> {
  const serialize = serializerFor(scope, scope.config.search.method);
  return async (records) => {
    for (const record of records) {
      const values = record.dataValues as Record<string, unknown>;
      for (const key of Object.keys(values)) if (key.startsWith(KEY_ALIAS)) delete values[key];
    }
    const rows = await rowsStage(scope, 'exportCsv', records.map(serialize));
    return rows.map((row) => csvLine(csvRow(columns, row))).join('');
  };
}

async function pump(
  body: PassThrough,
  first: Batch,
  batches: AsyncGenerator<Model[], undefined>,
  text: (records: Model[]) => Promise<string>,
): Promise<void> {
  // Each batch after the first gets a deadline of its own (global.timeout_ms): the first is the request's.
  for (let batch = first; !batch.done; batch = await underFreshDeadline(() => batches.next())) {
    const chunk = await text(batch.value);
    if (body.destroyed) return;
    if (!body.write(chunk)) await drained(body);
    if (body.destroyed) return;
  }
  body.end();
}

/** Resolves when the stream drains or closes; a client that takes nothing for `EXPORT_STALL_MS` ends the export. */
async function drained(stream: PassThrough): Promise<void> {
  const controller = new AbortController();
  const stall = setTimeout(
    () => stream.destroy(new Error(`The client took no bytes of the export for ${EXPORT_STALL_MS} ms`)),
    EXPORT_STALL_MS,
  );
  try {
    await Promise.race([once(stream, 'drain', controller), once(stream, 'close', controller)]);
  } finally {
    clearTimeout(stall);
    controller.abort();
  }
}

function tableName(model: ModelStatic<Model>): string {
  const name = model.getTableName();
  return typeof name === 'string' ? name : name.tableName;
}
