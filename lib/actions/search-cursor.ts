/**
 * Cursor pages of the search action (`cursor=`): read by keyset over the whole sort, NULL-aware, the primary key the
 * tiebreak (the same keyset as the export's batches), with signed `next` and `prev` cursors.
 */
import { randomBytes } from 'node:crypto';
import { Op, Sequelize, type FindOptions, type Model } from 'sequelize';
import type { ValueKind } from '../core/attribute-kinds.js';
import { cursorPage, encodeCursor, invalidCursor, reversedDirection, type CursorValue } from '../core/cursor.js';
import { keysetSql } from '../core/keyset.js';
import { pickFields } from '../core/sparse-fields.js';
import { KEY_ALIAS, keysetPlan, relationSorts, withCaptures } from '../execute/batches.js';
import type { ActionScope } from '../resource/scope.js';
import type { Reply, SearchPlan } from '../types.js';
import { serializerFor } from './records.js';
import { rowsStage } from './stages.js';

/** The secret of this process, for cursors when `search.cursor_secret` is null: other processes do not know it. */
const PROCESS_SECRET = randomBytes(32).toString('base64url');

/**
 * The secret cursors are signed with: `search.cursor_secret`, else this process's random one.
 * @example cursorSecret(scope.config) // 'k3…'
 */
export function cursorSecret(config: ActionScope['config']): string {
  return config.search.cursor_secret ?? PROCESS_SECRET;
}

/**
 * Answers a cursor page: `perPage` + 1 rows after (or before, read in the reversed order) the cursor's row, the count
 * as `search.count` says (run beside the page, as for offset pages), and `meta.pagination` with `perPage`, `next` and
 * `prev`. A sort the keyset cannot follow (see `keysetPlan`) is an `invalidValue` on `cursor`.
 * @example return answerCursorSearch(scope, plan, query, count);
 */
export async function answerCursorSearch(
  scope: ActionScope,
  plan: SearchPlan,
  query: FindOptions,
  count: (query: FindOptions) => Promise<{ value: number; estimated: boolean }> | undefined,
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
  const captures = keyset.parts.map(
    (part, i) =>
      [Sequelize.literal(part.capture), `${KEY_ALIAS}${i}`] as [ReturnType<typeof Sequelize.literal>, string],
  );
  const { offset: _offset, limit: _limit, ...rest } = query;
  const where = after === undefined ? query.where : { [Op.and]: [query.where ?? {}, after] };
  const read: FindOptions = {
    ...rest,
    attributes: withCaptures(query.attributes, captures),
    order: keyset.order,
    ...(where !== undefined && { where }),
    limit: perPage + 1,
  };
  const [found, counted] = await Promise.all([model.findAll(read), count(query)]);
  const page = cursorPage(position?.direction ?? null, found, perPage);
  const values = new Map<Model, CursorValue[]>();
  for (const record of found) {
    const data = record.dataValues as Record<string, unknown>;
    values.set(
      record,
      keyset.parts.map((_, i) => cursorValue(data[`${KEY_ALIAS}${i}`])),
    );
    for (const key of Object.keys(data)) if (key.startsWith(KEY_ALIAS)) delete data[key];
  }
  const token = (record: Model | null, direction: 'after' | 'before') =>
    record === null ? null : encodeCursor({ direction, values: values.get(record)! }, bound, cursorSecret(config));
  const serialized = page.rows.map(serializerFor(scope, config.search.method));
  const fields = plan.fields;
  const rows = fields === undefined ? serialized : serialized.map((row) => pickFields(row, fields));
  const data = await rowsStage(scope, 'search', (await scope.hook('afterSearch', rows)) ?? rows);
  const pagination = {
    perPage,
    next: token(page.next, 'after'),
    prev: token(page.prev, 'before'),
    ...(counted !== undefined && { count: counted.value, ...(counted.estimated && { estimated: true }) }),
  };
  return scope.answers.answerSuccess(data, config.search.http_status, { pagination });
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
