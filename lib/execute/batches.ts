/**
 * batchReader: a query's rows read batch by batch, for streaming exports, by keyset over the whole sort tuple where it
 * can follow the order.
 */
import {
  Op,
  Sequelize,
  type FindOptions,
  type Model,
  type ModelStatic,
  type OrderItem,
  type Transaction,
} from 'sequelize';
import { kindOf, type ValueKind } from '../core/attribute-kinds.js';
import { csvColumns } from '../core/csv-cells.js';
import type { SearchPlan } from '../types.js';
import { keysetSql, orderDirection, type KeyColumn } from '../core/keyset.js';

/**
 * How a batch reader reads: the batch size, raw rows or model instances, and the order items it may follow although
 * they are not plain attributes.
 */
export interface BatchOptions {
  readonly size: number;
  /** Raw driver rows (`raw: true`) instead of model instances. */
  readonly raw: boolean;
  /** The transaction every batch runs in (a snapshot), if any. */
  readonly transaction?: Transaction | undefined;
  /**
   * Order items the action compiled itself (relation sorts: a subquery literal) with the kind of
   * value each sorts by; the keyset follows them when the hook left them in place. Any other
   * item that is not `[attribute, direction]` makes the reader fall back to offsets.
   */
  readonly known?: ReadonlyMap<unknown, ValueKind> | undefined;
}

/** The prefix of the aliases the keyset reads the last row's sort values by; left out of what the rows show. */
export const KEY_ALIAS = '__keyset_';

/**
 * One followed column: how it sorts, what it selects to remember the last value, and how a value becomes a SQL literal.
 */
export interface KeyPart extends KeyColumn {
  readonly capture: string;
  readonly literal: (value: unknown) => string;
}

/**
 * Reads the query's rows batch by batch (raw rows or model instances, as `options.raw` says), in
 * the order the query gives. When every order item is an attribute (or a relation sort the action
 * compiled) with a plain direction, batches continue after the last row read (keyset over the
 * whole sort tuple, NULL-aware, the primary key the tiebreak); otherwise (a literal, a function,
 * a composite primary key, or a value the dialect cannot compare exactly, see `keyPart`) by offset.
 * @example for await (const rows of batchReader(Product, query, { size: 1000, raw: true })) write(rows);
 */
export async function* batchReader<M extends Model>(
  model: ModelStatic<M>,
  query: FindOptions,
  options: BatchOptions,
): AsyncGenerator<M[], undefined> {
  const keyset = keysetPlan(model, query.order, options.known ?? new Map());
  const common = {
    ...query,
    limit: options.size,
    raw: options.raw,
    transaction: options.transaction ?? query.transaction ?? null,
  };
  if (keyset === undefined) {
    for (let offset = 0; ; offset += options.size) {
      const records = await model.findAll({ ...common, offset });
      if (records.length > 0) yield records;
      if (records.length < options.size) return undefined;
    }
  }
  const captures = keyset.parts.map(
    (part, i) =>
      [Sequelize.literal(part.capture), `${KEY_ALIAS}${i}`] as [ReturnType<typeof Sequelize.literal>, string],
  );
  const attributes = withCaptures(query.attributes, captures);
  let after: ReturnType<typeof Sequelize.literal> | undefined = undefined;
  for (;;) {
    const where = after === undefined ? query.where : { [Op.and]: [query.where ?? {}, after] };
    const records = await model.findAll({
      ...common,
      attributes,
      order: keyset.order,
      ...(where !== undefined && { where }),
    });
    if (records.length < options.size) {
      if (records.length > 0) yield records;
      return undefined;
    }
    // Read the last row's sort values before yielding: the consumer may strip the capture aliases.
    const last = records.at(-1)! as unknown as Record<string, unknown> & { dataValues?: Record<string, unknown> };
    const values = options.raw ? last : last.dataValues!;
    after = Sequelize.literal(
      keysetSql(
        keyset.parts,
        keyset.parts.map((part, i) => {
          const key = `${KEY_ALIAS}${i}`;
          if (!Object.hasOwn(values, key))
            throw new Error(`The export's keyset column ${key} is missing from its rows`);
          const value = values[key];
          return value === null || value === undefined ? null : part.literal(value);
        }),
      ),
    );
    yield records;
  }
}

/**
 * The keyset a query's order allows: its parts (up to the primary key, which is appended when missing) and the order to
 * run.
 */
