/** planSearch: a search (or exportCsv) request checked against the model and policy, as a plan. */
import { snakeCase } from 'change-case';
import * as E from 'fp-ts/lib/Either.js';
import type { AttributeSource, ErrorCode, FailItem, FastCrudConfig, Order, SearchPlan } from '../types.js';
import { findColumn } from './columns.js';
import { cursorScope, decodeCursor, invalidCursor, type CursorPlan } from './cursor.js';
import { allowedColumn } from './field-policy.js';
import { everyCondition, parseFilters, type FilterSettings } from './filter-parser.js';
import { KNOWN_PARAMS, singleParam, unknownParams } from './query-params.js';
import { parseInclude } from './relation-policy.js';
import { isRelationPath, relationSort } from './relation-paths.js';
import { parseSortItems } from './sort-parser.js';
import { parseFields } from './sparse-fields.js';

/** The query parameters of a search, as qs parses them. */
export interface SearchRequest {
  readonly filter?: unknown;
  readonly sort?: unknown;
  readonly page?: unknown;
  readonly perPage?: unknown;
  readonly skipPagination?: unknown;
  /** Association paths to load with each row: `include=category,tags`. */
  readonly include?: unknown;
  /** Cursor pagination: empty for the first page, else a `next` or `prev` token of an earlier page. */
  readonly cursor?: unknown;
  /** The sparse fieldset: `fields=id,name,category.name`. */
  readonly fields?: unknown;
}

/** What planning a search needs besides the model and the request. */
export interface SearchSettings extends FilterSettings {
  readonly config: Pick<FastCrudConfig, 'search' | 'soft_delete'>;
  /** False for exportCsv: every matching row, no page parameters read. */
  readonly paginate: boolean;
  /** The secret cursors are signed with (`search.cursor_secret`, or the process's own); none: no cursor verifies. */
  readonly cursorSecret?: string | undefined;
}

const POSITIVE = /^[1-9]\d{0,8}$/;

/**
 * Plans a search: with `search.strict_params`, no parameter but those the action reads
 * (`KNOWN_PARAMS`); filters and term, sort (checked against the sortable columns, with a
 * primary-key tiebreak so pages are stable), the page asked for, and the sparse fieldset (`parseFields`, against the
 * includes). Every failure is collected.
 * @example planSearch(Product, { sort: '-price', page: '2' }, settings)
 *   // right({ conditions: [], term: null, order: [['price', 'DESC'], ['id', 'ASC']], page: { page: 2, perPage: 40 },
 *   // trashed: false })
 */
export function planSearch(
  model: AttributeSource,
  request: SearchRequest,
  settings: SearchSettings,
): E.Either<FailItem<ErrorCode>[], SearchPlan> {
  const unknown = settings.config.search.strict_params
    ? unknownParams(Object.keys(request), settings.paginate ? KNOWN_PARAMS.search : KNOWN_PARAMS.exportCsv)
    : [];
  const filters = parseFilters(model, request.filter, settings);
  const sort = planOrder(model, request.sort, settings);
  const page = settings.paginate ? planPage(request, settings.config.search) : E.right(null);
  const cursor = settings.paginate ? planCursor(request, settings.cursorSecret) : E.right(undefined);
  // An export reads no include: under strict_params it is an unknown parameter, else ignored.
  const include = settings.paginate ? parseInclude(request.include, settings.policy.relations) : E.right([]);
  const fields = parseFields(model, request.fields, settings.policy, E.isRight(include) ? include.right : []);
  const failures = [
    ...unknown,
    ...filters.failures,
    ...(E.isLeft(sort) ? sort.left : []),
    ...(E.isLeft(page) ? page.left : []),
    ...(E.isLeft(include) ? include.left : []),
    ...(E.isLeft(cursor) ? cursor.left : []),
    ...(E.isLeft(fields) ? fields.left : []),
  ];
  if (
    failures.length > 0 ||
    E.isLeft(sort) ||
    E.isLeft(page) ||
    E.isLeft(include) ||
    E.isLeft(cursor) ||
    E.isLeft(fields)
  )
    return E.left(failures);
  const deletedAt = findColumn(model, settings.config.soft_delete.deleted_at_field)?.attribute;
  return E.right({
    conditions: filters.conditions,
    ...(filters.groups !== undefined && { groups: filters.groups }),
    term: filters.term,
    order: sort.right,
    page: page.right,
    // A condition on the deleted-at attribute anywhere, inside a $or too, replaces the default of live rows only.
    trashed: everyCondition(filters).some((c) => c.attribute === deletedAt && c.relation === undefined),
    ...(include.right.length > 0 && { include: include.right }),
    ...(cursor.right !== undefined && { cursor: cursor.right }),
    ...(fields.right !== undefined && { fields: fields.right }),
  });
}

