/**
 * Cursor pages of the search action (`cursor=`): read by keyset over the whole sort, NULL-aware, the primary key the
 * tiebreak (the same keyset as the export's batches), with signed `next` and `prev` cursors.
 */
import { randomBytes } from 'node:crypto';
import { Op, Sequelize, type FindOptions } from 'sequelize';
import type { ValueKind } from '../core/attribute-kinds.js';
import { cursorPage, encodeCursor, invalidCursor, reversedDirection, type CursorValue } from '../core/cursor.js';
import { keysetSql } from '../core/keyset.js';
import { pickFields } from '../core/sparse-fields.js';
import { KEY_ALIAS, keysetPlan, relationSorts, withCaptures } from '../execute/batches.js';
import type { Capture, Executor, PreparedSelect, RawShape } from '../execute/executor.js';
import { stateOf } from '../execute/state.js';
import type { ActionScope } from '../resource/scope.js';
import type { Reply, SearchPlan } from '../types.js';
import { serializerFor } from './records.js';
import { rowsStage } from './stages.js';
import { withholdDeepRows } from './withheld.js';

/** The secret of this process, for cursors when `search.cursor_secret` is null: other processes do not know it. */
const PROCESS_SECRET = randomBytes(32).toString('base64url');

/**
 * The secret cursors are signed with: `search.cursor_secret`, else this process's random one.
 * @example cursorSecret(scope.config) // 'k3…'
 */
export function cursorSecret(config: ActionScope['config']): string {
  return config.search.cursor_secret ?? PROCESS_SECRET;
}

/** How a cursor page reads raw rows, when search would read the same request's offset page raw (see `rawShape`). */
export interface RawRead {
  readonly executor: Executor;
  readonly driver: boolean;
  /** The row shape, a sparse fieldset's columns alone when `fields=` names them. */
  readonly shape: RawShape;
  /** The first page's select a request with this query string prepared before, if kept. */
  readonly known: PreparedSelect | undefined;
  /** Keeps a first page's select for later requests with this query string (when the search may be reused). */
  readonly keep: (select: PreparedSelect) => void;
}

/**
 * Answers a cursor page: `perPage` + 1 rows after (or before, read in the reversed order) the cursor's row, the count
 * as `search.count` says (run beside the page, as for offset pages), and `meta.pagination` with `perPage`, `next` and
 * `prev`. A sort the keyset cannot follow (see `keysetPlan`) is an `invalidValue` on `cursor`. With `raw` the page is
 * read as plain rows through the executor, as search's fast path reads an offset page; else as model instances.
 * @example return answerCursorSearch(scope, plan, query, count, raw);
 */