export function keysetPlan(
  model: ModelStatic<Model>,
  order: unknown,
  known: ReadonlyMap<unknown, ValueKind>,
): { parts: KeyPart[]; order: FindOptions['order'] } | undefined {
  const primaryKeys = (model as unknown as { primaryKeyAttributes: string[] }).primaryKeyAttributes;
  if (primaryKeys.length !== 1) return undefined;
  const primaryKey = primaryKeys[0]!;
  const items: unknown[] = order === undefined || order === null ? [] : Array.isArray(order) ? order : [order];
  const parts: KeyPart[] = [];
  const followed: unknown[] = [];
  for (const item of items) {
    const part = keyPart(model, item, known);
    if (part === undefined) return undefined;
    parts.push(part);
    followed.push(item);
    if ((item as unknown[])[0] === primaryKey) return { parts, order: followed as FindOptions['order'] };
  }
  const tiebreak = [primaryKey, 'ASC'];
  return {
    parts: [...parts, keyPart(model, tiebreak, known)!],
    order: [...followed, tiebreak] as FindOptions['order'],
  };
}

/**
 * One order item as a keyset part, or undefined when the keyset cannot follow it exactly. The
 * last row's value is remembered as the dialect can give it back without loss: SQLite's stored
 * value as it is; PostgreSQL's as text, compared as a literal of the column's own type; MariaDB's
 * dates and DECIMALs as text (a DECIMAL compared as `CAST(… AS DECIMAL(65,30))`), other values as
 * they are. MariaDB ENUMs (sorted by position, compared as text) and FLOAT/REAL (read back
 * rounded) are not followed, nor JSON or other kinds.
 */
function keyPart(
  model: ModelStatic<Model>,
  item: unknown,
  known: ReadonlyMap<unknown, ValueKind>,
): KeyPart | undefined {
  if (!Array.isArray(item) || item.length !== 2 || typeof item[1] !== 'string') return undefined;
  const sequelize = model.sequelize!;
  const dialect = sequelize.getDialect();
  const parsed = orderDirection(item[1], dialect);
  if (parsed === undefined) return undefined;
  const direction = { ...parsed };
  const quote = (name: string) => sequelize.getQueryInterface().quoteIdentifier(name);
  let expression: string;
  let kind: ValueKind | undefined;
  let typeKey = '';
  if (typeof item[0] === 'string') {
    const definition = Object.hasOwn(model.getAttributes(), item[0]) ? model.getAttributes()[item[0]] : undefined;
    if (definition === undefined || (definition as { type?: { key?: string } }).type?.key === 'VIRTUAL')
      return undefined;
    expression = `${quote(model.name)}.${quote(definition.field ?? item[0])}`;
    kind = kindOf(definition);
    typeKey = (definition.type as { key?: string } | undefined)?.key ?? '';
    // A column without NULLs needs no NULL test: `id > 5`, not `(id > 5 OR id IS NULL)`, which no index serves.
    if (definition.primaryKey === true || definition.allowNull === false) direction.nullsFirst = true;
  } else if (known.has(item)) {
    expression = `(${(item[0] as { val: string }).val})`;
    kind = known.get(item);
  } else return undefined;
  if (kind === undefined || kind === 'json' || kind === 'other') return undefined;
  const escape = (value: unknown) => sequelize.escape(value as string);
  if (dialect === 'postgres')
    return { expression, ...direction, capture: `CAST(${expression} AS TEXT)`, literal: escape };
  if (dialect === 'mariadb' || dialect === 'mysql') {
    if (kind === 'enum' || typeKey === 'FLOAT' || typeKey === 'REAL') return undefined;
    if (kind === 'date') return { expression, ...direction, capture: `CAST(${expression} AS CHAR)`, literal: escape };
    if (kind === 'number' && typeKey !== 'DOUBLE PRECISION') {
      return {
        expression,
        ...direction,
        capture: `CAST(${expression} AS CHAR)`,
        literal: (value) => `CAST(${escape(value)} AS DECIMAL(65,30))`,
      };
    }
  }
  return { expression, ...direction, capture: expression, literal: escape };
}

/** The query's attributes with the keyset captures added: all attributes plus them when it names none. */
export function withCaptures(
  attributes: FindOptions['attributes'],
  captures: [unknown, string][],
): FindOptions['attributes'] {
  if (attributes === undefined) return { include: captures } as FindOptions['attributes'];
  if (Array.isArray(attributes)) return [...attributes, ...captures] as FindOptions['attributes'];
  return { ...attributes, include: [...(attributes.include ?? []), ...captures] } as FindOptions['attributes'];
}

/**
 * The relation sorts a search plan compiled to `order`, by order item, with the kind of value each sorts by: the
 * keyset (the export's batches, cursor pages) may follow them.
 * @example keysetPlan(model, order, { known: relationSorts(model, plan, compiled.order) })
 */
export function relationSorts(
  model: ModelStatic<Model>,
  plan: SearchPlan,
  order: FindOptions['order'],
): Map<unknown, ValueKind> {
  const known = new Map<unknown, ValueKind>();
  const items = (Array.isArray(order) ? order : []) as OrderItem[];
  plan.order.forEach(([path], i) => {
    const [column] = csvColumns(model, { [path]: path });
    if (path.includes('.') && items[i] !== undefined && column?.kind !== undefined) known.set(items[i], column.kind);
  });
  return known;
}