/**
 * The cursor a request pages by, when it sends `cursor`: empty for the first page, else a token verified against the
 * request's sort and filter. It pages on its own: with `page`, or `skipPagination=true`, it is an `invalidValue`.
 */
function planCursor(
  request: SearchRequest,
  secret: string | undefined,
): E.Either<FailItem<ErrorCode>[], CursorPlan | undefined> {
  const token = request.cursor;
  if (token === undefined) return E.right(undefined);
  if (typeof token !== 'string')
    return E.left([{ field: 'cursor', error: 'invalidValue', message: 'cursor must be a single token' }]);
  const skip = request.skipPagination === 'true' || request.skipPagination === '1';
  if (request.page !== undefined || skip) {
    return E.left([
      {
        field: 'cursor',
        error: 'invalidValue',
        message: `cursor pages on its own: leave out ${skip ? 'skipPagination' : 'page'} (perPage may be sent)`,
      },
    ]);
  }
  const scope = cursorScope(request.sort, request.filter);
  if (token === '') return E.right({ position: null, scope });
  if (secret === undefined) return E.left([invalidCursor()]);
  return E.bimap(
    (failure: FailItem<ErrorCode>) => [failure],
    (position: CursorPlan['position']) => ({ position, scope }),
  )(decodeCursor(token, scope, secret));
}

function planOrder(
  model: AttributeSource,
  sort: unknown,
  settings: SearchSettings,
): E.Either<FailItem<ErrorCode>[], Order[]> {
  if (
    sort !== undefined &&
    typeof sort !== 'string' &&
    !(Array.isArray(sort) && sort.every((s) => typeof s === 'string'))
  ) {
    return E.left([
      { field: 'sort', error: 'invalidValue', message: 'sort must be a comma-separated list of columns' },
    ]);
  }
  // The same resolver as filters; the spec's snake_case reading of an item is the fallback, a dot path
  // walks associations, and messages quote the item as the client wrote it.
  const resolved = parseSortItems(singleParam(sort) ?? '').map(
    ([name, direction]): E.Either<FailItem<ErrorCode>, Order> => {
      if (isRelationPath(name))
        return relationSort(model, name, direction, settings.policy.relations, settings.findField ?? 'id');
      const found =
        allowedColumn(model, settings.policy.sortable, name) ??
        allowedColumn(model, settings.policy.sortable, snakeCase(name));
      return found === undefined
        ? E.left({
            field: name,
            error: 'columnNotFound',
            message: `The sort column ${JSON.stringify(name)} was not found`,
          })
        : E.right([found.attribute, direction]);
    },
  );
  const missing = resolved.filter(E.isLeft);
  if (missing.length > 0) return E.left(missing.map((failure) => failure.left));
  const order = resolved.filter(E.isRight).map((item) => item.right);
  const tiebreak = primaryKeys(model)
    .filter((key) => !order.some(([attribute]) => attribute === key))
    .map((key): Order => [key, 'ASC']);
  return E.right([...order, ...tiebreak]);
}

function planPage(
  request: SearchRequest,
  config: FastCrudConfig['search'],
): E.Either<FailItem<ErrorCode>[], SearchPlan['page']> {
  const skip = request.skipPagination;
  if (skip !== undefined && !['true', 'false', '1', '0'].includes(skip as string)) {
    return E.left([
      { field: 'skipPagination', error: 'invalidValue', message: 'skipPagination must be true or false' },
    ]);
  }
  if (skip === 'true' || skip === '1') return E.right(null);
  const failures: FailItem<ErrorCode>[] = [];
  const read = (field: 'page' | 'perPage', fallback: number) => {
    const raw = request[field];
    if (raw === undefined) return fallback;
    if (typeof raw === 'string' && POSITIVE.test(raw)) return Number(raw);
    failures.push({ field, error: 'invalidValue', message: `${field} must be a positive integer` });
    return fallback;
  };
  const page = read('page', 1);
  const asked = read('perPage', config.per_page);
  const perPage = Math.min(asked, config.max_per_page);
  if (failures.length > 0) return E.left(failures);
  // A client's perPage above the cap is lowered, and the reply says so (the `Fast-Crud-Per-Page-Lowered` header).
  return E.right({
    page,
    perPage,
    ...(request.perPage !== undefined && asked > perPage && { lowered: true as const }),
  });
}

function primaryKeys(model: AttributeSource): string[] {
  return Object.entries(model.getAttributes())
    .filter(([, definition]) => definition.primaryKey)
    .map(([name]) => name);
}