export async function answerCursorSearch(
  scope: ActionScope,
  plan: SearchPlan,
  query: FindOptions,
  count: (query: FindOptions) => Promise<{ value: number; estimated: boolean }> | undefined,
  raw: RawRead | undefined,
): Promise<Reply> {
  const { model, config } = scope;
  const { position, scope: bound } = plan.cursor!;
  const perPage = plan.page!.perPage;
  const before = position?.direction === 'before';
  const known = relationSorts(model, plan, query.order);
  const items = (Array.isArray(query.order) ? query.order : []) as unknown[];
  const order = before ? items.map((item) => reversedItem(item, known)) : items;
  const keyset = keysetPlan(model, order, known);
  if (keyset === undefined) return scope.answers.answerFail([unfollowable()]);
  if (position !== null && position.values.length !== keyset.parts.length)
    return scope.answers.answerFail([invalidCursor()]);
  const after =
    position === null
      ? undefined
      : Sequelize.literal(
          keysetSql(
            keyset.parts,
            position.values.map((value, i) => (value === null ? null : keyset.parts[i]!.literal(value))),
          ),
        );
  const captures: Capture[] = keyset.parts.map((part, i) => ({ sql: part.capture, as: `${KEY_ALIAS}${i}` }));
  const { offset: _offset, limit: _limit, ...rest } = query;
  const where = after === undefined ? query.where : { [Op.and]: [query.where ?? {}, after] };
  const read: FindOptions = {
    ...rest,
    order: keyset.order,
    ...(where !== undefined && { where }),
    limit: perPage + 1,
  };
  // Only a first page's select is ever kept (its query string says `cursor=`).
  const kept = position === null ? raw?.known : undefined;
  let select: PreparedSelect | undefined;
  if (raw !== undefined) {
    select = kept?.again(raw.driver) ?? raw.executor.select(model, read, raw.shape, raw.driver, captures);
    if (kept === undefined && position === null) raw.keep(select);
  }
  const reused = kept !== undefined;
  stateOf(model.sequelize!).observer?.searched?.(scope.ctx, { path: select?.path ?? 'instance', reused });
  const [found, counted] = await Promise.all([
    select === undefined ? instanceRows(scope, plan, read, captures) : select.page().then(rawRows(scope)),
    count(query),
  ]);
  // The captured keyset values of each row read, then the page's rows without them.
  const values = found.captured.map((data) => keyset.parts.map((_, i) => cursorValue(data[`${KEY_ALIAS}${i}`])));
  for (const data of found.captured) for (const { as } of captures) delete data[as];
  const page = cursorPage(
    position?.direction ?? null,
    found.captured.map((_, i) => i),
    perPage,
  );
  const token = (index: number | null, direction: 'after' | 'before') =>
    index === null ? null : encodeCursor({ direction, values: values[index]! }, bound, cursorSecret(config));
  const rows = page.rows.map((i) => found.row(i));
  const data = await rowsStage(scope, 'search', (await scope.hook('afterSearch', rows)) ?? rows);
  const pagination = {
    perPage,
    next: token(page.next, 'after'),
    prev: token(page.prev, 'before'),
    ...(counted !== undefined && { count: counted.value, ...(counted.estimated && { estimated: true }) }),
  };
  return scope.answers.answerSuccess(data, config.search.http_status, { pagination });
}

/** The rows read for a cursor page: the objects holding each row's captures, and its reply record by index. */
interface CursorRows {
  readonly captured: Record<string, unknown>[];
  readonly row: (index: number) => Record<string, unknown>;
}

/** Model instances with the captures among their values, serialized (a sparse fieldset's fields kept) on demand. */
async function instanceRows(
  scope: ActionScope,
  plan: SearchPlan,
  read: FindOptions,
  captures: readonly Capture[],
): Promise<CursorRows> {
  const literals = captures.map(({ sql, as }) => [Sequelize.literal(sql), as] as [unknown, string]);
  const found = await scope.model.findAll({ ...read, attributes: withCaptures(read.attributes, literals) });
  const serialize = serializerFor(scope, scope.config.search.method);
  const fields = plan.fields;
  return {
    captured: found.map((record) => record.dataValues as Record<string, unknown>),
    row: (i) => (fields === undefined ? serialize(found[i]!) : pickFields(serialize(found[i]!), fields)),
  };
}

/** Raw rows hold their captures themselves; once those are removed each is its reply record (deep JSON withheld). */
function rawRows(scope: ActionScope): (rows: Record<string, unknown>[]) => CursorRows {
  return (rows) => ({
    captured: rows,
    row: (i) => {
      const row = rows[i]!;
      withholdDeepRows(scope.ctx, scope.model, [row], scope.config.global.max_depth);
      return row;
    },
  });
}

/** A captured sort value as a cursor keeps it: as the driver gave it, a big integer or a date as text. */
function cursorValue(value: unknown): CursorValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw new TypeError(`A cursor cannot keep the sort value ${typeof value} the database gave back`);
}

/** An order item read the other way round; a relation sort stays one the keyset knows. */
function reversedItem(item: unknown, known: Map<unknown, ValueKind>): unknown {
  if (!Array.isArray(item) || item.length !== 2 || typeof item[1] !== 'string') return item;
  const reversed = [item[0], reversedDirection(item[1])];
  if (known.has(item)) known.set(reversed, known.get(item)!);
  return reversed;
}

function unfollowable() {
  return {
    field: 'cursor',
    error: 'invalidValue' as const,
    message:
      'This sort cannot be paged by cursor (a column the keyset cannot compare exactly, or a composite primary key): ' +
      'page with page and perPage',
  };
}
