/** The exportCsv action: `GET <uri>/export-csv`, streamed in batches with backpressure, as a lifecycle and as a mixin. */
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { stringify, type Stringifier } from 'csv-stringify';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FindOptions, Model, ModelStatic } from 'sequelize';
import { includesFor } from '../compile/include.js';
import { compileSearch } from '../compile/search.js';
import type { AbstractConstructor, BaseController } from '../controller/base-controller.js';
import { csvColumns, csvRow } from '../core/csv-cells.js';
import { batchReader } from '../execute/batches.js';
import type { HookResult } from '../resource/resource.js';
import { controllerScope, type ActionScope } from '../resource/scope.js';
import type { Reply } from '../types.js';
import { serializerFor } from './records.js';
import { planSearchRequest, relationSettings } from './search.js';
import { queryStage, rowsStage } from './stages.js';

/** Headers that keep an export of private data out of every cache and stop a browser sniffing its type. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'X-Content-Type-Options': 'nosniff' } as const;

/**
 * Serves `GET <uri>/export-csv`: the search's filters, term and sort, every matching row, as an
 * RFC 4180 CSV download, never cached. Rows are read `export_csv.batch_size` at a time as model
 * instances, serialized as search serializes them (`search.method`, minus hidden fields, then the
 * plugins' `rows` stage), and written as the client takes them, so memory does not grow with the
 * table. Hooks: `modifyFilters`, `modifyExportCsvQuery`.
 * @example const reply = await exportCsvAction(resourceScope(bound, ctx));
 */
export async function exportCsvAction(scope: ActionScope): Promise<Reply | undefined> {
  const planned = await planSearchRequest(scope, false);
  if (E.isLeft(planned)) return planned.left;
  const { model, config, resource, ctx } = scope;
  const headers = csvColumnsOf(resource.csvColumns, model, resource.policy.visible);
  const columns = csvColumns(model, headers);
  const include = includesFor(model, Object.keys(headers), config.soft_delete.deleted_at_field);
  const plan = { ...planned.right, include: undefined };
  const compiled = { ...compileSearch(model, plan, resource.deletedAt, relationSettings(scope)), include };
  const query = await queryStage(scope, 'exportCsv', 'modifyExportCsvQuery', compiled);
  const batches = batchReader(model, query, config.export_csv.batch_size);
  const first = await batches.next();
  const csv = stringify({ header: true, columns: columns.map((column) => column.header) });
  ctx.status = config.export_csv.http_status;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.attachment(`${resource.csvFileName ?? tableName(model)}.csv`);
  ctx.set(NO_STORE);
  ctx.body = csv;
  const serialize = serializerFor(scope, config.search.method);
  const lines = async (records: Model[]) => (await rowsStage(scope, 'exportCsv', records.map(serialize))).map((row) => csvRow(columns, row));
  void pump(csv, first, batches, lines).catch((error: unknown) => {
    csv.destroy();
    ctx.app.emit('error', error, ctx);
  });
  return undefined;
}

/**
 * Adds `GET <uri>/export-csv` and its hooks to a controller class.
 * @example class Products extends ExportCsv(BaseController) { csvColumns = { name: 'Name', 'category.name': 'Category' }; … }
 */
export function ExportCsv<TBase extends AbstractConstructor<BaseController>>(Base: TBase) {
  abstract class ExportCsvAction extends Base {
    /** Columns and their headers; dot paths reach into associations; hidden attributes are left out. Default: every visible attribute. */
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
 * wins, even over the controller's list), or every visible attribute when it is not set.
 */
function csvColumnsOf(declared: Readonly<Record<string, string>> | undefined, model: ModelStatic<Model>, visible: ReadonlySet<string>): Record<string, string> {
  if (declared === undefined) return Object.fromEntries([...visible].map((name) => [name, name]));
  const attributes = model.getAttributes();
  return Object.fromEntries(Object.entries(declared).filter(([path]) => !Object.hasOwn(attributes, path) || visible.has(path)));
}

type Batch = IteratorResult<Model[], undefined>;

async function pump(csv: Stringifier, first: Batch, batches: AsyncGenerator<Model[], undefined>, lines: (records: Model[]) => Promise<string[][]>): Promise<void> {
  for (let batch = first; !batch.done; batch = await batches.next()) {
    for (const line of await lines(batch.value)) {
      if (csv.destroyed) return;
      if (!csv.write(line)) await drained(csv);
    }
  }
  csv.end();
}

async function drained(stream: Readable & { write: unknown }): Promise<void> {
  const controller = new AbortController();
  await Promise.race([once(stream, 'drain', controller), once(stream, 'close', controller)]).finally(() => controller.abort());
}

function tableName(model: ModelStatic<Model>): string {
  const name = model.getTableName();
  return typeof name === 'string' ? name : name.tableName;
}
