/**
 * How an export reads its rows: batch after batch by keyset (or offset), or all of them from one cursor over one
 * sorted result. A pure decision on facts the shell gathers.
 */

/** What the export's read depends on, as values. */
export interface ExportReadFacts {
  /** Sequelize's dialect name. */
  readonly dialect: string;
  /**
   * The first order item's column: `'primaryKey'` when it is the model's single primary key (either direction),
   * `'none'` when the query has no order, `'other'` for anything else (another attribute, a relation sort, a literal).
   */
  readonly leading: 'primaryKey' | 'none' | 'other';
  /** True when the rows are read raw (the export's fast path); a cursor gives raw rows only. */
  readonly raw: boolean;
  /** True when the reads run in a transaction (the export's snapshot, or the hook's own). */
  readonly transaction: boolean;
  /** True when the query sets its own `limit` or `offset` (a hook's). */
  readonly limited: boolean;
  /** True when the model has `afterFind` hooks, which see each batch's rows (a cursor would run no find). */
  readonly findHooks: boolean;
  /** Undefined when the driver members a cursor needs on this dialect are there, else what is missing. */
  readonly missing: string | undefined;
}

/** The export's way of reading: one cursor, or batches, with the reason the cursor was not taken. */
export type ExportRead = { readonly by: 'cursor' } | { readonly by: 'batches'; readonly reason: string };

/** The dialects with a cursor: PostgreSQL's `DECLARE … CURSOR`, SQLite's statement stepping, MariaDB's stream. */
const CURSOR_DIALECTS: ReadonlySet<string> = new Set(['postgres', 'sqlite', 'mariadb']);

/**
 * How an export reads. Batches by keyset when the order leads with the primary key (or there is none, and the keyset
 * adds it): each batch then seeks the key's index to the last row read, as fast as a cursor. Every other order reads
 * from one cursor, which sorts the result once, where each keyset batch would sort (or scan) the table again. The
 * cursor also needs raw rows, a transaction to hold it in, no `limit`/`offset` of a hook's, no `afterFind` hook, and
 * the driver's members.
 * @example planExportRead({ dialect: 'postgres', leading: 'other', raw: true, transaction: true, limited: false,
 *   findHooks: false, missing: undefined }) // { by: 'cursor' }
 * @example planExportRead({ dialect: 'postgres', leading: 'primaryKey', raw: true, transaction: true, limited: false,
 *   findHooks: false, missing: undefined }) // { by: 'batches', reason: 'the order leads with the primary key' }
 */
export function planExportRead(facts: ExportReadFacts): ExportRead {
  const reason =
    facts.leading !== 'other'
      ? facts.leading === 'none'
        ? 'the order is the primary key'
        : 'the order leads with the primary key'
      : !CURSOR_DIALECTS.has(facts.dialect)
        ? `${facts.dialect} has no cursor here`
        : !facts.raw
          ? 'the rows are serialized as model instances'
          : !facts.transaction
            ? 'there is no snapshot to hold a cursor in'
            : facts.limited
              ? 'the query sets a limit or an offset'
              : facts.findHooks
                ? 'the model has afterFind hooks'
                : facts.missing !== undefined
                  ? `the driver has no ${facts.missing}`
                  : undefined;
  return reason === undefined ? { by: 'cursor' } : { by: 'batches', reason };
}
